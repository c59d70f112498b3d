"""The main screen: package list, spec table, facets and detail pane.

The screen owns the state (corpus, query, sort, facet filter) as reactive attributes;
widgets get data pushed down and send messages up.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Label, ProgressBar
from textual.worker import Worker, WorkerState, get_current_worker

from cachetui.app.screens.choice_dialog import ChoiceDialog
from cachetui.app.screens.columns_dialog import ColumnsDialog
from cachetui.app.screens.copy_menu import CopyMenu, copy_choices
from cachetui.app.screens.export_dialog import ExportDialog
from cachetui.app.screens.help import HelpScreen, help_sections
from cachetui.app.screens.problems import ProblemsScreen
from cachetui.app.screens.tag_picker import ALL_TAGS, TagPicker
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.facet_panel import FacetPanel, FacetsPane, FacetState
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_detail import spec_detail
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import Status, StatusLine
from cachetui.app.worker_failure import report_failure
from cachetui.core.load.sources import local_input
from cachetui.core.model.corpus import Corpus, SpecView
from cachetui.core.query.diff import compare_tags
from cachetui.core.query.interpret import interpret
from cachetui.core.query.query import Query, RunsOn, facet_counts, match
from cachetui.core.query.resolve import QueryProblem
from cachetui.core.query.results import Results, package_counts_for, results_for
from cachetui.core.spack.specquery import SpecQuery, SpecSyntaxError, looks_like_spec, parse_spec_query
from cachetui.core.spack.targets import host
from cachetui.present.export import ExportExists, ExportRefused, export_specs
from cachetui.present.format import loading_text
from cachetui.present.inert import inert
from cachetui.present.table_cells import SpecRows
from cachetui.present.table_layout import HIDDEN_AT_FIRST

# Pane -> the title on its top border; the focused pane's title and border light up.
PANE_TITLES = {"#packages": "Packages", "#specs": "Specs", "#detail": "Details", "#facets": "Facets"}
# Up to this many specs, an answer takes a few milliseconds and is computed on the spot; above,
# in a worker, so keys and paints never wait for it (a newer question cancels an older one).
INLINE_SPECS = 50_000
PACKAGE_COUNTS_KEPT = 32
# Pane widths (wide, narrow) and how far each gives way when the table needs the room.
PACKAGES_WIDTH, PACKAGES_NARROW = 28, 24
PACKAGES_LEAST, PACKAGES_LEAST_BROWSING = 16, 20  # a package or query open (the list shows its name), or not
FACETS_WIDTH, FACETS_LEAST = 30, 22
WIDE_FROM = 110  # the -wide breakpoint below


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


class BrowserScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]
    # `/` and `f` move the focus, so they are priority bindings: Textual then acts on them as they
    # arrive, and the keys typed right after reach the new focus (see check_action for text boxes).
    BINDINGS = [  # in the footer's order: what is used most first, so a narrow footer cuts the rest
        Binding("slash", "focus_search", "Search", priority=True, id="browser.search"),
        Binding("f", "toggle_facets", "Facets", priority=True, id="browser.facets"),
        # Help and quit early, so a footer cut at 80 columns still offers them.
        Binding("question_mark", "help", "Help", id="browser.help"),
        Binding("q", "app.quit", "Quit", id="browser.quit"),
        Binding("y", "copy_hash", "Copy hash", id="browser.copy-hash"),
        Binding("c", "copy_menu", "Copy…", id="browser.copy-menu"),
        Binding("x", "clear_filters", "Clear", id="browser.clear"),
        Binding("t", "choose_tag", "Tag", id="browser.tag"),
        Binding("r", "toggle_runs_on", "Runs here", id="browser.runs-on"),
        Binding("v", "choose_columns", "Columns", id="browser.columns"),
        Binding("l", "toggle_find_view", "spack find", id="browser.find-view"),
        Binding("d", "compare", "Compare", id="browser.compare"),
        Binding("e", "export", "Export", id="browser.export"),
        Binding("p", "problems", "Problems", id="browser.problems"),
        Binding("escape", "back", "Back", show=False, id="browser.back"),
    ]

    corpus: reactive[Corpus | None] = reactive(None)
    spec_query: reactive[Query] = reactive(Query)
    sort: reactive[tuple[str | None, bool]] = reactive((None, False))
    facet_filter: reactive[str] = reactive("")
    expanded_facets: reactive[frozenset[str]] = reactive(frozenset())
    with_build_deps: reactive[bool] = reactive(False)
    hidden_columns: reactive[frozenset[str]] = reactive(HIDDEN_AT_FIRST)
    view: reactive[View] = reactive(View)

    def __init__(self) -> None:
        super().__init__()
        self.facet_counts: dict[str, dict[str, int]] = {}  # for the current query; the palette reads it too
        self._jumps: list[tuple[Query, int]] = []  # where each jump to a dependency came from (Backspace)
        self._applied = Query()  # the query the widgets show (spec_query may be a newer one on its way)
        self._select_after: int | None = None  # a spec to put the cursor on once its results arrive
        self._opened: str | None = None  # the package opened from the list: where a query without a name looks
        self._wanted_spec: SpecQuery | None = None  # the last spec query parsed from the query line
        self._package_counts: dict[Query, dict[str, int]] = {}
        self._keys_state: tuple[bool, ...] = ()
        self._table_wants = 0  # cells the table asked for to show every column that tells rows apart
        self._detail_shown: tuple[object, ...] = ()  # (corpus, spec, build edges) the detail pane shows

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
        yield Footer()

    def on_mount(self) -> None:
        for selector, title in PANE_TITLES.items():
            self.query_one(selector).border_title = title
        # Start on the list, not in the search box: a first `q` or `?` must act, `/` searches.
        self.set_focus(self.query_one(PackageList).options)

    # -- state flowing down ----------------------------------------------------------

    def show_progress(self, done: int, total: int | None, what: str) -> None:
        """Loading: documents read, or bytes of an index downloaded (the window is up from the start)."""
        self.query_one("#loading-bar", ProgressBar).update(total=total, progress=done)
        self.query_one("#loading-label", Label).update(Text(loading_text(done, total, what)))

    def watch_corpus(self, corpus: Corpus | None) -> None:
        if corpus is None:
            return
        self.add_class("-loaded")
        self._package_counts.clear()
        self.query_one(PackageList).names = tuple(corpus.packages)
        self.spec_query = Query()
        self._refresh_results()
        if self.query_one(QueryBar).text:  # typed while loading
            self._use_text(self.query_one(QueryBar).text)

    def watch_spec_query(self) -> None:
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
            self._deliver(query, sort, view, answer(corpus, query, sort, self._package_counts, view))
        else:
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=True)
            self._answer_in_worker(corpus, query, sort, view)

    @work(thread=True, exclusive=True, group="results", name="results", description="results", exit_on_error=False)
    def _answer_in_worker(self, corpus: Corpus, query: Query, sort: tuple[str | None, bool], view: View) -> None:
        found = answer(corpus, query, sort, self._package_counts, view)
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
            self.set_reactive(BrowserScreen.spec_query, self._applied)
            shown = self.query_one(SpecTable).data
            self._push_status(corpus, self._applied, 0 if shown is None else len(shown.indices))
            return
        if query.spec is not None and query.spec == self._wanted_spec:
            bar.problem = None
        bar.note = found.results.why_empty
        self._applied = query
        with self.app.batch_update():  # the widgets change together: never paint a half-updated screen
            self._push_results(corpus, found.results, found.package_counts or {})
        if self._select_after is not None:
            self.query_one(SpecTable).select_spec(self._select_after)
            self._select_after = None

    def _push_results(self, corpus: Corpus, results: Results, package_counts: dict[str, int]) -> None:
        query = results.query
        column, descending = self.sort
        self.query_one(SpecTable).data = SpecRows(corpus, results.indices, column, descending, query.package,
                                                  results.common, results.comparison, results.find,
                                                  bool(query.filters) or query.runs_on is not None)
        self.facet_counts = results.facet_counts
        self._push_facets()
        packages = self.query_one(PackageList)
        packages.counts = package_counts
        packages.changes = results.comparison.changes if results.comparison is not None else None
        packages.current = query.package
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
            runs_on=_runs_on_text(query.runs_on),
            spec_names_package=query.spec is not None and query.spec.root.name == query.package,
            compare=_compare_text(corpus, self.view.compare),
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

    @on(SpecTable.Highlighted)
    def _spec_highlighted(self, event: SpecTable.Highlighted) -> None:
        self._show_detail(event.spec)
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
            self._jumps.append((self.spec_query, current))
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
            self.query_one(QueryBar).clear()
            self.notify("Query and filters cleared to show it.", markup=False)
        self._show(query, spec)

    def _show(self, query: Query, spec: int) -> None:
        self._select_after = spec
        if query == self.spec_query:
            self._refresh_results()  # the same query: no watcher fires, but the cursor must still move
        self.spec_query = query

    def action_jump_back(self) -> None:
        """Backspace: back to the spec a jump came from."""
        if self._jumps:
            query, spec = self._jumps.pop()
            self.query_one(QueryBar).show(str(query.spec) if query.spec else "")
            self._show(query, spec)

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

    @on(QueryBar.Typed)
    def _query_typed(self, event: QueryBar.Typed) -> None:
        self._use_text(event.text)

    @on(QueryBar.Submitted)
    def _query_submitted(self, event: QueryBar.Submitted) -> None:
        if not looks_like_spec(event.text):
            self.query_one(PackageList).choose_highlighted()
        elif self._use_text(event.text):
            self.set_focus(self.query_one(SpecTable))

    @on(QueryBar.Left)
    def _query_left(self, event: QueryBar.Left) -> None:
        target = self.query_one(SpecTable) if looks_like_spec(event.text) else self.query_one(PackageList).options
        self.set_focus(target)

    def _use_text(self, text: str) -> bool:
        """The query line changed: a package search, or a spec query (False when it cannot be used)."""
        packages, bar = self.query_one(PackageList), self.query_one(QueryBar)
        spec_mode = looks_like_spec(text)
        packages.only_matching = spec_mode
        if not spec_mode:
            packages.search = text
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
            bar.problem = f"column {exc.position + 1}: {exc.message}"
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

    # -- actions -----------------------------------------------------------------------

    def _refresh_keys(self) -> None:
        """Refresh the footer when what y, c, x, t, d or e can do has changed: it recomposes every key."""
        state = tuple(bool(self.check_action(a, ())) for a in ("copy_hash", "clear_filters", "choose_tag", "compare",
                                                               "export")) + (self.view.find,)  # s sorts or not
        if state != self._keys_state:
            self._keys_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that cannot act now, so the footer only offers what works."""
        if action in ("focus_search", "toggle_facets") and isinstance(self.focused, Input):
            return False  # typing `/` or `f` into a search box types it
        if action in ("copy_hash", "copy_menu"):
            return self.query_one(SpecTable).current_spec is not None
        if action == "clear_filters":
            return bool(self.spec_query.filters) or self.spec_query.runs_on is not None
        if action == "choose_tag":  # comparing, the two tags compared are the scope
            return self.corpus is not None and self.view.compare is None
        if action == "compare":
            return self.corpus is not None and len(self.corpus.tags) > 1
        if action == "export":
            return self.query_one(SpecTable).row_count > 0
        if action in ("problems", "toggle_runs_on", "toggle_find_view"):
            return self.corpus is not None
        return True

    def action_focus_search(self) -> None:
        """`/` searches where you are: the facets pane filters facets, anywhere else searches packages."""
        facets = self.query_one(FacetsPane)
        if facets.has_focus_within:
            self.set_focus(facets.filter)
            return
        if self.has_class("-narrow") and self.has_class("-facets-toggled"):
            self.remove_class("-facets-toggled")  # the package list takes its place back: never type unseen
        # Focus now (Screen.set_focus), not later (Widget.focus): keys typed right after `/` land in the box.
        self.set_focus(self.query_one(QueryBar).input)

    def action_toggle_facets(self) -> None:
        self.toggle_class("-facets-toggled")  # styles update at once, so `display` below is current
        self._fit_panes()
        self._keep_focus_visible()

    # -- panes give way to the table -----------------------------------------------------

    @on(SpecTable.WidthWanted)
    def _table_width_wanted(self, event: SpecTable.WidthWanted) -> None:
        self._table_wants = event.width
        self._fit_panes()

    def on_resize(self) -> None:
        self._fit_panes()

    def _fit_panes(self) -> None:
        """Narrow the package list, then the facets, as far as the table needs to tell its rows apart.

        Inline widths on the two panes (no class on a container); both stay on screen, so Tab,
        `/` and `f` reach them as before.
        """
        width = self.size.width
        if not width:
            return
        narrow = width < WIDE_FROM
        toggled = self.has_class("-facets-toggled")
        packages_shown, facets_shown = not (narrow and toggled), toggled if narrow else not toggled
        packages = PACKAGES_NARROW if narrow else PACKAGES_WIDTH
        facets = FACETS_WIDTH
        borders = 1 if narrow else 2 - toggled
        short = self._table_wants - (width - borders - packages * packages_shown - facets * facets_shown)
        query = self.spec_query
        least = PACKAGES_LEAST if query.package is not None or query.spec is not None else PACKAGES_LEAST_BROWSING
        if short > 0 and packages_shown:
            given = max(0, min(short, packages - least))
            packages, short = packages - given, short - given
        if short > 0 and facets_shown:
            facets -= min(short, facets - FACETS_LEAST)
        for selector, cells in (("#packages", packages), ("#facets", facets)):
            pane = self.query_one(selector)
            if pane.styles.width is None or pane.styles.width.value != cells:
                pane.styles.width = cells

    def _keep_focus_visible(self) -> None:
        """Nothing hidden may keep the focus: move it to the pane that took the hidden one's place."""
        focused = self.focused
        if focused is None or _displayed(focused):
            return
        facets = self.query_one(FacetsPane)
        self.set_focus(facets.panel if _displayed(facets) else self.query_one(SpecTable))

    def action_clear_filters(self) -> None:
        self.spec_query = self.spec_query.cleared()

    def action_toggle_runs_on(self) -> None:
        """Only binaries that run on this machine: its platform, and its microarchitecture or an ancestor."""
        if self.spec_query.runs_on is not None:
            self.spec_query = replace(self.spec_query, runs_on=None)
            return
        try:
            machine = host()
        except Exception as exc:  # noqa: BLE001 - archspec reads /proc/cpuinfo and the like
            self.notify(f"Cannot tell what this machine is: {exc}", severity="warning", markup=False)
            return
        self.spec_query = replace(self.spec_query, runs_on=RunsOn(machine.target, machine.platform))

    def action_toggle_find_view(self) -> None:
        """Group the table as `spack find -lv` prints it, or back to columns."""
        self.view = replace(self.view, find=not self.view.find)

    def action_compare(self) -> None:
        """Choose two tags and mark each binary added, removed or kept; again to stop comparing."""
        if self.view.compare is not None:
            self.view = replace(self.view, compare=None)
            return
        tags = self.corpus.tags if self.corpus is not None else []
        if len(tags) < 2:
            self.notify("Comparing needs two tags; this corpus has one.", severity="warning", markup=False)
            return
        picker = TagPicker(tags, self._tag_counts(), None, title="Compare: the older tag", with_all=False)
        self.app.push_screen(picker, self._old_tag_chosen)

    def _old_tag_chosen(self, old: str | None) -> None:
        if old is not None and self.corpus is not None:
            newer = [t for t in self.corpus.tags if t != old]
            picker = TagPicker(newer, self._tag_counts(), None, title=f"Compare {inert(old)} with: the newer tag",
                               with_all=False)
            self.app.push_screen(picker, lambda new: self._compare_chosen(old, new))

    def _compare_chosen(self, old: str, new: str | None) -> None:
        if new is not None:  # the answer scopes to the two tags; a tag filter set before waits until it stops
            self.view = replace(self.view, compare=(old, new))

    def watch_view(self) -> None:
        self._refresh_results()

    def action_export(self) -> None:
        """The table as shown now: its rows are taken at the key, so a later answer cannot swap them."""
        data = self.query_one(SpecTable).data
        if data is None or self.query_one(StatusLine).status.busy:
            self.notify("The table is being updated; export once it shows the answer.", markup=False)
            return
        name = f"cachetui-{_file_safe(self.spec_query.package or 'all')}.csv"
        if self.app.served:  # type: ignore[attr-defined]  # a web visitor: a download, never a server path
            self.app.download_rows(name, data)  # type: ignore[attr-defined]
            return
        roots = [p for p in map(local_input, self.app.paths) if p is not None]  # type: ignore[attr-defined]
        self.app.push_screen(ExportDialog(name, len(data.indices), roots),
                             lambda target: self._export_to(target, data))

    def _export_to(self, target: Path | None, data: SpecRows, replace_file: bool = False) -> None:
        if target is None:
            return
        if target.exists() and not replace_file:
            choices = [(Text("Replace it"), True), (Text("Cancel"), False)]
            self.app.push_screen(ChoiceDialog(f"{inert(str(target))} exists", choices),
                                 lambda yes: self._export_to(target, data, True) if yes else None)
            return
        self._export_in_worker(data, target, replace_file)

    @work(thread=True, group="export", name="export", description="export", exit_on_error=False)
    def _export_in_worker(self, data: SpecRows, target: Path, replace_file: bool) -> None:
        try:
            export_specs(target, data.corpus, data.indices.tolist(), replace=replace_file)
        except ExportExists:  # appeared while we asked or wrote: ask again, never clobber
            self.app.call_from_thread(self._export_to, target, data)
        except ExportRefused as exc:
            self.app.call_from_thread(self.notify, inert(str(exc)), severity="error", markup=False)
        else:
            self.app.call_from_thread(self.notify, inert(f"{len(data.indices)} specs to {target}"),
                                      title="Exported", markup=False)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A worker of this screen failed: say so (its state changes do not reach the app)."""
        if event.state is not WorkerState.ERROR:
            return
        report_failure(self, event.worker)
        if event.worker.group == "results":  # never leave "updating…" up for an answer that will not come
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=False)

    def action_choose_columns(self) -> None:
        self.app.push_screen(ColumnsDialog(self.hidden_columns, self.query_one(SpecTable).squeezed),
                             self._columns_chosen)

    def _columns_chosen(self, hidden: frozenset[str] | None) -> None:
        if hidden is not None:
            self.hidden_columns = hidden

    def action_choose_tag(self) -> None:
        corpus = self.corpus
        if corpus is None:
            return
        chosen = self.spec_query.filters.get("tag", frozenset())
        current = next(iter(chosen)) if len(chosen) == 1 else None
        self.app.push_screen(TagPicker(corpus.tags, self._tag_counts(), current), self._tag_chosen)

    def _tag_counts(self) -> dict[str, int]:
        """Specs per tag in the package open now, whatever the filters."""
        return facet_counts(self.corpus, Query(self.spec_query.package), "tag") if self.corpus else {}

    def _tag_chosen(self, tag: str | None) -> None:
        if tag is not None:
            self.spec_query = self.spec_query.with_facet("tag", frozenset() if tag == ALL_TAGS else frozenset({tag}))

    def action_copy_hash(self) -> None:
        spec = self._current_spec()
        if spec is not None:
            what, text = copy_choices(spec, None)[0]
            self.app.copy_text(text, what)  # type: ignore[attr-defined]

    def action_copy_menu(self) -> None:
        spec = self._current_spec()
        if spec is not None and self.corpus is not None:
            document = self.corpus.documents[self.corpus.document_of[spec.index]]
            self.app.push_screen(CopyMenu(spec, self.app.mirror_origin(document, self.corpus)),  # type: ignore[attr-defined]
                                 self._copy_chosen)

    def _copy_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is not None:
            what, text = choice
            self.app.copy_text(text, what)  # type: ignore[attr-defined]

    def _current_spec(self) -> SpecView | None:
        spec = self.query_one(SpecTable).current_spec
        if spec is None or self.corpus is None:
            self.notify("No spec selected.", severity="warning", markup=False)
            return None
        return self.corpus.spec(spec)

    def action_problems(self) -> None:
        if self.corpus is not None:
            self.app.push_screen(ProblemsScreen(self.corpus.report, self.query_one(QueryBar).problem))

    def action_help(self) -> None:
        panes = [self.query_one(selector) for selector in PANE_TITLES]
        self.app.push_screen(HelpScreen(help_sections(self, panes)))

    def action_back(self) -> None:
        packages = self.query_one(PackageList)
        # On a narrow screen with facets shown, the package list is hidden: fall back to the table.
        self.set_focus(packages.options if _displayed(packages) else self.query_one(SpecTable))


def _compare_text(corpus: Corpus, compare: tuple[str, str] | None) -> str | None:
    if compare is None:
        return None
    added, removed, kept = compare_tags(corpus, *compare).binaries
    return f"{compare[0]} → {compare[1]}: +{added} −{removed} ={kept}"


def _file_safe(name: str) -> str:
    """A package name as part of a suggested file name: no separators, no control characters."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "._+-") else "_" for c in name)


def _runs_on_text(runs_on: RunsOn | None) -> str | None:
    if runs_on is None:
        return None
    return f"runs on this {runs_on.machine}" if runs_on.platform else f"runs on {runs_on.machine}"


def _displayed(widget: Widget) -> bool:
    """Shown on screen: neither it nor any container above it has `display: none`."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
