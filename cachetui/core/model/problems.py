"""Load problems: every failure to use a file becomes a record, never an exception."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"  # the file (or part of it) could not be used
    WARNING = "warning"  # loaded, but something about it is off


class PathNotFound(FileNotFoundError):
    """A local path given by the user does not exist (a usage error, not a load problem)."""


class UnusableInput(ValueError):
    """An input that names something cachetui cannot read, such as a private s3:// bucket (a usage error)."""


NO_SUCH_PATH = "no such file or directory"


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    reason: str
    severity: Severity = Severity.ERROR
    line: int | None = None
    stale: bool = False  # says that what is shown is an old copy, not the source now (an offline copy)

    @classmethod
    def missing(cls, path: str) -> Problem:
        return cls(path, NO_SUCH_PATH)

    def described(self) -> str:
        """One line, where and then what; a missing input as the shell says it (`no such file or directory: PATH`)."""
        if self.reason == NO_SUCH_PATH:
            return f"{NO_SUCH_PATH}: {self.path}"
        return self.path + (f":{self.line}" if self.line else "") + f": {self.reason}"

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data


@dataclass(slots=True)
class LoadReport:
    """What a load saw: files looked at, and every problem met on the way."""

    files_seen: int = 0
    indexes_read: int = 0  # mirror indexes found and read (or reused unchanged)
    problems: list[Problem] = field(default_factory=list)

    def add(self, problem: Problem) -> None:
        self.problems.append(problem)

    def extend(self, problems: list[Problem]) -> None:
        self.problems.extend(problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    @property
    def stale(self) -> list[Problem]:
        """The warnings that what is shown is not current: every command says them, not only `check`."""
        return [p for p in self.problems if p.stale]
