"""Parse Spack variant strings: `+mpi`, `~cuda`, `build_type=Release`, `cuda_arch=80,90`, `patches=…`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache


class VariantKind(str, Enum):
    ON = "on"  # +name
    OFF = "off"  # ~name
    VALUE = "value"  # name=value
    MULTI = "multi"  # name=a,b
    BARE = "bare"  # older site generations listed bare names


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    kind: VariantKind
    values: tuple[str, ...] = ()
    propagate: bool = False  # `++x`, `~~x`, `x==v`: applies to dependencies too

    def __str__(self) -> str:
        if self.kind is VariantKind.ON:
            return ("++" if self.propagate else "+") + self.name
        if self.kind is VariantKind.OFF:
            return ("~~" if self.propagate else "~") + self.name
        if self.kind is VariantKind.BARE:
            return self.name
        return self.name + ("==" if self.propagate else "=") + ",".join(self.values)

    def atoms(self) -> tuple[str, ...]:
        """Facet values: one per value, so `cuda_arch=90` matches `cuda_arch=80,90`."""
        if self.kind in (VariantKind.VALUE, VariantKind.MULTI):
            return tuple(f"{self.name}={value}" for value in self.values)
        return (str(self),)


_FLAGS = re.compile(r"(\+\+|~~|[+~])([^+~=\s]+)")


@lru_cache(maxsize=131072)
def parse_variants(text: str) -> tuple[Variant, ...]:
    """Parse one variant string, which may hold several (`+mpi~cuda`, `a=1 +b`)."""
    found: list[Variant] = []
    for token in text.split():
        found.extend(_parse_token(token))
    return tuple(found)


def _parse_token(token: str) -> list[Variant]:
    if "=" in token and not token.startswith(("+", "~")):
        name, sep, value = token.partition("==") if "==" in token else token.partition("=")
        values = tuple(v for v in value.split(",") if v) if value else ("",)
        kind = VariantKind.MULTI if len(values) > 1 else VariantKind.VALUE
        return [Variant(name, kind, values, propagate=sep == "==")]
    if token.startswith(("+", "~")):
        flags = _FLAGS.findall(token)
        if "".join(sigil + name for sigil, name in flags) == token:
            return [_flag(sigil, name) for sigil, name in flags]
    return [Variant(token, VariantKind.BARE)]


def _flag(sigil: str, name: str) -> Variant:
    kind = VariantKind.ON if sigil[0] == "+" else VariantKind.OFF
    return Variant(name, kind, propagate=len(sigil) == 2)


def variant_atoms(texts: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """All facet atoms of a spec's variant strings, in order."""
    return tuple(atom for text in texts for variant in parse_variants(text) for atom in variant.atoms())
