"""Spack variant strings: `+mpi`, `~cuda`, `build_type=Release`, `cuda_arch=80,90`, `patches=…`.

Parsed from text, and written from a node's `parameters` as Spack prints a spec (`spack find -v`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache
from operator import itemgetter
from typing import Any

# A node's `parameters` holds its compiler flags beside its variants; they are not variants.
COMPILER_FLAGS = frozenset({"cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"})
PATCH_CHARS = 7  # each patch's sha256 as Spack prints it (`MultiValuedVariant.__str__`)
# A name Spack could write: one with a space, a quote, `=`, `+`, `~` or `,` would read as other variants.
_PARAMETER_NAME = re.compile(r'[^\s"=+~,]+')


class VariantKind(str, Enum):
    ON = "on"  # +name
    OFF = "off"  # ~name
    VALUE = "value"  # name=value
    LIST = "list"  # name=a,b: several values (Spack's multi-valued variant)
    BARE = "bare"  # older site generations listed bare names


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    kind: VariantKind
    values: tuple[str, ...] = ()
    propagate: bool = False  # `++x`, `~~x`, `x==v`: applies to dependencies too
    exact: bool = False  # `x:=v`: newer Spack's spelling of the same variant, kept for display

    def __str__(self) -> str:
        if self.kind is VariantKind.ON:
            return ("++" if self.propagate else "+") + self.name
        if self.kind is VariantKind.OFF:
            return ("~~" if self.propagate else "~") + self.name
        if self.kind is VariantKind.BARE:
            return self.name
        separator = "==" if self.propagate else ":=" if self.exact else "="
        return self.name + separator + quote_value(",".join(self.values))

    def atoms(self) -> tuple[str, ...]:
        """Facet values: one per value, so `cuda_arch=90` matches `cuda_arch=80,90`.

        Spellings that mean the same variant give the same atoms: `k:=v`, `k==v` and `k=v`;
        `~~x` and `~x`.
        """
        if self.kind in (VariantKind.VALUE, VariantKind.LIST):
            return tuple(f"{self.name}={value}" for value in self.values)
        if self.kind is VariantKind.ON:
            return ("+" + self.name,)
        if self.kind is VariantKind.OFF:
            return ("~" + self.name,)
        return (self.name,)


_FLAGS = re.compile(r"(\+\+|~~|[+~])([^+~=\s]+)")
# Variants are separated by plain spaces only: a newline, tab or other control character inside
# a value stays in that value (and is shown escaped), so a value can never start a line of its
# own. A value holding a space is written in double quotes (as Spack writes it), and stays whole.
_TOKENS = re.compile(r'(?:[^ "]+|"(?:[^"\\]|\\.)*"?)+')


def quote_value(value: str) -> str:
    """A variant value as written after `=`: double-quoted when it holds a space or a double quote."""
    if " " not in value and '"' not in value:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@lru_cache(maxsize=65536)
def variant_text(name: str, value: bool | str | tuple[str, ...], separator: str = "=") -> str:
    """One variant as Spack prints it: `+x`/`~x`; else its values sorted (Spack keeps a multi-valued variant
    sorted) and comma-joined, each patch cut to PATCH_CHARS, quoted when that holds a space or a quote.

    Cached per (name, value): equal variants are then one string object.
    """
    if isinstance(value, bool):
        return ("+" if value else "~") + name
    values = [value] if isinstance(value, str) else sorted(value)
    if name == "patches":
        values = [v[:PATCH_CHARS] for v in values]
    return name + separator + quote_value(",".join(values))


ParameterValue = bool | str | tuple[str, ...]  # the shapes a parameter Spack writes can have (a list as a tuple)


def _parameter_text(name: str, value: ParameterValue) -> tuple[bool, str] | None:
    """One of a node's `parameters` as Spack prints it: (True, `cflags="-O2 -g"`) for a compiler flag,
    (False, `+mpi`, `build_type=Release`, `cuda_arch=80,90`) for a variant; None for what is neither: an empty
    list (Spack writes all six flags), a flag that is not a list, a name Spack could not have written."""
    if name in COMPILER_FLAGS:
        return (True, name + "=" + quote_value(" ".join(value))) if isinstance(value, tuple) and value else None
    if not _PARAMETER_NAME.fullmatch(name) or value == ():
        return None
    return False, variant_text(name, value)


def _parameter(name: str, value: Any) -> tuple[bool, str] | None:
    """`_parameter_text` of a value in one of the shapes Spack writes (a list of strings, or a tuple of them, a
    bool, a string); None for any other shape (never guessed)."""
    if isinstance(value, bool | str):
        return _parameter_text(name, value)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return _parameter_text(name, tuple(value))
    return None


Rendering = tuple[str, bool, str]  # one parameter rendered: (its name, whether a compiler flag, its text)


class ParameterMemory(dict[tuple[str, Any], "Rendering | None"]):
    """(name, value) -> `_rendering` of it, worked out the first time it is asked for."""

    def __missing__(self, key: tuple[str, Any]) -> Rendering | None:
        rendering = self[key] = _rendering(*key)
        return rendering


def _rendering(name: str, value: Any) -> Rendering | None:
    found = _parameter(name, value)
    return None if found is None else (name, *found)


def parameters_texts(parameters: Mapping[str, Any], memory: ParameterMemory | None = None
                     ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A node's `parameters` as its variants and its compiler flags, each sorted by name; values of other shapes
    (not a bool, a string or a list of strings) left out. `memory`, for values that are all hashable (a typed
    decode's): each (name, value) rendered once across the nodes it is given with."""
    if memory is not None:  # a mirror's every node: looked up without a Python step per parameter
        texts = list(filter(None, map(memory.__getitem__, parameters.items())))
    else:
        texts = list(filter(None, (_rendering(name, value) for name, value in parameters.items())))
    texts.sort()  # by name, which differ (no value is compared), once the empty flags Spack writes are left out
    if not any(map(_IS_FLAG, texts)):  # most nodes have no flag
        return tuple(map(_TEXT, texts)), ()
    return tuple(t for _, flag, t in texts if not flag), tuple(t for _, flag, t in texts if flag)


_IS_FLAG, _TEXT = itemgetter(1), itemgetter(2)


def parameters_variants(parameters: Mapping[str, Any]) -> tuple[str, ...]:
    """A node's `parameters` as its variants, sorted by name; compiler flags, names Spack could not have
    written and values of other shapes (not a bool, a string or a list of strings) left out, never guessed."""
    return parameters_texts(parameters)[0]


def parameters_flags(parameters: Mapping[str, Any]) -> tuple[str, ...]:
    """A node's compiler flags from its `parameters`, as Spack prints them (`cflags="-O2 -g"`), sorted by name;
    an empty list (Spack writes all six) is no flag, and a value of another shape is left out."""
    return parameters_texts(parameters)[1]


def _unquoted(value: str) -> str:
    inner = value[1:-1] if len(value) > 1 and value.endswith('"') else value[1:]
    return re.sub(r"\\(.)", r"\1", inner, flags=re.DOTALL)


@lru_cache(maxsize=131072)
def parse_variants(text: str) -> tuple[Variant, ...]:
    """Parse one variant string, which may hold several (`+mpi~cuda`, `a=1 +b`)."""
    found: list[Variant] = []
    for token in _TOKENS.findall(text):
        found.extend(_parse_token(token))
    return tuple(found)


def _parse_token(token: str) -> list[Variant]:
    if "=" in token and not token.startswith(("+", "~")):
        name, _, value = token.partition("=")
        propagate = value.startswith("=")
        value = value.removeprefix("=") if propagate else value
        exact = not propagate and name.endswith(":")
        name = name.removesuffix(":") if exact else name
        if value.startswith('"'):  # one value, whatever it holds
            kind = VariantKind.VALUE
            return [Variant(name, kind, (_unquoted(value),), propagate=propagate, exact=exact)]
        values = tuple(v for v in value.split(",") if v) if value else ("",)
        kind = VariantKind.LIST if len(values) > 1 else VariantKind.VALUE
        return [Variant(name, kind, values, propagate=propagate, exact=exact)]
    if token.startswith(("+", "~")):
        flags = _FLAGS.findall(token)
        if "".join(sigil + name for sigil, name in flags) == token:
            return [_flag(sigil, name) for sigil, name in flags]
    return [Variant(token, VariantKind.BARE)]


def _flag(sigil: str, name: str) -> Variant:
    kind = VariantKind.ON if sigil[0] == "+" else VariantKind.OFF
    return Variant(name, kind, propagate=len(sigil) == 2)


@lru_cache(maxsize=131072)
def text_atoms(text: str) -> tuple[str, ...]:
    """The facet atoms of one variant string (`cuda_arch:=80,90` -> `cuda_arch=80`, `cuda_arch=90`)."""
    return tuple(atom for variant in parse_variants(text) for atom in variant.atoms())


def variant_atoms(texts: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """All facet atoms of a spec's variant strings, in order."""
    return tuple(atom for text in texts for atom in text_atoms(text))


@lru_cache(maxsize=131072)
def canonical_variant(text: str) -> str:
    """One variant string in one spelling, for telling whether two binaries' variants are the same.

    `k:=v`, `k==v` and `k=v` are one variant, as `++x` and `+x` are (a built binary records no
    propagation), and a multi-valued variant's values are a set (Spack keeps them sorted).
    """
    return " ".join(str(replace(v, propagate=False, exact=False, values=tuple(sorted(v.values))))
                    for v in parse_variants(text))


def atom_name(atom: str) -> str:
    """The variant an atom belongs to: `+mpi`/`~mpi` -> mpi, `cuda_arch=80` -> cuda_arch.

    Values of one variant are alternatives in a filter; different variants must all hold.
    """
    if atom[:1] in ("+", "~"):
        return atom.lstrip("+~") or atom
    name, eq, _ = atom.partition("=")
    return name if eq and name else atom
