"""The main screen: the query line over the body (package list, spec table, details, facets).

It routes, and keeps no record of where it is beyond three plain parts: the action table
(`present/browser_actions.py`: the keys, and when each can act), the browsing state
(`present/browsing.py`: the query line, the package opened, the question asked and the one shown,
the jumps; pure transitions) and the body (`widgets/browser_body.py`: the panes' widths and focus).
Events go into transitions; their effects and each answer (`present.answer`) flow down as one
frozen state per widget. Widgets send messages up.
"""

from __future__ import annotations

from dataclasses import replace

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive, var
from textual.screen import Screen
from textual.widgets import Input, Label, ProgressBar
from textual.worker import Worker, WorkerState

from cachetui.app.actions import bindings, keys_shown
from cachetui.app.answers import Answers
from cachetui.app.dialogs.copy_menu import copy_choices
from cachetui.app.dialogs.flows import choose_columns, choose_comparison, choose_tag
from cachetui.app.dialogs.help import HelpScreen, help_sections
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.requests import CopyMenuRequested, CopyRequested, ExportRequested
from cachetui.app.screens.panes import WIDE_FROM
from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.facet_panel import FacetPanel
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine, status_of
from cachetui.app.worker_failure import report_failure
from cachetui.core.model.corpus import Corpus, SpecView
from cachetui.core.query.query import Query
from cachetui.core.spack.specquery import looks_like_spec
from cachetui.core.spack.targets import host
from cachetui.present import browsing as go
from cachetui.present.answer import Answer, View, compare_text, file_safe, rows_to_show
from cachetui.present.browser_actions import ACTIONS, KeyContext, by_action, can_act
from cachetui.present.browsing import Browsing, Effects
from cachetui.present.format import loading_text
from cachetui.present.table_layout import HIDDEN_AT_FIRST


class BrowserScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]
    ACTIONS = ACTIONS
    BINDINGS = bindings(ACTIONS)

    corpus: reactive[Corpus | None] = reactive(None)
    browsing: var[Browsing] = var(Browsing)
    sort: reactive[tuple[str | None, bool]] = reactive((None, False))
    hidden_columns: reactive[frozenset[str]] = reactive(HIDDEN_AT_FIRST)
    view: reactive[View] = reactive(View)

    def __init__(self) -> None:
        super().__init__()
        # answers on the spot or from a worker; `_deliver` looked up at each delivery (tests watch it)
        self._answers = Answers(self, lambda *delivered: self._deliver(*delivered))
        self._keys_state: tuple[bool, ...] = ()  # what the footer was last refreshed for

    @property
    def spec_query(self) -> Query:
        """The question asked (`applied_query` is the one the widgets show until its answer arrives)."""
        return self.browsing.query

    @property
    def applied_query(self) -> Query:
        return self.browsing.applied

    @property
    def facet_counts(self) -> dict[str, dict[str, int]]:
        """The facets' counts for the answer shown (the palette offers their values)."""
        return self.query_one(BrowserBody).facet_counts

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Vertical(id="loading"):
            yield Label("Loading build-cache documents…", id="loading-label")
            yield ProgressBar(id="loading-bar", show_eta=False)
        yield QueryBar(id="query")
        yield BrowserBody(id="body")
        yield KeyFooter()

    def on_mount(self) -> None:
        # Start on the list, not in the search box: a first `q` or `?` must act, `/` searches.
        self.set_focus(self.query_one(PackageList).options)
        # A package search follows each key within its frame: a watcher runs as the line changes,
        # where QueryBar.Typed arrives a frame later.
        self.watch(self.query_one(QueryBar).input, "value", self._search_now, init=False)

    # -- the action table: which keys act, and the footer --------------------------------------

    def _key_context(self) -> KeyContext:
        table, query, corpus = self.query_one(SpecTable), self.spec_query, self.corpus
        return KeyContext(typing=isinstance(self.focused, Input), loaded=corpus is not None,
                          spec_selected=table.current_spec is not None,
                          narrowed=bool(query.filters) or query.runs_on is not None,
                          comparing=self.view.compare is not None, tags=len(corpus.tags) if corpus else 0,
                          rows=table.row_count)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that cannot act now, so the footer only offers what works."""
        row = by_action(self.ACTIONS).get(action)
        return True if row is None else row.acts(self._key_context())

    def _refresh_keys(self) -> None:
        """Refresh the footer when what a key can do has changed (it recomposes every key)."""
        state = can_act(self.ACTIONS, self._key_context()) + (self.view.find,)  # the table's `s` sorts or not
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    # -- the browsing state: events in, effects out ------------------------------------------

    def _go(self, step: tuple[Browsing, Effects]) -> None:
        state, effects = step
        bar = self.query_one(QueryBar)
        if effects.clears_problem or effects.problem is not None:
            bar.problem = effects.problem
        if effects.put_line is not None:
            bar.show(effects.put_line)
        if state.line != self.browsing.line:
            self.query_one(BrowserBody).list_follows(state.line)
        self.browsing = state
        if effects.ask:
            self._push_facets()  # the value chosen shows at once; its counts come with the answer
            self._refresh_results()
        if effects.select is not None:
            self.query_one(SpecTable).select_spec(effects.select)
        if effects.focus_table:
            self.set_focus(self.query_one(SpecTable))
        if effects.notify is not None:
            self.notify(effects.notify, severity="warning" if effects.warning else "information", markup=False)

    def _use_text(self, text: str) -> bool:
        """The query line changed: a package search, or a spec query (False when it cannot be used)."""
        self._go(go.typed(self.browsing, text, self.corpus))
        return self.query_one(QueryBar).problem is None and (self.corpus is not None or not looks_like_spec(text))

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
            self._go(go.submitted(self.browsing, event.text))

    @on(QueryBar.Left)
    def _query_left(self, event: QueryBar.Left) -> None:
        spec = looks_like_spec(event.text)
        self.set_focus(self.query_one(SpecTable) if spec else self.query_one(PackageList).options)

    @on(PackageList.Chosen)
    def _package_chosen(self, event: PackageList.Chosen) -> None:
        self.open_package(event.package)

    def open_package(self, package: str | None) -> None:
        """Show one package's specs (None: every spec), keeping the active filters."""
        self._go(go.package_opened(self.browsing, package))

    def show_spec(self, spec: int) -> None:
        """Open `spec`'s package with the spec selected; a query that would hide it is cleared (and said so)."""
        if self.corpus is not None:
            self._go(go.show_spec(self.browsing, self.corpus, spec, self.query_one(PackageList).lists))

    @on(DetailPane.Jump)
    def _jump(self, event: DetailPane.Jump) -> None:
        if self.corpus is not None:
            self._go(go.jumped(self.browsing, self.corpus, event.spec, self.query_one(SpecTable).current_spec,
                               self.query_one(QueryBar).text, self.query_one(PackageList).lists))

    def action_jump_back(self) -> None:
        """Backspace: back to the spec a jump came from."""
        self._go(go.jumped_back(self.browsing))

    def toggle_filter(self, facet: str, value: str) -> None:
        self._go(go.facet_toggled(self.browsing, facet, value, self.view.compare is not None))

    @on(FacetPanel.Toggled)
    def _facet_toggled(self, event: FacetPanel.Toggled) -> None:
        self.toggle_filter(event.facet, event.value)

    # -- the keys' actions (the table says when each can act) ---------------------------------

    def action_focus_search(self) -> None:
        self.query_one(BrowserBody).focus_search(self.query_one(QueryBar).input)

    def action_toggle_facets(self) -> None:
        self.query_one(BrowserBody).toggle_facets()

    def action_back(self) -> None:
        self.query_one(BrowserBody).back()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(help_sections(self, self.query_one(BrowserBody).panes)))

    def action_problems(self) -> None:
        if self.corpus is not None:
            self.app.push_screen(ProblemsScreen(self.corpus.report, self.query_one(QueryBar).problem))

    def action_copy_hash(self) -> None:
        spec = self._current_spec()
        if spec is not None:
            what, text = copy_choices(spec, None)[0]
            self.post_message(CopyRequested(text, what))

    def action_copy_menu(self) -> None:
        spec = self._current_spec()
        if spec is not None and self.corpus is not None:
            self.post_message(CopyMenuRequested(spec, self.corpus))

    def _current_spec(self) -> SpecView | None:
        spec = self.query_one(SpecTable).current_spec
        if spec is None or self.corpus is None:
            self.notify("No spec selected.", severity="warning", markup=False)
            return None
        return self.corpus.spec(spec)

    def action_clear_filters(self) -> None:
        self._go(go.narrowed(self.browsing, self.spec_query.cleared()))

    def action_toggle_runs_on(self) -> None:
        self._go(go.runs_on_toggled(self.browsing, host))

    def action_toggle_find_view(self) -> None:
        """Group the table as `spack find -lv` prints it, or back to columns."""
        self.view = replace(self.view, find=not self.view.find)

    def action_export(self) -> None:
        """The table as shown now: its rows are taken at the key, so a later answer cannot swap them."""
        data = self.query_one(SpecTable).data
        if data is None or self.query_one(StatusLine).status.busy:
            self.notify("The table is being updated; export once it shows the answer.", markup=False)
            return
        self.post_message(ExportRequested(f"cachetui-{file_safe(self.spec_query.package or 'all')}.csv", data))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_compare(self) -> None:
        """Choose two tags and mark each binary added, removed or kept; again to stop comparing."""
        if self.view.compare is not None or self.corpus is None:
            self.view = replace(self.view, compare=None)
        elif len(self.corpus.tags) < 2:
            self.notify("Comparing needs two tags; this corpus has one.", severity="warning", markup=False)
        elif compared := await choose_comparison(self.app, self.corpus, self.spec_query.package):
            self.view = replace(self.view, compare=compared)  # the two tags are the scope; a tag filter waits

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_choose_tag(self) -> None:
        if self.corpus is not None and (query := await choose_tag(self.app, self.corpus, self.spec_query)):
            self._go(go.narrowed(self.browsing, query))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_choose_columns(self) -> None:
        hidden = await choose_columns(self.app, self.hidden_columns, self.query_one(SpecTable).squeezed)
        if hidden is not None:
            self.hidden_columns = hidden

    # -- answers flowing down ------------------------------------------------------------------

    def show_progress(self, done: int, total: int | None, what: str) -> None:
        """Loading: documents read, or bytes of an index downloaded (the window is up from the start)."""
        self.query_one("#loading-bar", ProgressBar).update(total=total, progress=done)
        self.query_one("#loading-label", Label).update(Text(loading_text(done, total, what)))

    def watch_corpus(self, corpus: Corpus | None) -> None:
        if corpus is None:
            return
        self.add_class("-loaded")
        self.query_one(BrowserBody).corpus = corpus
        self._answers = Answers(self, lambda *delivered: self._deliver(*delivered))
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, names=tuple(corpus.packages))
        self._go(go.corpus_arrived(self.browsing))
        if self.query_one(QueryBar).text:  # typed while loading
            self._use_text(self.query_one(QueryBar).text)

    def watch_sort(self) -> None:
        self._refresh_results()

    def watch_view(self) -> None:
        self._refresh_results()

    def watch_hidden_columns(self, hidden: frozenset[str]) -> None:
        self.query_one(SpecTable).hidden = hidden

    def _refresh_results(self) -> None:
        if self.corpus is not None and not self._answers.ask(self.corpus, self.spec_query, self.sort, self.view):
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=True)

    def _deliver(self, query: Query, sort: tuple[str | None, bool], view: View, found: Answer) -> None:
        corpus = self.corpus
        if corpus is None or (query, sort, view) != (self.spec_query, self.sort, self.view):
            return  # a newer question is on its way
        if found.problem is not None or found.results is None:
            # The query cannot be answered (a name not in the corpus): say so where it was typed,
            # and keep showing the last answer, which the status line still describes.
            self._go(go.refused(self.browsing, found.problem or ""))
            self._push_facets()
            shown = self.query_one(SpecTable).data
            self._push_status(corpus, self.applied_query, 0 if shown is None else len(shown.indices))
            return
        bar = self.query_one(QueryBar)
        bar.note = found.results.note
        state, effects = go.answered(self.browsing, query, bar.text, self.focused is bar.input)
        with self.app.batch_update():  # the widgets change together: never paint a half-updated screen
            results, comparison = found.results, found.results.comparison
            self.query_one(BrowserBody).show_answer(
                rows_to_show(corpus, results, self.sort, self._answers.recent), results.facet_counts,
                found.package_counts or {}, comparison.changes if comparison else None, query.package,
                opened=query.package is not None or query.spec is not None)
            self._push_status(corpus, query, len(results.indices))
            self._go((state, replace(effects, focus_table=False)))  # the facets, the cursor
            self._push_facets()
            self._spec_highlighted()  # details and keys now, not a frame later with the table's message
        if effects.focus_table:
            self.set_focus(self.query_one(SpecTable))

    def _push_status(self, corpus: Corpus, query: Query, shown: int) -> None:
        problems_key = keys_shown(self.app, "browser.problems", by_action(self.ACTIONS)["problems"].keys)
        compare = compare_text(corpus, self.view.compare)
        self.query_one(StatusLine).status = status_of(corpus, query, shown, compare, problems_key)

    def _push_facets(self) -> None:
        chosen = self.spec_query.active()
        if self.view.compare is not None:  # the two tags compared are the scope, whatever tag filter waits
            chosen = {facet: values for facet, values in chosen.items() if facet != "tag"}
        self.query_one(BrowserBody).show_facets(chosen)

    @on(SpecTable.Highlighted)
    def _spec_highlighted(self) -> None:
        self.query_one(BrowserBody).follow_cursor()  # where the cursor is now: keys held down queue older messages
        self._refresh_keys()

    @on(SpecTable.SortRequested)
    def _sort_requested(self, event: SpecTable.SortRequested) -> None:
        self.sort = (event.column, event.descending)

    def sort_by(self, column: str) -> None:
        """Sort by `column`; asking again for the same column reverses it."""
        current, descending = self.sort
        self.sort = (column, not descending if current == column else False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A worker of this screen failed: say so (its state changes do not reach the app)."""
        if event.state is not WorkerState.ERROR:
            return
        report_failure(self, event.worker)
        if event.worker.group == "results":  # never leave "updating…" up for an answer that will not come
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=False)
