"""Microarchitectures, as Spack knows them (archspec): "runs on" and target ranges.

A binary built for target t runs on a machine whose microarchitecture is h when t is h or
one of h's ancestors: x86_64_v3 binaries run on a zen3, neoverse_v1 ones do not run on a
neoverse_v2, aarch64 ones never on x86_64. A range `lo:hi` holds the targets that are lo or
descend from it, and are hi or one of its ancestors.
"""

from __future__ import annotations

import platform as platform_module
from dataclasses import dataclass
from functools import lru_cache

import archspec.cpu


class UnknownTarget(ValueError):
    """A microarchitecture name archspec does not know."""


def known(name: str) -> bool:
    return name in archspec.cpu.TARGETS


def archspec_names() -> list[str]:
    return list(archspec.cpu.TARGETS)


def _target(name: str) -> archspec.cpu.Microarchitecture:
    try:
        return archspec.cpu.TARGETS[name]
    except KeyError:
        raise UnknownTarget(name) from None


@lru_cache(maxsize=4096)
def runs_on(binary_target: str, machine: str) -> bool:
    """Whether a binary built for `binary_target` runs on a `machine` microarchitecture."""
    if binary_target == machine:
        return True
    if not known(binary_target):
        return False
    return _target(binary_target) < _target(machine)


@lru_cache(maxsize=4096)
def target_family(name: str) -> str | None:
    """The family a microarchitecture belongs to (`skylake` and `x86_64_v3`: x86_64; `neoverse_v1`: aarch64);
    None for a name archspec does not know."""
    return _target(name).family.name if known(name) else None


def in_range(target: str, lo: str | None, hi: str | None) -> bool:
    """lo <= target <= hi in archspec's partial order (either bound may be open)."""
    if not known(target):
        return target == lo == hi
    candidate = _target(target)
    above = lo is None or candidate == _target(lo) or _target(lo) < candidate
    below = hi is None or candidate == _target(hi) or candidate < _target(hi)
    return above and below


@dataclass(frozen=True)
class Host:
    platform: str  # as Spack names it: linux, darwin, windows, freebsd
    target: str  # the host's microarchitecture, e.g. zen3


@lru_cache(maxsize=1)
def host() -> Host:
    """This machine, detected the way Spack detects it."""
    return Host(platform_module.system().lower(), archspec.cpu.host().name)
