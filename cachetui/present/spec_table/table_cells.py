"""What the spec table shows: the rows of an answer, and the text of each cell (plain strings, no Textual)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import DERIVED, REGISTRY, SINGLE, RegistryLookup, RegistryView
from cachetui.core.model.freshness import minute_utc
from cachetui.core.model.installable import NO, UNKNOWN, YES
from cachetui.core.query.common import Common
from cachetui.core.query.diff import Comparison
from cachetui.core.query.spack_find import FindLayout
from cachetui.core.spack.hashes import short_hash
from cachetui.core.spack.tags import is_whole_tag
from cachetui.present.apart import apart
from cachetui.present.fit import fit
from cachetui.present.format import condensed, condensed_variants, human_size
from cachetui.present.inert import inert


@dataclass(frozen=True, eq=False)
class SpecRows:
    """What the table shows: spec indices in display order. Compared by identity."""

    corpus: Corpus
    indices: np.ndarray
    sort_column: str | None = None
    descending: bool = False
    package: str | None = None  # the one package shown, or None: rows then need a package column
    common: Common = Common()  # what every row shares: the "differs" column leaves it out
    comparison: Comparison | None = None  # compare mode: a "change" column marks each row
    find: FindLayout | None = None  # the `spack find -lv` view: lines in place of columns
    clearable: bool = False  # facet filters or "runs on" narrow the rows: `x` would clear them
    why_empty: str | None = None  # no rows: which part of the query emptied the answer (core.query's words)
    # The rows measured for a layout, per set of hidden columns (`table_plan.measured_for`, which types them).
    measured: dict[frozenset[str], object] = field(default_factory=dict, init=False, repr=False)


INSTALLABLE_TEXT = {YES: "yes", NO: "no: builds", UNKNOWN: "?"}
CHANGE_TEXT = {"added": "+ added", "removed": "− removed", "kept": "= kept", "": ""}
# A column's value said inside the differs cell, in spec syntax, when the column itself has no room.
SPELLING = RegistryLookup(REGISTRY.spellings)  # declared with each field (cachetui.core.model.fields)

# Names of one family differ at their end (`py-torch-geometric-xyz1`, `develop-2025-04-20`): cut in the middle.
MIDDLE_CUT = RegistryView(lambda: REGISTRY.columns_marked("middle"))

Getter = Callable[[int], str]


def cut_cells(key: str, cells: Sequence[str], width: int) -> list[str]:
    """A column's cells at `width`, cut short and marked …; two different package names or tags never alike."""
    return apart(cells, width) if key in MIDDLE_CUT else [fit(cell, width) for cell in cells]


def some_not_installable(rows: SpecRows) -> bool:
    no = rows.corpus.vocab["installable"].ids.get(NO, -1)
    return bool((rows.corpus.single["installable"][rows.indices] == no).any())


def pushed_cell(when: int | None) -> str:
    """When a binary was pushed, to the minute in UTC (`2026-11-20 14:03`); `-` when its storage does not say, as
    an unknown size."""
    return human_size(None) if when is None else minute_utc(when)


def cell_getters(rows: SpecRows) -> dict[str, Getter]:
    """Each column's cell text for a spec, but the differs column's (that depends on the layout)."""
    corpus = rows.corpus

    def single(facet: str) -> Getter:
        values, col = corpus.vocab[facet].values, corpus.single[facet]
        return lambda i: values[col[i]]

    stacks, stack_values = corpus.multi["stack"], corpus.vocab["stack"].values
    installable = single("installable")
    packages, package_of = corpus.packages, corpus.package_of
    comparison = rows.comparison
    return {facet: single(facet) for facet in REGISTRY.shown(SINGLE, DERIVED)} | {  # a facet's column: its value
        "change": lambda i: CHANGE_TEXT[comparison.mark_of(i) if comparison is not None else ""],
        "package": lambda i: packages[package_of[i]],
        "hash": lambda i: short_hash(corpus.hashes[i]),
        "installable": lambda i: INSTALLABLE_TEXT[installable(i)],
        "stacks": lambda i: ",".join(stack_values[v] for v in stacks.of(i) if not is_whole_tag(stack_values[v])),
        "variants": lambda i: condensed_variants(corpus.raw_variants(i)),
        "size": lambda i: human_size(int(corpus.size[i]) if corpus.size[i] >= 0 else None),
        "pushed": lambda i: pushed_cell(corpus.pushed_of(i)),  # the facet's column would say "last day"
    }


def differing_variants(common: Common, raw_variants: tuple[str, ...]) -> dict[str, str]:
    """A row's variants that not every row shares: name -> as its cell shows it."""
    found: dict[str, str] = {}
    for variant in common.differing(raw_variants):
        shown = inert(condensed(variant))
        found[variant.name] = f"{found[variant.name]} {shown}" if variant.name in found else shown
    return found
