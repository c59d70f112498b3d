"""The browser's answer pipeline without Textual: a query in, the rows, counts and status words out.

The screen asks `answer` (on the spot, or in a worker for big corpora) and pushes what comes back
down to its widgets; tests ask it directly, without Pilot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.recent import Recent
from cachetui.core.query.diff import compare_tags
from cachetui.core.query.query import Query, RunsOn
from cachetui.core.query.resolve import QueryProblem
from cachetui.core.query.results import Results, package_counts_for, results_for
from cachetui.core.query.spack_find import find_layout
from cachetui.present.spec_table.table_cells import SpecRows

# Package counts for this many queries are kept: moving between packages keeps the query's
# filters, so its counts are asked for again and again.
PACKAGE_COUNTS_KEPT = 32
# Whole answers (and `spack find` layouts) for this many questions: enough to go back and forth
# between views of one question (l, d) for free; each holds its rows (4 MB at 500k specs).
ANSWERS_KEPT = 4

Among = tuple[str, tuple[int, ...]]  # (what the rows are, e.g. a plan root's candidates; their corpus indices)
AnswerKey = tuple[Query, tuple[str | None, bool], tuple[str, str] | None, "Among | None"]


class RecentAnswers:
    """What recent questions cost, kept for the next ones: the same rows in another view (`l`,
    `d` off again) are not worked out again (at 500k specs the counts and the common part alone
    take ~65 ms, the rows as `spack find` lays them out ~70 ms). One per corpus."""

    def __init__(self) -> None:
        self.package_counts: Recent[Query, dict[str, int]] = Recent(PACKAGE_COUNTS_KEPT)
        self.results: Recent[AnswerKey, Results] = Recent(ANSWERS_KEPT)
        self.as_found: Recent[AnswerKey, Results] = Recent(ANSWERS_KEPT)  # the same, laid out as `spack find`
        # An answer shown again is the same rows, so the table keeps how it laid them out (~35 ms at 500k).
        self.rows: Recent[Results, SpecRows] = Recent(ANSWERS_KEPT)


@dataclass(frozen=True, eq=False)
class Answer:
    """A query's results and per-package counts, or what is wrong with the query."""

    results: Results | None = None
    package_counts: dict[str, int] | None = None
    problem: str | None = None


@dataclass(frozen=True)
class View:
    """How the rows are shown: two tags compared (old, new), and/or laid out as `spack find -lv`; `among`: only
    these specs (a plan root's candidates, which no query can express: requirements are not a spec), said as
    its label on the status line."""

    compare: tuple[str, str] | None = None
    find: bool = False
    among: Among | None = None


def answer(corpus: Corpus, query: Query, sort: tuple[str | None, bool], recent: RecentAnswers,
           view: View = View()) -> Answer:
    """Answer `query` as `view` shows it; `recent` keeps what recent answers computed (for this corpus)."""
    comparison = None
    if view.compare is not None:  # both tags' rows; the comparison keeps a kept binary once
        comparison = compare_tags(corpus, *view.compare)
        query = query.with_facet("tag", frozenset(view.compare))
    key: AnswerKey = (query, sort, view.compare, view.among)
    try:
        within = None
        if view.among is not None:  # as a comparison limits its rows
            within = (f"among the {view.among[0]}", np.asarray(sorted(set(view.among[1])), dtype=np.int64))
        results = recent.results.get(key, lambda: results_for(corpus, query, sort, comparison=comparison,
                                                              within=within))
        if view.find:
            rows = results
            results = recent.as_found.get(key, lambda: replace(rows, find=find_layout(corpus, rows.indices)))
        everywhere = replace(query, package=None)  # package counts do not change as you move between packages
        counts = recent.package_counts.get(everywhere, lambda: package_counts_for(corpus, everywhere))
    except QueryProblem as exc:
        return Answer(problem=str(exc))
    return Answer(results, counts)


def rows_to_show(corpus: Corpus, results: Results, sort: tuple[str | None, bool], recent: RecentAnswers) -> SpecRows:
    """The table's rows for an answer (to `sort`, as it was asked): the same answer, the same rows."""
    query = results.query

    def rows() -> SpecRows:
        return SpecRows(corpus, results.indices, *sort, query.package, results.common, results.comparison,
                        results.find, bool(query.filters) or query.runs_on is not None, results.why_empty)
    return recent.rows.get(results, rows)


def compare_text(corpus: Corpus, compare: tuple[str, str] | None) -> str | None:
    """The status line's words for a comparison of two tags."""
    if compare is None:
        return None
    added, removed, kept = compare_tags(corpus, *compare).binaries
    return f"{compare[0]} → {compare[1]}: +{added} −{removed} ={kept}"


def runs_on_text(runs_on: RunsOn | None) -> str | None:
    if runs_on is None:
        return None
    return f"runs on this {runs_on.machine}" if runs_on.platform else f"runs on {runs_on.machine}"


def file_safe(name: str) -> str:
    """A name as part of a file name (an export's suggested one, a download's): plain characters only, so no
    separator, control character or header syntax; each other character becomes `_`."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "._+-") else "_" for c in name)
