"""Dependency types as Spack names them, kept as bits so an edge's set is one small integer."""

from __future__ import annotations

from collections.abc import Iterable

DEPTYPES = ("build", "link", "run", "test")  # bit i of a dependency's `deptypes`
BUILD = 1  # the bit of "build": only a build edge can be a compiler


def deptype_bits(names: Iterable[str]) -> int:
    """Bits of the known names; a name Spack does not define adds nothing."""
    return sum(1 << DEPTYPES.index(name) for name in set(names) if name in DEPTYPES)


def deptype_names(bits: int) -> tuple[str, ...]:
    return tuple(name for i, name in enumerate(DEPTYPES) if bits >> i & 1)
