"""Everything a view of a query shows, computed in one place (the browser runs it off the UI thread).

Raises what the query raises (a QueryProblem): an answer to a typo is an
error, never an empty table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.common import Common, common_to
from cachetui.core.query.diff import Comparison
from cachetui.core.query.query import Query, match, said_beside, select
from cachetui.core.query.sorting import sort_specs
from cachetui.core.query.spack_find import FindLayout


@dataclass(frozen=True, eq=False)
class Results:
    query: Query
    indices: np.ndarray  # in display order
    in_scope: int  # specs in the package (or the corpus) before filtering
    facet_counts: dict[str, dict[str, int]]
    common: Common
    comparison: Comparison | None = None  # compare mode: rows are marked added, removed or kept
    find: FindLayout | None = None  # the `spack find -lv` lines of these rows, when asked for
    why_empty: str | None = None  # an empty answer: which part of the query emptied it
    dependencies_unknown: str | None = None  # a `^` over binaries whose sources record no dependencies

    @property
    def note(self) -> str | None:
        """What is said beside the answer (the browser's query line; the CLI's stderr says the same)."""
        return said_beside(self.why_empty, self.dependencies_unknown)


def results_for(corpus: Corpus, query: Query, sort: tuple[str | None, bool] = (None, False), *,
                comparison: Comparison | None = None, within: tuple[str, np.ndarray] | None = None) -> Results:
    """`comparison`: only the rows it shows (a kept binary once); `within`: only these specs (sorted), which
    the words beside them name when they leave nothing (`among the candidates for hdf5`)."""
    if comparison is not None:
        selection = select(corpus, query, comparison.rows)
    elif within is not None:
        selection = select(corpus, query, within[1], within[0])
    else:
        selection = select(corpus, query)
    indices = selection.indices()
    column, descending = sort
    if column is not None:
        indices = sort_specs(corpus, indices, column, descending=descending)
    return Results(query, indices, selection.size, selection.facet_counts(),
                   common_to(corpus, indices), comparison, why_empty=None if len(indices) else selection.why_empty(),
                   dependencies_unknown=selection.dependencies_unknown())


def package_counts_for(corpus: Corpus, query: Query) -> dict[str, int]:
    """Per package, the specs that satisfy everything in the query but its package choice."""
    found = np.bincount(corpus.package_of[match(corpus, replace(query, package=None))],
                        minlength=len(corpus.packages))
    return {corpus.packages[i]: int(found[i]) for i in np.flatnonzero(found)}
