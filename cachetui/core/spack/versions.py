"""Spack versions: ordering and constraints, following `spack/version/version_types.py`.

Ordering (a version is a tuple of release components plus a pre-release part):
- components compare as: other strings < numbers < the infinity words, which rank
  `stable < nightly < trunk < head < master < main < develop`; strings compare
  case-sensitively (`Develop` is a plain string);
- a prefix sorts below its extensions (`1.2 < 1.2.0 < 1.2.1`), separators do not
  count (`1-2` equals `1.2`);
- only a whole, lowercase last segment `alpha`/`beta`/`rc` (optionally followed by a
  number) makes a pre-release: `1.2alpha1 < 1.2beta < 1.2rc < 1.2rc0 < 1.2rc1 < 1.2`;
  `1.0-src` and `1.2RC1` are plain versions.

Constraints, as Spack reads `@…`: `1.2` is the range `1.2:1.2`, which holds 1.2 and
every 1.2.x but not 1.20; `1.2:1.4` is inclusive and its upper bound covers 1.4.x;
`1.2:` and `:1.4` are open; `=1.2` is exactly 1.2; `1.2,1.8.23` is either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from cachetui.core.spack.words import echo

# Ascending, as Spack lists them (spack/version/common.py).
INFINITY_WORDS = ("stable", "nightly", "trunk", "head", "master", "main", "develop")
_INFINITY_INDEX = {word: i for i, word in enumerate(INFINITY_WORDS)}
ALPHA, BETA, RC, FINAL = 0, 1, 2, 3
_PRERELEASE = {"alpha": ALPHA, "beta": BETA, "rc": RC, "final": FINAL}
_SEGMENT = re.compile(r"(?:(?P<num>[0-9]+)|(?P<str>[a-zA-Z]+))[_.-]*")
_GIT_SHA = re.compile(r"[a-f0-9]{40}")

# A release component is (kind, value): kind orders strings < numbers < infinity words.
_STR, _NUM, _INF = 0, 1, 2
Component = tuple[int, int | str]
VersionKey = tuple[tuple[Component, ...], tuple[int, ...]]

TYPEMIN: VersionKey = ((), (ALPHA,))
TYPEMAX: VersionKey = (((_INF, len(INFINITY_WORDS)),), (FINAL,))
# Git refs without an assigned version sort after every version, as in Spack.
_UNASSIGNED_GIT: VersionKey = (((_INF, len(INFINITY_WORDS) + 1),), (FINAL,))


def _number(digits: str) -> int:
    """`int(digits)`, also past Python's 4300-digit limit on converting a string (a typed or hostile
    version may be longer), exactly: a few thousand digits at a time."""
    value = 0
    for start in range(0, len(digits), 4000):
        chunk = digits[start : start + 4000]
        value = value * 10 ** len(chunk) + int(chunk)
    return value


def _component(num: str, text: str) -> Component:
    if num:
        return (_NUM, _number(num))
    if text in _INFINITY_INDEX:
        return (_INF, _INFINITY_INDEX[text])
    return (_STR, text)


@lru_cache(maxsize=65536)
def version_key(version: str) -> VersionKey:
    """A key that sorts version strings the way Spack does (ascending)."""
    text = version.strip()
    if text.startswith("git.") or _GIT_SHA.fullmatch(text) or "=" in text[1:]:
        ref, eq, assigned = text.partition("=")
        return version_key(assigned) if eq and assigned else _UNASSIGNED_GIT
    segments = [(m.group("num"), m.group("str")) for m in _SEGMENT.finditer(text)]
    prerelease: tuple[int, ...] = (FINAL,)
    if len(segments) >= 3 and segments[-2][1] in _PRERELEASE and segments[-1][0]:
        prerelease = (_PRERELEASE[segments[-2][1]], _number(segments[-1][0]))
        segments = segments[:-2]
    elif len(segments) >= 2 and segments[-1][1] in _PRERELEASE:
        prerelease = (_PRERELEASE[segments[-1][1]],)
        segments = segments[:-1]
    return tuple(_component(num, word) for num, word in segments), prerelease


def sort_versions(versions: list[str], *, newest_first: bool = False) -> list[str]:
    """Sort version strings by Spack's ordering."""
    return sorted(versions, key=version_key, reverse=newest_first)


def _next_string(text: str) -> str:
    """Spack's `_next_str`: the next string of A-Z and a-z characters."""
    if not text or text[-1] == "z":
        return text + "A"
    return text[:-1] + ("a" if text[-1] == "Z" else chr(ord(text[-1]) + 1))


def next_version(key: VersionKey) -> VersionKey:
    """The smallest version above every version that `key` is a prefix of (Spack's `_next_version`)."""
    release, prerelease = key
    if prerelease[0] != FINAL:
        return release, (prerelease[0], prerelease[1] + 1 if len(prerelease) > 1 else 0)
    if not release:
        return ((_STR, "A"),), prerelease
    kind, value = release[-1]
    if kind == _NUM:
        last: Component = (_NUM, int(value) + 1)
    elif kind == _INF:
        last = (_INF, int(value) + 1)
    else:
        word = _next_string(str(value))
        while word in _INFINITY_INDEX:
            word = _next_string(word)
        last = (_STR, word)
    return release[:-1] + (last,), prerelease


class VersionSyntaxError(ValueError):
    """A version constraint that Spack would not parse."""


_VALID = re.compile(r"[A-Za-z0-9_.-][=A-Za-z0-9_.-]*")


@dataclass(frozen=True, slots=True)
class VersionRange:
    """Versions v with lo <= v < hi (hi already moved past the inclusive upper bound)."""

    text: str
    lo: VersionKey
    hi: VersionKey

    def contains(self, version: str) -> bool:
        key = version_key(version)
        return self.lo <= key < self.hi


@dataclass(frozen=True, slots=True)
class ExactVersion:
    text: str

    def contains(self, version: str) -> bool:
        return version_key(version) == version_key(self.text)


@dataclass(frozen=True, slots=True)
class VersionConstraint:
    """What follows `@` in a Spack spec: any of its parts (a comma list is an OR)."""

    parts: tuple[VersionRange | ExactVersion, ...]

    def contains(self, version: str) -> bool:
        return any(part.contains(version) for part in self.parts)

    def __str__(self) -> str:
        return ",".join(part.text for part in self.parts)


def _bound(text: str) -> VersionKey:
    if not _VALID.fullmatch(text):
        raise VersionSyntaxError(f"not a version: {echo(text, quoted=True)}")
    return version_key(text)


def _part(text: str) -> VersionRange | ExactVersion:
    if not text:
        raise VersionSyntaxError("empty version")
    if text.startswith("="):
        _bound(text[1:])
        return ExactVersion(text)
    if ":" in text:
        lo_text, sep, hi_text = text.partition(":")
        if ":" in hi_text:
            raise VersionSyntaxError(f"a range has one ':': {echo(text, quoted=True)}")
        lo = _bound(lo_text) if lo_text else TYPEMIN
        hi = next_version(_bound(hi_text) if hi_text else TYPEMAX)
        if hi <= lo:
            raise VersionSyntaxError(f"{echo(text)} is an empty range")
        return VersionRange(text, lo, hi)
    key = _bound(text)
    return VersionRange(text, key, next_version(key))


@lru_cache(maxsize=1024)
def parse_version_constraint(text: str) -> VersionConstraint:
    """Parse `1.2`, `=1.2`, `1.2:1.4`, `1.2:`, `:1.4` or a comma list of them."""
    text = text.replace(" ", "")
    if not text:
        raise VersionSyntaxError("empty version")
    return VersionConstraint(tuple(_part(piece) for piece in text.split(",")))
