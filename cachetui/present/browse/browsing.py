"""Where the browser is: the query line, the package opened, the query asked and the one shown, the jumps.

One frozen `Browsing`, changed only by the pure transitions below. Each takes the state and what
happened (text typed, an answer delivered, a jump…) and returns the new state with the `Effects`
the screen must carry out: say a problem, put text on the line, ask for an answer, move the cursor,
move the focus. The screen routes events in and pushes the results down; it keeps no other
record of where it is, so two paths can never disagree about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.interpret import interpret
from cachetui.core.query.query import Query, RunsOn, match
from cachetui.core.query.resolve import QueryProblem
from cachetui.core.spack.specquery import SpecQuery, SpecSyntaxError, looks_like_spec, parse_spec_query, refusal
from cachetui.core.spack.targets import Host
from cachetui.present.browse.answer import Among, View

SHOWN_WHOLE = "Query and filters cleared to show it."


@dataclass(frozen=True)
class Jumped:
    """Where a jump to a dependency left from: what Backspace puts back, the line and the list with the table."""

    query: Query
    spec: int
    line: str  # the query line's text (a package search or the spec query as typed)
    opened: str | None  # the package opened from the list
    among: Among | None = None  # the rows were only these (a plan root's candidates)


@dataclass(frozen=True)
class Browsing:
    query: Query = Query()  # the question asked (its answer may still be on its way)
    sort: tuple[str | None, bool] = (None, False)  # the column the rows are sorted by, and whether descending
    view: View = View()  # grouped as `spack find` prints it, or two tags compared
    applied: Query = Query()  # the question whose answer the widgets show
    line: str = ""  # the query line's text as last used (typing a spec query: once it pauses)
    opened: str | None = None  # the package opened from the list: where a query without a name looks
    asked_spec: SpecQuery | None = None  # the last spec query parsed from the line
    select_after: int | None = None  # a spec to put the cursor on once its answer arrives
    # Enter on a spec query still being answered: (the query, the line's text); the table takes the
    # focus once that answer shows, never after a refusal (the letters typed next fix the query).
    focus_when_answered: tuple[Query, str] | None = None
    jumps: tuple[Jumped, ...] = ()  # where each jump to a dependency came from (Backspace)


@dataclass(frozen=True)
class Effects:
    """What the screen does after a transition, in this order."""

    problem: str | None = None  # say this beside the line
    clears_problem: bool = False  # the line's text is fine now
    put_line: str | None = None  # put this on the line without applying it
    ask: bool = False  # ask for the answer to the state's query (even when it is the same question)
    select: int | None = None  # put the table's cursor on this spec now
    focus_table: bool = False
    notify: str | None = None
    warning: bool = False  # the notification is a warning


NOTHING = Effects()
Step = tuple[Browsing, Effects]


def _asking(state: Browsing, query: Query, effects: Effects = NOTHING) -> Step:
    """Ask `query` if it is a new question."""
    return replace(state, query=query), replace(effects, ask=query != state.query)


def typed(state: Browsing, text: str, corpus: Corpus | None) -> Step:
    """The line's text changed (or Enter): a package search, or a spec query to interpret."""
    state = replace(state, line=text)
    if not looks_like_spec(text):
        state = replace(state, asked_spec=None)
        if state.query.spec is None:
            return state, Effects(clears_problem=True)
        return _asking(state, replace(state.query, spec=None, package=state.opened), Effects(clears_problem=True))
    if corpus is None:
        return state, NOTHING  # used once the corpus arrives
    try:
        spec = parse_spec_query(text)
        interpretation = interpret(corpus, spec, state.query, state.opened)
    except SpecSyntaxError as exc:
        return state, Effects(problem=refusal(exc))
    except QueryProblem as exc:
        return state, Effects(problem=str(exc))
    select = interpretation.select if interpretation.select is not None else state.select_after
    state = replace(state, asked_spec=spec, select_after=select)
    if interpretation.query != state.query:
        return _asking(state, interpretation.query)
    # the same question as the one answered (or on its way): nothing to redo
    return replace(state, select_after=None), Effects(clears_problem=True, select=select)


def submitted(state: Browsing, text: str) -> Step:
    """Enter on a spec query the line could use: to the table now, or once its answer shows."""
    if state.query == state.applied:
        return state, Effects(focus_table=True)
    return replace(state, focus_when_answered=(state.query, text)), NOTHING


def answered(state: Browsing, query: Query, line: str, line_focused: bool) -> Step:
    """The answer to `query` shows; `line` is the line's text now (typing may have gone on)."""
    select, waiting = state.select_after, state.focus_when_answered
    state = replace(state, applied=query, select_after=None, focus_when_answered=None)
    done = query.spec is not None and query.spec == state.asked_spec
    return state, Effects(clears_problem=done, select=select, focus_table=line_focused and waiting == (query, line))


def refused(state: Browsing, problem: str) -> Step:
    """The query cannot be answered (a name not in the corpus): say so, and keep the last answer."""
    return replace(state, query=state.applied, select_after=None, focus_when_answered=None), Effects(problem=problem)


def narrowed(state: Browsing, query: Query) -> Step:
    """A filter, a tag or "runs here" changed the question."""
    return _asking(state, query)


def runs_on_toggled(state: Browsing, machine: Callable[[], Host]) -> Step:
    """Only binaries that run on this machine (its platform, its microarchitecture or an ancestor), or all again."""
    if state.query.runs_on is not None:
        return _asking(state, replace(state.query, runs_on=None))
    try:
        found = machine()
    except Exception as exc:  # noqa: BLE001 - archspec reads /proc/cpuinfo and the like
        return state, Effects(notify=f"Cannot tell what this machine is: {exc}", warning=True)
    return _asking(state, replace(state.query, runs_on=RunsOn(found.target, found.platform)))


def sorted_by(state: Browsing, column: str, descending: bool | None = None) -> Step:
    """Rows sorted by `column`; without `descending`, asking again for the same column reverses it."""
    current, was_descending = state.sort
    if descending is None:
        descending = not was_descending if current == column else False
    return replace(state, sort=(column, descending)), Effects(ask=(column, descending) != state.sort)


def viewed(state: Browsing, view: View) -> Step:
    """Another view of the same question: `spack find`'s grouping, or two tags compared."""
    return replace(state, view=view), Effects(ask=view != state.view)


def facet_toggled(state: Browsing, facet: str, value: str) -> Step:
    """A facet value chosen, or unchosen; comparing, the two tags compared are the scope."""
    if facet == "tag" and state.view.compare is not None:
        return state, Effects(notify="Comparing two tags: they are the scope (d stops comparing).")
    return _asking(state, state.query.toggled(facet, value))


def package_opened(state: Browsing, package: str | None) -> Step:
    """A package opened from the list (None: every spec), keeping the filters; the table takes the focus. Rows
    limited to some specs (a plan root's candidates) are the whole package's again."""
    state, effects = _asking(replace(state, opened=package, view=_unlimited(state.view)),
                             replace(state.query, package=package), Effects(focus_table=True))
    return state, replace(effects, ask=effects.ask or state.view.among is not None)


def _unlimited(view: View) -> View:
    return replace(view, among=None)


def among_shown(state: Browsing, among: Among, package: str | None, spec: int | None) -> Step:
    """Only the specs `among` (a plan root's candidates, in its package), the cursor on `spec`; the query line
    and filters cleared, as no query says these rows; the table takes the focus."""
    state = replace(state, opened=package, line="", asked_spec=None, select_after=spec,
                    view=replace(state.view, among=among, compare=None))
    return replace(state, query=Query(package)), Effects(put_line="", ask=True, focus_table=True)


def among_left(state: Browsing, before: Browsing) -> Step:
    """Back from `among_shown` to `before`: its question, line, package and view."""
    state = replace(state, query=before.query, view=before.view, line=before.line, opened=before.opened,
                    asked_spec=before.asked_spec, jumps=before.jumps, select_after=None)
    return state, Effects(put_line=before.line, ask=True)


def corpus_arrived(state: Browsing, corpus: Corpus) -> Step:
    """A corpus (the first, or a new one): asked afresh, with what the line holds (typed while loading)."""
    state, effects = typed(replace(state, query=Query()), state.line, corpus)
    return state, replace(effects, ask=True)


def reloaded(state: Browsing, corpus: Corpus, spec: int | None) -> Step:
    """The sources read again: the same question (package, facets, spec query, sort, view) over the new corpus,
    the cursor on `spec` (the binary it was on, found again by its hash; None when it is gone). What names the old
    corpus's specs (the jumps, rows limited to a plan root's candidates) is let go; a package opened that is gone
    is let go, and so is a spec query that no longer reads in it (said beside the line)."""
    state = replace(state, view=_unlimited(state.view), jumps=(), select_after=spec, focus_when_answered=None)
    query, effects = state.query, Effects(ask=True)
    compared = state.view.compare
    if compared is not None and not set(compared) <= set(corpus.tags):  # a tag compared is gone: comparing stops
        gone = ", ".join(tag for tag in compared if tag not in corpus.tags)
        state = replace(state, view=replace(state.view, compare=None))
        effects = replace(effects, notify=f"Tag {gone} is not in the sources any more: comparing stopped.",
                          warning=True)
    if query.package is not None and query.package not in corpus.package_index:
        effects = replace(effects, notify=f"{query.package} is not in the sources any more: every package shows.",
                          warning=True)
        state, query = replace(state, opened=None), replace(query, package=None)
    if query.spec is not None:
        try:
            query = interpret(corpus, query.spec, replace(query, spec=None), state.opened).query
        except QueryProblem as exc:
            state, query = replace(state, asked_spec=None), replace(query, spec=None)
            effects = replace(effects, problem=str(exc))
    return replace(state, query=query), effects


def _aim(state: Browsing, query: Query, spec: int, effects: Effects = NOTHING) -> Step:
    """Show `query` with the cursor on `spec`: asked again even when it is the same question."""
    return replace(state, query=query, select_after=spec), replace(effects, ask=True)


def show_spec(state: Browsing, corpus: Corpus, spec: int, listed: Callable[[str], bool]) -> Step:
    """Open `spec`'s package with the spec selected; a query that would hide it is cleared (and said so).

    `listed`: whether the package list shows a package now (a package search may not find it).
    """
    package = corpus.packages[corpus.package_of[spec]]
    among = state.view.among
    if among is not None and spec not in among[1]:  # a dependency of a candidate: its package's rows
        state = replace(state, view=_unlimited(state.view))
    state = replace(state, opened=package)  # a jump opens the package
    query = replace(state.query, package=package)
    if not len(match(corpus, query, within=np.array([spec]))):  # the query would hide it
        return _aim(replace(state, line=""), Query(package), spec, Effects(put_line="", notify=SHOWN_WHOLE))
    if not listed(package):  # the list shows every package, the one jumped to among them
        return _aim(replace(state, line=""), query, spec, Effects(put_line=""))
    return _aim(state, query, spec)


def jumped(state: Browsing, corpus: Corpus, spec: int, came_from: int | None, line: str,
           listed: Callable[[str], bool]) -> Step:
    """Enter on a dependency: show it, remembering where the jump came from (`came_from`, the line)."""
    if came_from is not None:
        state = replace(state, jumps=(*state.jumps, Jumped(state.query, came_from, line, state.opened,
                                                          state.view.among)))
    return show_spec(state, corpus, spec, listed)


def jumped_back(state: Browsing) -> Step:
    """Backspace: back to the spec the last jump came from, its line and its package."""
    if not state.jumps:
        return state, NOTHING
    last = state.jumps[-1]
    state = replace(state, jumps=state.jumps[:-1], line=last.line, opened=last.opened, asked_spec=last.query.spec,
                    view=replace(state.view, among=last.among))
    return _aim(state, last.query, last.spec, Effects(put_line=last.line))
