"""The main screen: package list, spec table, facets and detail pane.

The screen owns the state (corpus, query, sort, facet filter) as reactive attributes;
widgets get data pushed down and send messages up.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Label, ProgressBar

from cachetui.app.screens.copy_menu import CopyMenu, copy_choices
from cachetui.app.screens.help import HelpScreen, help_sections
from cachetui.app.screens.problems import ProblemsScreen
from cachetui.app.screens.tag_picker import ALL_TAGS, TagPicker
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.spec_detail import spec_detail
from cachetui.app.widgets.facet_panel import FacetPanel, FacetsPane, FacetState
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.spec_table import SpecRows, SpecTable
from cachetui.app.widgets.status_line import Status, StatusLine
from cachetui.core.model import Corpus, SpecView
from cachetui.core.query import Query, all_facet_counts, match, package_counts
from cachetui.core.sorting import sort_specs
from cachetui.present.format import loading_text

# Pane -> the title on its top border; the focused pane's title and border light up.
PANE_TITLES = {"#packages": "Packages", "#specs": "Specs", "#detail": "Details", "#facets": "Facets"}


class BrowserScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    # `/` and `f` move the focus, so they are priority bindings: Textual then acts on them as they
    # arrive, and the keys typed right after reach the new focus (see check_action for text boxes).
    BINDINGS = [
        Binding("slash", "focus_search", "Search", priority=True, id="browser.search"),
        Binding("f", "toggle_facets", "Facets", priority=True, id="browser.facets"),
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
    facet_filter: reactive[str] = reactive("")
    expanded_facets: reactive[frozenset[str]] = reactive(frozenset())
    with_build_deps: reactive[bool] = reactive(False)

    def __init__(self) -> None:
        super().__init__()
        self.facet_counts: dict[str, dict[str, int]] = {}  # for the current query; the palette reads it too
        self._jumps: list[tuple[Query, int]] = []  # where each jump to a dependency came from (Backspace)

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
        packages = self.query_one(PackageList)
        packages.names = tuple(corpus.packages)
        self.spec_query = Query()
        self._refresh_results()

    def watch_spec_query(self) -> None:
        self._refresh_results()

    def watch_sort(self) -> None:
        self._refresh_results()

    def watch_facet_filter(self) -> None:
        self._push_facets()

    def watch_expanded_facets(self) -> None:
        self._push_facets()

    def _refresh_results(self) -> None:
        corpus = self.corpus
        if corpus is None:
            return
        with self.app.batch_update():  # four widgets change together: never paint a half-updated screen
            self._push_results(corpus)
        self.refresh_bindings()  # what y, c and x can do depends on the results

    def _push_results(self, corpus: Corpus) -> None:
        query = self.spec_query
        indices = match(corpus, query)
        column, descending = self.sort
        if column is not None:
            indices = sort_specs(corpus, indices, column, descending=descending)
        self.query_one(SpecTable).data = SpecRows(corpus, indices, column, descending, query.package)
        self.facet_counts = all_facet_counts(corpus, query)
        self._push_facets()
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
            errors=len(corpus.report.errors),
            loading=False,
        )

    def _push_facets(self) -> None:
        state = FacetState(self.facet_counts, self.spec_query.active(), self.facet_filter, self.expanded_facets)
        self.query_one(FacetPanel).state = state

    # -- messages coming up ----------------------------------------------------------

    @on(PackageList.Chosen)
    def _package_chosen(self, event: PackageList.Chosen) -> None:
        self.open_package(event.package)

    def open_package(self, package: str | None) -> None:
        """Show one package's specs (None: every spec), keeping the active filters."""
        self.spec_query = Query(package, self.spec_query.filters)
        self.set_focus(self.query_one(SpecTable))

    @on(SpecTable.Highlighted)
    def _spec_highlighted(self, event: SpecTable.Highlighted) -> None:
        self._show_detail(event.spec)
        self.refresh_bindings()

    def _show_detail(self, spec_index: int | None) -> None:
        corpus = self.corpus
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
        """Open `spec`'s package with the spec selected; filters that would hide it are cleared (and said so)."""
        corpus = self.corpus
        if corpus is None:
            return
        package = corpus.packages[corpus.package_of[spec]]
        query = Query(package, self.spec_query.filters)
        if spec not in set(match(corpus, query).tolist()):
            query = Query(package)
            self.notify("Filters cleared to show it.", markup=False)
        self.spec_query = query
        self.query_one(SpecTable).select_spec(spec)

    def action_jump_back(self) -> None:
        """Backspace: back to the spec a jump came from."""
        if self._jumps:
            query, spec = self._jumps.pop()
            self.spec_query = query
            self.query_one(SpecTable).select_spec(spec)

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
        self.spec_query = self.spec_query.toggled(facet, value)

    # -- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that cannot act now, so the footer only offers what works."""
        if action in ("focus_search", "toggle_facets") and isinstance(self.focused, Input):
            return False  # typing `/` or `f` into a search box types it
        if action in ("copy_hash", "copy_menu"):
            return self.query_one(SpecTable).current_spec is not None
        if action == "clear_filters":
            return bool(self.spec_query.filters)
        if action in ("choose_tag", "problems"):
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
        self.set_focus(self.query_one(PackageList).search)

    def action_toggle_facets(self) -> None:
        self.toggle_class("-facets-toggled")  # styles update at once, so `display` below is current
        self._keep_focus_visible()

    def _keep_focus_visible(self) -> None:
        """Nothing hidden may keep the focus: move it to the pane that took the hidden one's place."""
        focused = self.focused
        if focused is None or _displayed(focused):
            return
        facets = self.query_one(FacetsPane)
        self.set_focus(facets.panel if _displayed(facets) else self.query_one(SpecTable))

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
        panes = [self.query_one(selector) for selector in PANE_TITLES]
        self.app.push_screen(HelpScreen(help_sections(self, panes)))

    def action_back(self) -> None:
        packages = self.query_one(PackageList)
        # On a narrow screen with facets shown, the package list is hidden: fall back to the table.
        self.set_focus(packages.options if _displayed(packages) else self.query_one(SpecTable))


def _displayed(widget: Widget) -> bool:
    """Shown on screen: neither it nor any container above it has `display: none`."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
