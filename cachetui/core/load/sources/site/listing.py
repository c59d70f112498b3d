"""What the current site generation writes in a listing: each `spec_details` entry, and the `meta` summary.

Declared once, as msgspec structs: the fast lane decodes them straight from the document's
bytes; the careful lane reads the same fields out of whatever the front matter held, and
both check a summary against the spec list with `meta_problems`.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import msgspec

from cachetui.core.model.records import SpecColumns
from cachetui.core.spack.compilers import normalise_compiler
from cachetui.core.spack.words import counted


def counted_in_python(mapping: dict[str, int], elements: Iterable[str]) -> None:
    """Add each element's count to `mapping`: what `Counter` does, where its own loop in C is missing."""
    for element in elements:
        mapping[element] = mapping.get(element, 0) + 1


# Counter's own counting loop, in C, without Counter's Python layers around it: a whole site checks 50,000
# summaries. Private to `collections`, so taken only where it is there.
count_elements: Callable[[dict[str, int], Iterable[str]], None] = getattr(collections, "_count_elements",
                                                                          counted_in_python)


class SpecEntry(msgspec.Struct, gc=False):
    """One `spec_details` entry as the site writes it; any other shape fails the decode (general reader)."""

    # In the order the site writes the keys (sorted): each is then found where msgspec looks first
    compiler: str
    hash: str
    os: str
    platform: str
    size: int | str
    stacks: tuple[str, ...]
    target: str
    variants: tuple[str, ...]
    versions: list[str]


# A spec's fields in RawSpec's order (hash, version, compiler, ... size): how both lanes lay out their columns
ENTRY_FIELDS: tuple[str, ...] = ("hash", "versions", "compiler", "platform", "os", "target", "variants", "stacks",
                                 "size")


class Meta(msgspec.Struct, gc=False):
    """What a document's `meta` says about its own spec list (None: it does not say).

    The types are the fast lane's: a meta of others sends the document down the careful lane, which
    reads it with `meta_of` (a stack count of another type is then a disagreement it names).
    """

    num_specs: int | None = None
    num_specs_by_stack: dict[str, int] | None = None
    versions: list[str] | None = None
    compilers: list[str] | None = None


def meta_of(value: Any) -> Meta | None:
    """The summary in a front matter's `meta`, each field of the wrong type read as not said."""
    if not isinstance(value, dict):
        return None
    num, by_stack = value.get("num_specs"), value.get("num_specs_by_stack")
    return Meta(num if isinstance(num, int) else None, by_stack if isinstance(by_stack, dict) else None,
                _listed(value.get("versions")), _listed(value.get("compilers")))


def _listed(value: Any) -> list[str] | None:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else None


def meta_problems(meta: Meta, columns: SpecColumns) -> list[str]:
    """Where a document's summary disagrees with its own spec list, one reason per key."""
    reasons = []
    if meta.num_specs is not None and meta.num_specs != len(columns):
        reasons.append(f"meta.num_specs says {meta.num_specs}, the document lists {counted(len(columns), 'spec')}")
    by_stack = meta.num_specs_by_stack
    if by_stack is not None:
        listed: dict[str, int] = {}
        count_elements(listed, chain.from_iterable(columns.stacks))
        if by_stack != listed:
            wrong = sorted(str(s) for s in set(by_stack) | set(listed) if by_stack.get(s, 0) != listed.get(s, 0))
            if wrong:
                reasons.append(f"meta.num_specs_by_stack disagrees with the specs for: {', '.join(wrong[:5])}")
    if meta.versions is not None:
        reasons += _listing_problems("versions", set(meta.versions), columns.versions)
    if meta.compilers is not None:
        reasons += _listing_problems("compilers", set(map(normalise_compiler, meta.compilers)), columns.compilers)
    return reasons


def _listing_problems(key: str, listed: set[str], used: list[str]) -> list[str]:
    seen = set(used)
    seen.discard("")
    if listed == seen:
        return []
    missing, extra = sorted(seen - listed), sorted(listed - seen)
    parts = [f"not listed: {', '.join(missing[:5])}" if missing else "",
             f"listed but unused: {', '.join(extra[:5])}" if extra else ""]
    return [f"meta.{key} disagrees with the specs ({'; '.join(p for p in parts if p)})"]
