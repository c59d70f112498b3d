"""The browser's answer pipeline without Textual: a query in, the rows, counts and status words out.

The screen asks `answer` (on the spot, or in a worker for big corpora) and pushes what comes back
down to its widgets; tests ask it directly, without Pilot.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.diff import compare_tags
from cachetui.core.query.query import Query, RunsOn
from cachetui.core.query.resolve import QueryProblem
from cachetui.core.query.results import Results, package_counts_for, results_for

# Package counts for this many queries are kept: moving between packages keeps the query's
# filters, so its counts are asked for again and again.
PACKAGE_COUNTS_KEPT = 32


@dataclass(frozen=True, eq=False)
class Answer:
    """A query's results and per-package counts, or what is wrong with the query."""

    results: Results | None = None
    package_counts: dict[str, int] | None = None
    problem: str | None = None


@dataclass(frozen=True)
class View:
    """How the rows are shown: two tags compared (old, new), and/or laid out as `spack find -lv`."""

    compare: tuple[str, str] | None = None
    find: bool = False


def answer(corpus: Corpus, query: Query, sort: tuple[str | None, bool], memo: dict[Query, dict[str, int]],
           view: View = View()) -> Answer:
    """Answer `query` as `view` shows it; `memo` keeps package counts between calls (bounded)."""
    comparison = None
    if view.compare is not None:  # both tags' rows; the comparison keeps a kept binary once
        comparison = compare_tags(corpus, *view.compare)
        query = query.with_facet("tag", frozenset(view.compare))
    try:
        results = results_for(corpus, query, sort, comparison=comparison, find=view.find)
        everywhere = replace(query, package=None)  # package counts do not change as you move between packages
        counts = memo.get(everywhere)
        if counts is None:
            counts = memo[everywhere] = package_counts_for(corpus, everywhere)
            while len(memo) > PACKAGE_COUNTS_KEPT:
                memo.pop(next(iter(memo)))
    except QueryProblem as exc:
        return Answer(problem=str(exc))
    return Answer(results, counts)


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
    """A package name as part of a suggested file name: no separators, no control characters."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "._+-") else "_" for c in name)
