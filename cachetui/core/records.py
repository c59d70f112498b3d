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
class ParsedDocument:
    """One listing document: a package in one cache tag."""

    path: str
    package: str
    tag: str
    title: str
    generation: str
    specs: list[RawSpec] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
