"""What a reading of a database says is wrong: with the index as a whole, or with one record of it."""

from __future__ import annotations

from typing import Any

from cachetui.core.model.problems import Problem, Severity
from cachetui.core.spack.words import counted, echo, newer_format

KNOWN_VERSIONS = frozenset({"6", "7", "8"})
NEWEST_VERSION = 8
MAX_RECORD_PROBLEMS = 20  # records named one by one; past this, one line counts the rest
NOT_UTF8 = "not valid UTF-8; skipped"
NO_SPEC = "no usable spec (a node with a name); skipped"
WRONG_TYPES = "not the shape Spack writes; fields of the wrong type are shown empty"


class IndexFormatError(ValueError):
    """Not a Spack build-cache database."""


def version_problems(version: str, origin: str) -> list[Problem]:
    if version in KNOWN_VERSIONS:
        return []
    reason = newer_format("database", version, NEWEST_VERSION) or (
        f"database version {echo(version or '(none)')} is not one of 6, 7, 8; read as far as it is recognisable")
    return [Problem(origin, reason, Severity.WARNING)]


class Faults:
    """Records that cost only themselves: each one named (up to MAX_RECORD_PROBLEMS), the rest counted."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.problems: list[Problem] = []
        self.unnamed = {Severity.ERROR: 0, Severity.WARNING: 0}

    def add(self, hash_: str, reason: str, severity: Severity = Severity.ERROR) -> None:
        if len(self.problems) < MAX_RECORD_PROBLEMS:
            self.problems.append(Problem(self.origin, f"record {_shown_hash(hash_)}: {reason}", severity))
        else:
            self.unnamed[severity] += 1

    def not_an_object(self, hash_: str, value: Any) -> None:
        self.add(hash_, f"is {_json_type(value)}, not an object; skipped")

    def report(self) -> list[Problem]:
        what = {Severity.ERROR: "skipped", Severity.WARNING: "with fields of the wrong type shown empty"}
        return self.problems + [Problem(self.origin, f"{counted(n, 'more record')} {what[severity]} "
                                                     "(not named one by one)", severity)
                                for severity, n in self.unnamed.items() if n]


def _shown_hash(hash_: str) -> str:
    """A record's key as it can be named: undecodable bytes as \\xNN, never longer than a line."""
    text = hash_.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text if len(text) <= 64 else text[:64] + "…"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "an array" if isinstance(value, list) else "a value"
