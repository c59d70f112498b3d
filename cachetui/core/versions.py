"""Spack's version ordering, as a sort key.

- `develop > main > master > head > trunk > stable` rank above every number;
- numbers rank above other strings; numeric parts compare as numbers (0.10 > 0.9);
- a prefix sorts below its extensions (1.2 < 1.2.0 < 1.2.1);
- pre-releases sort below their release (1.2alpha1 < 1.2beta < 1.2rc2 < 1.2).
"""

from __future__ import annotations

import re
from functools import lru_cache

INFINITY_WORDS = ("develop", "main", "master", "head", "trunk", "stable")
_INFINITY_RANK = {word: len(INFINITY_WORDS) - i for i, word in enumerate(INFINITY_WORDS)}
_PRERELEASE_RANK = {"alpha": 0, "beta": 1, "rc": 2}
_SEGMENT = re.compile(r"[0-9]+|[A-Za-z]+")
_PRERELEASE = re.compile(r"^(?P<release>.*?)[._-]?(?P<kind>alpha|beta|rc)[._-]?(?P<num>[0-9]*)$", re.IGNORECASE)

_STRING, _NUMBER, _INFINITY = 0, 1, 2
_FINAL = (3, 0)

Component = tuple[int, int | str]
VersionKey = tuple[tuple[Component, ...], tuple[int, int]]


def _component(segment: str) -> Component:
    if segment.isdigit():
        return (_NUMBER, int(segment))
    lowered = segment.lower()
    if lowered in _INFINITY_RANK:
        return (_INFINITY, _INFINITY_RANK[lowered])
    return (_STRING, lowered)


@lru_cache(maxsize=65536)
def version_key(version: str) -> VersionKey:
    """A key that sorts version strings the way Spack does (ascending)."""
    text = version.strip().removeprefix("=")
    prerelease = _FINAL
    match = _PRERELEASE.match(text)
    if match and match.group("release") and _SEGMENT.search(match.group("release")):
        text = match.group("release")
        prerelease = (_PRERELEASE_RANK[match.group("kind").lower()], int(match.group("num") or 0))
    return tuple(_component(s) for s in _SEGMENT.findall(text)), prerelease


def sort_versions(versions: list[str], *, newest_first: bool = False) -> list[str]:
    """Sort version strings by Spack's ordering."""
    return sorted(versions, key=version_key, reverse=newest_first)
