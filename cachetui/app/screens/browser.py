"""The main screen: package list, spec table, facets and detail pane.

The state (corpus, query, sort, facet filter) is reactive attributes declared with the keys that
change them (browser_keys.py), and the panes share the width as browser_panes.py says. Here the
state flows down: each change asks `present.answer` and pushes one frozen state to each widget.
Widgets send messages up.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar
from textual.worker import Worker, WorkerState, get_current_worker

from cachetui.app.screens.browser_keys import PANE_TITLES
from cachetui.app.screens.browser_panes import BrowserPanes
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.facet_panel import FacetPanel, FacetsPane, FacetState
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_detail import spec_detail
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import Status, StatusLine
from cachetui.app.worker_failure import report_failure
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.interpret import interpret
from cachetui.core.query.query import Query, match
from cachetui.core.query.resolve import QueryProblem
from cachetui.core.query.results import Results
from cachetui.core.spack.specquery import SpecQuery, SpecSyntaxError, looks_like_spec, parse_spec_query, refusal
from cachetui.present.answer import Answer, RecentAnswers, View, answer, compare_text, rows_to_show, runs_on_text
from cachetui.present.format import loading_text

# Up to this many specs, an answer takes a few milliseconds and is computed on the spot; above,
# in a worker, so keys and paints never wait for it (a newer question cancels an older one).
INLINE_SPECS = 50_000


@dataclass(frozen=True)
class Jumped:
    """Where a jump to a dependency left from: what Backspace puts back, the line and the list with the table."""

    query: Query
    spec: int
    line: str  # the query line's text (a package search or the spec query as typed)
    opened: str | None  # the package opened from the list


class BrowserScreen(BrowserPanes):
    def __init__(self) -> None:
        super().__init__()
        self.facet_counts: dict[str, dict[str, int]] = {}  # for the current query; the palette reads it too
        self._jumps: list[Jumped] = []  # where each jump to a dependency came from (Backspace)
        self._applied = Query()  # the query the widgets show (spec_query may be a newer one on its way)
        self._select_after: int | None = None  # a spec to put the cursor on once its results arrive
        self._opened: str | None = None  # the package opened from the list: where a query without a name looks
        self._wanted_spec: SpecQuery | None = None  # the last spec query parsed from the query line
        self._recent = RecentAnswers()  # what answers over this corpus computed, for the next ones
        self._detail_shown: tuple[object, ...] = ()  # (corpus, spec, build edges) the detail pane shows
        # Enter on a spec query answered in a worker: (the query, the line's text); the table takes the
        # focus once that answer shows, never before a refusal (the letters typed next fix the query).
        self._focus_when_answered: tuple[Query, str] | None = None

    @property
    def applied_query(self) -> Query:
        """The query the widgets show now (`spec_query` may be a newer one still being answered)."""
        return self._applied

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Vertical(id="loading"):
            yield Label("Loading build-cache documents…", id="loading-label")
            yield ProgressBar(id="loading-bar", show_eta=False)
        yield QueryBar(id="query")
        with Horizontal(id="body"):
            yield PackageList(id="packages")
            with Vertical(id="center"):
                yield SpecTable(id="specs")
                yield DetailPane(id="detail")
            yield FacetsPane(id="facets")
        yield KeyFooter()

    def on_mount(self) -> None:
        for selector, title in PANE_TITLES.items():
            self.query_one(selector).border_title = title
        # Start on the list, not in the search box: a first `q` or `?` must act, `/` searches.
        self.set_focus(self.query_one(PackageList).options)
        # The details follow the cursor within the key's own frame: a watcher runs as the cursor
        # moves, where the Highlighted message arrives once the table's frame is drawn.
        self.watch(self.query_one(SpecTable), "cursor", self._follow_cursor, init=False)
        self.watch(self.query_one(QueryBar).input, "value", self._search_now, init=False)  # the same for typing

    # -- state flowing down ----------------------------------------------------------

    def show_progress(self, done: int, total: int | None, what: str) -> None:
        """Loading: documents read, or bytes of an index downloaded (the window is up from the start)."""
        self.query_one("#loading-bar", ProgressBar).update(total=total, progress=done)
        self.query_one("#loading-label", Label).update(Text(loading_text(done, total, what)))

    def watch_corpus(self, corpus: Corpus | None) -> None:
        if corpus is None:
            return
        self.add_class("-loaded")
        self._recent = RecentAnswers()
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, names=tuple(corpus.packages))
        self.spec_query = Query()
        self._refresh_results()
        if self.query_one(QueryBar).text:  # typed while loading
            self._use_text(self.query_one(QueryBar).text)

    def watch_spec_query(self) -> None:
        self._push_facets()  # the value chosen shows at once; its counts come with the answer
        self._refresh_results()

    def watch_sort(self) -> None:
        self._refresh_results()

    def watch_facet_filter(self) -> None:
        self._push_facets()

    def watch_expanded_facets(self) -> None:
        self._push_facets()

    def watch_hidden_columns(self, hidden: frozenset[str]) -> None:
        self.query_one(SpecTable).hidden = hidden

    def _refresh_results(self) -> None:
        corpus = self.corpus
        if corpus is None:
            return
        query, sort, view = self.spec_query, self.sort, self.view
        if corpus.n_specs <= INLINE_SPECS:
            self._deliver(query, sort, view, answer(corpus, query, sort, self._recent, view))
        else:
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=True)
            # after the frame that says so: a worker competes for the GIL with the frame's drawing
            self.call_after_refresh(self._answer_in_worker, corpus, query, sort, view)

    @work(thread=True, exclusive=True, group="results", name="results", description="results", exit_on_error=False)
    def _answer_in_worker(self, corpus: Corpus, query: Query, sort: tuple[str | None, bool], view: View) -> None:
        found = answer(corpus, query, sort, self._recent, view)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._deliver, query, sort, view, found)

    def _deliver(self, query: Query, sort: tuple[str | None, bool], view: View, found: Answer) -> None:
        corpus = self.corpus
        if corpus is None or (query, sort, view) != (self.spec_query, self.sort, self.view):
            return  # a newer question is on its way
        bar = self.query_one(QueryBar)
        if found.problem is not None or found.results is None:
            # The query cannot be answered (a name not in the corpus): say so where it was typed,
            # and keep showing the last answer, which the status line still describes.
            bar.problem = found.problem
            self._select_after = None
            self._focus_when_answered = None
            self.set_reactive(BrowserScreen.spec_query, self._applied)
            self._push_facets()
            shown = self.query_one(SpecTable).data
            self._push_status(corpus, self._applied, 0 if shown is None else len(shown.indices))
            return
        if query.spec is not None and query.spec == self._wanted_spec:
            bar.problem = None
        bar.note = found.results.note
        self._applied = query
        with self.app.batch_update():  # the widgets change together: never paint a half-updated screen
            self._push_results(corpus, found.results, found.package_counts or {})
            if self._select_after is not None:
                self.query_one(SpecTable).select_spec(self._select_after)
                self._select_after = None
            self._spec_highlighted()  # details and keys now, not a frame later with the table's message
        waiting, self._focus_when_answered = self._focus_when_answered, None
        if waiting == (query, bar.text) and self.focused is bar.input:
            self.set_focus(self.query_one(SpecTable))

    def _push_results(self, corpus: Corpus, results: Results, package_counts: dict[str, int]) -> None:
        query = results.query
        rows = self.query_one(SpecTable).data = rows_to_show(corpus, results, self.sort, self._recent)
        self.facet_counts = results.facet_counts
        self._push_facets()
        packages = self.query_one(PackageList)
        changes = results.comparison.changes if results.comparison is not None else None
        packages.state = replace(packages.state, counts=package_counts, changes=changes, current=query.package,
                                 filtered=rows.clearable)
        self._push_status(corpus, query, len(results.indices))
        self._fit_panes()

    def _push_status(self, corpus: Corpus, query: Query, shown: int) -> None:
        scope = corpus.package_slice(query.package)
        self.query_one(StatusLine).status = Status(
            documents=len(corpus.documents),
            specs=corpus.n_specs,
            tags=len(corpus.tags),
            package=query.package,
            filters=query.active(),
            shown=shown,
            in_scope=scope.stop - scope.start,
            problems=len(corpus.report.problems),
            errors=len(corpus.report.errors),
            loading=False,
            spec=str(query.spec) if query.spec is not None else None,
            runs_on=runs_on_text(query.runs_on),
            spec_names_package=query.spec is not None and query.spec.root.name == query.package,
            compare=compare_text(corpus, self.view.compare),
        )

    def _push_facets(self) -> None:
        chosen = self.spec_query.active()
        if self.view.compare is not None:  # the two tags compared are the scope, whatever tag filter waits
            chosen = {facet: values for facet, values in chosen.items() if facet != "tag"}
        state = FacetState(self.facet_counts, chosen, self.facet_filter, self.expanded_facets)
        self.query_one(FacetPanel).state = state

    # -- messages coming up ----------------------------------------------------------

    @on(PackageList.Chosen)
    def _package_chosen(self, event: PackageList.Chosen) -> None:
        self.open_package(event.package)

    def open_package(self, package: str | None) -> None:
        """Show one package's specs (None: every spec), keeping the active filters."""
        self._opened = package
        self.spec_query = replace(self.spec_query, package=package)
        self.set_focus(self.query_one(SpecTable))

    def _follow_cursor(self) -> None:
        self._show_detail(self.query_one(SpecTable).current_spec)

    @on(SpecTable.Highlighted)
    def _spec_highlighted(self) -> None:
        self._follow_cursor()  # where the cursor is now: keys held down queue older messages
        self._refresh_keys()

    def _show_detail(self, spec_index: int | None) -> None:
        """The pane for this spec; not rebuilt when an answer leaves the cursor on the same one."""
        corpus = self.corpus
        shown = (corpus, spec_index, self.with_build_deps)
        last = self._detail_shown
        if last and last[0] is corpus and last[1:] == shown[1:]:  # `is`: a Corpus has no meaningful ==
            return
        self._detail_shown = shown
        detail = None
        if corpus is not None and spec_index is not None:
            detail = spec_detail(corpus, spec_index, self.with_build_deps)
        self.query_one(DetailPane).detail = detail

    def watch_with_build_deps(self) -> None:
        self._show_detail(self.query_one(SpecTable).current_spec)

    @on(DetailPane.BuildToggled)
    def _build_toggled(self) -> None:
        self.with_build_deps = not self.with_build_deps

    @on(DetailPane.Jump)
    def _jump(self, event: DetailPane.Jump) -> None:
        current = self.query_one(SpecTable).current_spec
        if current is not None:
            self._jumps.append(Jumped(self.spec_query, current, self.query_one(QueryBar).text, self._opened))
        self.show_spec(event.spec)

    def show_spec(self, spec: int) -> None:
        """Open `spec`'s package with the spec selected; a query that would hide it is cleared (and said so)."""
        corpus = self.corpus
        if corpus is None:
            return
        package = self._opened = corpus.packages[corpus.package_of[spec]]  # a jump opens the package
        query = replace(self.spec_query, package=package)
        if not len(match(corpus, query, within=np.array([spec]))):  # the query would hide it
            query = Query(package)
            self._put_line("")
            self.notify("Query and filters cleared to show it.", markup=False)
        elif not self.query_one(PackageList).lists(package):  # a package search that does not find it
            self._put_line("")  # the list shows every package, the one jumped to among them
        self._show(query, spec)

    def _show(self, query: Query, spec: int) -> None:
        self._select_after = spec
        if query == self.spec_query:
            self._refresh_results()  # the same query: no watcher fires, but the cursor must still move
        self.spec_query = query

    def action_jump_back(self) -> None:
        """Backspace: back to the spec a jump came from."""
        if self._jumps:
            jumped = self._jumps.pop()
            self._put_line(jumped.line)
            self._opened = jumped.opened
            self._wanted_spec = jumped.query.spec
            self._show(jumped.query, jumped.spec)

    def _put_line(self, text: str) -> None:
        """Put `text` on the query line without applying it (the screen sets the query itself); the list follows."""
        self.query_one(QueryBar).show(text)
        self._list_follows(text)

    def _list_follows(self, text: str) -> None:
        """The package list as the query line's text makes it: a package search, or the packages a spec matches."""
        packages = self.query_one(PackageList)
        spec_mode = looks_like_spec(text)
        packages.state = replace(packages.state, only_matching=spec_mode,
                                 search=packages.state.search if spec_mode else text)

    @on(SpecTable.Selected)
    def _spec_selected(self) -> None:
        self.set_focus(self.query_one(DetailPane))

    @on(SpecTable.SortRequested)
    def _sort_requested(self, event: SpecTable.SortRequested) -> None:
        self.sort = (event.column, event.descending)

    def sort_by(self, column: str) -> None:
        """Sort by `column`; asking again for the same column reverses it."""
        current, descending = self.sort
        self.sort = (column, not descending if current == column else False)

    def _search_now(self, text: str) -> None:
        """A package search follows each key within its frame (QueryBar.Typed does again, a no-op)."""
        if not self.query_one(QueryBar).showing and not looks_like_spec(text):
            self._use_text(text)

    @on(QueryBar.Typed)
    def _query_typed(self, event: QueryBar.Typed) -> None:
        self._use_text(event.text)

    @on(QueryBar.Submitted)
    def _query_submitted(self, event: QueryBar.Submitted) -> None:
        if not looks_like_spec(event.text):
            self.query_one(PackageList).choose_highlighted()
        elif self._use_text(event.text):
            if self.spec_query == self._applied:  # answered already
                self.set_focus(self.query_one(SpecTable))
            else:
                self._focus_when_answered = (self.spec_query, event.text)

    @on(QueryBar.Left)
    def _query_left(self, event: QueryBar.Left) -> None:
        target = self.query_one(SpecTable) if looks_like_spec(event.text) else self.query_one(PackageList).options
        self.set_focus(target)

    def _use_text(self, text: str) -> bool:
        """The query line changed: a package search, or a spec query (False when it cannot be used)."""
        bar = self.query_one(QueryBar)
        self._list_follows(text)
        if not looks_like_spec(text):
            bar.problem = None
            self._wanted_spec = None
            if self.spec_query.spec is not None:
                self.spec_query = replace(self.spec_query, spec=None, package=self._opened)
            return True
        if self.corpus is None:
            return False  # applied once the corpus arrives
        try:
            spec = parse_spec_query(text)
            interpretation = interpret(self.corpus, spec, self.spec_query, self._opened)
        except SpecSyntaxError as exc:
            bar.problem = refusal(exc)
            return False
        except QueryProblem as exc:
            bar.problem = str(exc)
            return False
        query = interpretation.query
        if interpretation.select is not None:
            self._select_after = interpretation.select
        self._wanted_spec = spec
        if query != self.spec_query:
            self.spec_query = query
            return bar.problem is None
        bar.problem = None  # the same question as the one answered (or on its way): nothing to redo
        if self._select_after is not None:
            self.query_one(SpecTable).select_spec(self._select_after)
            self._select_after = None
        return True

    @on(FacetPanel.Toggled)
    def _facet_toggled(self, event: FacetPanel.Toggled) -> None:
        self.toggle_filter(event.facet, event.value)

    @on(FacetPanel.Expanded)
    def _facet_expanded(self, event: FacetPanel.Expanded) -> None:
        self.expanded_facets = self.expanded_facets | {event.facet}

    @on(FacetsPane.FilterChanged)
    def _facet_filter_changed(self, event: FacetsPane.FilterChanged) -> None:
        self.facet_filter = event.text

    def toggle_filter(self, facet: str, value: str) -> None:
        if facet == "tag" and self.view.compare is not None:
            self.notify("Comparing two tags: they are the scope (d stops comparing).", markup=False)
            return
        self.spec_query = self.spec_query.toggled(facet, value)

    def watch_view(self) -> None:
        self._refresh_results()

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A worker of this screen failed: say so (its state changes do not reach the app)."""
        if event.state is not WorkerState.ERROR:
            return
        report_failure(self, event.worker)
        if event.worker.group == "results":  # never leave "updating…" up for an answer that will not come
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=False)
