"""Plain records that the loader produces: compact, picklable, no behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from cachetui.core.problems import Problem

UNKNOWN_SIZE = -1


class RawSpec(NamedTuple):
    """One binary as a document lists it."""

    hash: str
    version: str
    compiler: str  # normalised: gcc@=13.2.0 -> gcc@13.2.0
    platform: str
    os: str
    target: str
    variants: tuple[str, ...]
    stacks: tuple[str, ...]
    size: int  # bytes, or UNKNOWN_SIZE


@dataclass(slots=True)
class SpecColumns:
    """A document's specs field by field: lists of strings pickle and intern far faster than rows."""

    hashes: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    compilers: list[str] = field(default_factory=list)
    platforms: list[str] = field(default_factory=list)
    oss: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    variants: list[tuple[str, ...]] = field(default_factory=list)
    stacks: list[tuple[str, ...]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.hashes)

    @classmethod
    def from_rows(cls, rows: list[RawSpec]) -> SpecColumns:
        if not rows:
            return cls()
        return cls(*(list(column) for column in zip(*rows)))

    def rows(self) -> list[RawSpec]:
        return [RawSpec(*row) for row in zip(self.hashes, self.versions, self.compilers, self.platforms, self.oss,
                                              self.targets, self.variants, self.stacks, self.sizes)]


@dataclass(slots=True)
class ParsedDocument:
    """One listing document: a package in one cache tag."""

    path: str
    package: str
    tag: str
    title: str
    generation: str
    columns: SpecColumns = field(default_factory=SpecColumns)
    problems: list[Problem] = field(default_factory=list)

    @property
    def specs(self) -> list[RawSpec]:
        return self.columns.rows()
