"""The main screen: package list, spec table, facets and detail pane.

The screen owns the state (corpus, query, sort) as reactive attributes; widgets
get data pushed down and send messages up.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Label, ProgressBar

from cachetui.app.screens.copy_menu import CopyMenu, copy_choices
from cachetui.app.screens.help import HelpScreen
from cachetui.app.screens.problems import ProblemsScreen
from cachetui.app.screens.tag_picker import ALL_TAGS, TagPicker
from cachetui.app.widgets.detail_pane import DetailPane, SpecDetail
from cachetui.app.widgets.facet_panel import FacetPanel, FacetState
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.spec_table import SpecRows, SpecTable
from cachetui.app.widgets.status_line import Status, StatusLine
from cachetui.core.model import Corpus, SpecView
from cachetui.core.query import Query, all_facet_counts, match, package_counts
from cachetui.core.sorting import sort_specs


class BrowserScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("slash", "focus_search", "Search", id="browser.search"),
        Binding("f", "toggle_facets", "Facets", id="browser.facets"),
        Binding("x", "clear_filters", "Clear", id="browser.clear"),
        Binding("t", "choose_tag", "Tag", id="browser.tag"),
        Binding("y", "copy_hash", "Copy hash", id="browser.copy-hash"),
        Binding("c", "copy_menu", "Copy…", id="browser.copy-menu"),
        Binding("p", "problems", "Problems", id="browser.problems"),
        Binding("question_mark", "help", "Help", id="browser.help"),
        Binding("escape", "back", "Back", show=False, id="browser.back"),
    ]

    corpus: reactive[Corpus | None] = reactive(None)
    spec_query: reactive[Query] = reactive(Query)
    sort: reactive[tuple[str | None, bool]] = reactive((None, False))

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Vertical(id="loading"):
            yield Label("Loading build-cache documents…", id="loading-label")
            yield ProgressBar(id="loading-bar", show_eta=False)
        with Horizontal(id="body"):
            yield PackageList(id="packages")
            with Vertical(id="center"):
                yield SpecTable(id="specs")
                yield DetailPane(id="detail")
            yield FacetPanel(id="facets")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(PackageList).search.focus()

    # -- state flowing down ----------------------------------------------------------

    def show_progress(self, done: int, total: int) -> None:
        self.query_one("#loading-bar", ProgressBar).update(total=total, progress=done)

    def watch_corpus(self, corpus: Corpus | None) -> None:
        if corpus is None:
            return
        self.add_class("-loaded")
        packages = self.query_one(PackageList)
        packages.names = tuple(corpus.packages)
        self.spec_query = Query()
        self._refresh_results()

    def watch_spec_query(self) -> None:
        self._refresh_results()

    def watch_sort(self) -> None:
        self._refresh_results()

    def _refresh_results(self) -> None:
        corpus = self.corpus
        if corpus is None:
            return
        with self.app.batch_update():  # four widgets change together: never paint a half-updated screen
            self._push_results(corpus)

    def _push_results(self, corpus: Corpus) -> None:
        query = self.spec_query
        indices = match(corpus, query)
        column, descending = self.sort
        if column is not None:
            indices = sort_specs(corpus, indices, column, descending=descending)
        self.query_one(SpecTable).data = SpecRows(corpus, indices, column, descending)
        self.query_one(FacetPanel).state = FacetState(all_facet_counts(corpus, query), query.active())
        packages = self.query_one(PackageList)
        packages.counts = package_counts(corpus, query.filters.get("tag", frozenset()))
        packages.current = query.package
        scope = corpus.package_slice(query.package)
        self.query_one(StatusLine).status = Status(
            documents=len(corpus.documents),
            specs=corpus.n_specs,
            tags=len(corpus.tags),
            package=query.package,
            filters=query.active(),
            shown=len(indices),
            in_scope=scope.stop - scope.start,
            problems=len(corpus.report.problems),
            loading=False,
        )

    # -- messages coming up ----------------------------------------------------------

    @on(PackageList.Chosen)
    def _package_chosen(self, event: PackageList.Chosen) -> None:
        self.open_package(event.package)

    def open_package(self, package: str | None) -> None:
        """Show one package's specs (None: every spec), keeping the active filters."""
        self.spec_query = Query(package, self.spec_query.filters)
        self.query_one(SpecTable).focus()

    @on(SpecTable.Highlighted)
    def _spec_highlighted(self, event: SpecTable.Highlighted) -> None:
        self._show_detail(event.spec)

    def _show_detail(self, spec_index: int | None) -> None:
        corpus = self.corpus
        detail = None
        if corpus is not None and spec_index is not None:
            spec = corpus.spec(spec_index)
            detail = SpecDetail(spec, tuple(corpus.tags_of_hash(spec.hash)))
        self.query_one(DetailPane).detail = detail

    @on(SpecTable.Selected)
    def _spec_selected(self) -> None:
        self.query_one(DetailPane).focus()

    @on(SpecTable.SortRequested)
    def _sort_requested(self, event: SpecTable.SortRequested) -> None:
        self.sort = (event.column, event.descending)

    def sort_by(self, column: str) -> None:
        """Sort by `column`; asking again for the same column reverses it."""
        current, descending = self.sort
        self.sort = (column, not descending if current == column else False)

    @on(FacetPanel.Toggled)
    def _facet_toggled(self, event: FacetPanel.Toggled) -> None:
        self.toggle_filter(event.facet, event.value)

    def toggle_filter(self, facet: str, value: str) -> None:
        self.spec_query = self.spec_query.toggled(facet, value)

    # -- actions -----------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one(PackageList).search.focus()

    def action_toggle_facets(self) -> None:
        self.toggle_class("-facets-toggled")
        facets = self.query_one(FacetPanel)
        if facets.has_focus and not facets.display:
            self.query_one(SpecTable).focus()

    def action_clear_filters(self) -> None:
        self.spec_query = self.spec_query.cleared()

    def action_choose_tag(self) -> None:
        corpus = self.corpus
        if corpus is None:
            return
        counts = all_facet_counts(corpus, Query(self.spec_query.package, {})).get("tag", {})
        chosen = self.spec_query.filters.get("tag", frozenset())
        current = next(iter(chosen)) if len(chosen) == 1 else None
        self.app.push_screen(TagPicker(corpus.tags, counts, current), self._tag_chosen)

    def _tag_chosen(self, tag: str | None) -> None:
        if tag is not None:
            self.spec_query = self.spec_query.with_facet("tag", frozenset() if tag == ALL_TAGS else frozenset({tag}))

    def action_copy_hash(self) -> None:
        spec = self._current_spec()
        if spec is not None:
            what, text = copy_choices(spec)[0]
            self.app.copy_text(text, what)  # type: ignore[attr-defined]

    def action_copy_menu(self) -> None:
        spec = self._current_spec()
        if spec is not None:
            self.app.push_screen(CopyMenu(spec), self._copy_chosen)

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
            self.app.push_screen(ProblemsScreen(self.corpus.report))

    def action_help(self) -> None:
        sections = [
            ("Everywhere", [*self.BINDINGS, *self.app.BINDINGS]),
            ("Spec table", SpecTable.BINDINGS),
            ("Lists", [*PackageList.BINDINGS, *FacetPanel.BINDINGS]),
        ]
        self.app.push_screen(HelpScreen((title, [b for b in bs if isinstance(b, Binding)]) for title, bs in sections))

    def action_back(self) -> None:
        packages = self.query_one(PackageList)
        # On a narrow screen with facets shown, the package list is hidden: fall back to the table.
        (packages.options if packages.display else self.query_one(SpecTable)).focus()

