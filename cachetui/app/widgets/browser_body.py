"""The browser's body: the package list, the table over the details, and the facets, side by side.

It owns how they share the width, where the focus goes as they show and hide, and the details of
the spec under the table's cursor. The package list
and the facets give way when the table needs the room (`pane_widths`, pure arithmetic in
screens/panes.py, applied inline: a class on a container would restyle its whole subtree); `/`,
`f` and Escape move the focus, never onto a pane that is hidden.
"""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widget import Widget

from cachetui.app.actions import keys_shown
from cachetui.app.requests import CopyMenuRequested, CopyRequested
from cachetui.app.screens.panes import PANE_TITLES, displayed, pane_widths
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.facet_panel import FacetPanel, FacetsPane, FacetState
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.provenance_follower import ProvenanceFollower
from cachetui.app.widgets.spec_detail import spec_detail
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.load.glance import Glance
from cachetui.core.model.corpus import Corpus, SpecView
from cachetui.core.query.results import Results
from cachetui.core.spack.specquery import looks_like_spec
from cachetui.present.browse.browser_actions import KeyContext
from cachetui.present.browse.browsing import Browsing
from cachetui.present.spec_table.table_cells import SpecRows


class BrowserBody(Horizontal):
    # A package or a spec query is open: the list shows one name, so it can be narrower.
    opened: reactive[bool] = reactive(False, layout=False)
    with_build_deps: reactive[bool] = reactive(False)  # the details list build-only edges too
    facet_filter: reactive[str] = reactive("")  # typed in the facets' filter box
    expanded_facets: reactive[frozenset[str]] = reactive(frozenset())  # facets showing all their values

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.corpus: Corpus | None = None  # what the details are read from
        self._table_wants = 0  # cells the table asked for to show every column that tells rows apart
        # The panes' borders stay put within a scope (all packages, or one): the table's wants are taken from the
        # first answer shown for it, not from each facet toggled, sort flipped or query typed in it.
        self._wants_scope: tuple[str | None] | None = None
        self._wants_open = False
        self._detail_shown: tuple[object, ...] = ()  # (corpus, spec, build edges) the detail pane shows
        self.facet_counts: dict[str, dict[str, int]] = {}  # for the current answer; the palette reads them too
        self._chosen: dict[str, frozenset[str]] = {}  # the facet values the question filters by
        self._line = ""  # the query line the package list follows
        self.provenance_follower = ProvenanceFollower(self)  # the details' provenance section, fetched as it rests
        self.search_line: Widget | None = None  # the package search `/` focuses: the screen's query line

    def compose(self) -> ComposeResult:
        yield PackageList(id="packages")
        with Vertical(id="center"):
            yield SpecTable(id="specs")
            yield DetailPane(id="detail")
        yield FacetsPane(id="facets")

    def on_mount(self) -> None:
        for selector, title in PANE_TITLES.items():
            self.query_one(selector).border_title = title
        # The details follow the cursor within the key's own frame: a watcher runs as the cursor
        # moves, where the Highlighted message arrives once the table's frame is drawn.
        self.watch(self.query_one(SpecTable), "cursor", self.follow_cursor, init=False)

    @property
    def panes(self) -> list[Widget]:
        """The titled panes, in the order the help lists their keys."""
        return [self.query_one(selector) for selector in PANE_TITLES]

    # -- the focus ------------------------------------------------------------------------

    def action_focus_search(self) -> None:
        """`/` searches where you are: the facets pane filters facets, anywhere else the query line searches
        packages."""
        facets = self.query_one(FacetsPane)
        if facets.has_focus_within:
            self.screen.set_focus(facets.filter)
            return
        if self.screen.has_class("-narrow") and self.has_class("-facets-toggled"):
            self.remove_class("-facets-toggled")  # the package list takes its place back: never type unseen
        # Focus now (Screen.set_focus), not later (Widget.focus): keys typed right after `/` land in the box.
        self.screen.set_focus(self.search_line)

    def action_toggle_facets(self) -> None:
        self.toggle_class("-facets-toggled")  # styles update at once, so `display` below is current
        self.fit()
        self._keep_focus_visible()

    def action_back(self) -> None:
        """Escape: to the package list; on a narrow screen with the facets shown it is hidden, so the table."""
        packages = self.query_one(PackageList)
        self.screen.set_focus(packages.options if displayed(packages) else self.query_one(SpecTable))

    def _keep_focus_visible(self) -> None:
        """Nothing hidden may keep the focus: move it to the pane that took the hidden one's place."""
        focused = self.screen.focused
        if focused is None or displayed(focused):
            return
        facets = self.query_one(FacetsPane)
        self.screen.set_focus(facets.panel if displayed(facets) else self.query_one(SpecTable))

    # -- what the panes show ----------------------------------------------------------------

    def corpus_arrived(self, corpus: Corpus) -> None:
        self.corpus = corpus
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, names=tuple(corpus.packages))

    def show_answer(self, results: Results, package_counts: dict[str, int], rows: SpecRows) -> None:
        """An answer's rows, counts and (comparing two tags) the changes of each package."""
        query = results.query
        self._wants_open = self._wants_scope != (query.package,)
        self._wants_scope = (query.package,)
        self.query_one(SpecTable).data = rows
        self.facet_counts = results.facet_counts
        self.show_counts(results, package_counts, rows)
        self.opened = query.package is not None or query.spec is not None

    def show_counts(self, results: Results, package_counts: dict[str, int], rows: SpecRows) -> None:
        """An answer's package list: each package's count, the one opened, the changes of each (comparing)."""
        comparison = results.comparison
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, counts=package_counts, current=results.query.package,
                                 changes=comparison.changes if comparison else None, filtered=rows.clearable)

    def show_glance(self, glance: Glance) -> None:
        """Before the corpus, after a glance: the package list as the sources were last read (the corpus's own
        list, which follows, names the same packages in the same order unless they changed)."""
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, names=glance.packages, counts=glance.counts())

    def show_sizes(self, corpus: Corpus) -> None:
        """Before the first answer to "every spec": the package list's counts are the packages' sizes."""
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, counts=corpus.package_sizes(), current=None, changes=None,
                                 filtered=False)

    def list_follows(self, line: str) -> None:
        """The package list as the query line makes it: a package search, or the packages a spec matches."""
        if line == self._line:
            return
        self._line = line
        packages = self.query_one(PackageList)
        spec_mode = looks_like_spec(line)
        packages.state = replace(packages.state, only_matching=spec_mode,
                                 search=packages.state.search if spec_mode else line)

    def show_facets(self, chosen: dict[str, frozenset[str]], comparing: bool = False) -> None:
        """The facets with these values chosen (their counts come with the answer)."""
        if comparing:  # the two tags compared are the scope, whatever tag filter waits
            chosen = {facet: values for facet, values in chosen.items() if facet != "tag"}
        self._chosen = chosen
        state = FacetState(self.facet_counts, chosen, self.facet_filter, self.expanded_facets,
                           keys_shown(self.app, "browser.clear"), keys_shown(self.app, "pick.select"))
        self.query_one(FacetPanel).state = state

    def watch_facet_filter(self) -> None:
        self.show_facets(self._chosen)

    def watch_expanded_facets(self) -> None:
        self.show_facets(self._chosen)

    @on(FacetPanel.Expanded)
    def _facet_expanded(self, event: FacetPanel.Expanded) -> None:
        self.expanded_facets = self.expanded_facets | {event.facet}

    @on(FacetsPane.FilterChanged)
    def _facet_filter_changed(self, event: FacetsPane.FilterChanged) -> None:
        self.facet_filter = event.text

    @property
    def selected(self) -> SpecView | None:
        """The spec under the table's cursor."""
        spec = self.query_one(SpecTable).current_spec
        return None if spec is None or self.corpus is None else self.corpus.spec(spec)

    # -- copying the spec under the cursor: asked of the app (a served session answers its own way) --------------

    def action_copy_hash(self) -> None:
        from cachetui.app.dialogs.copy_menu import spec_copy_choices  # the dialogs load when first asked for

        if (spec := self.selected) is not None:
            what, text = spec_copy_choices(spec, None)[0]
            self.post_message(CopyRequested(text, what))

    def action_copy_menu(self) -> None:
        if (spec := self.selected) is not None and self.corpus is not None:
            signature = self.provenance_follower.known_signature(spec.index)  # its signer may be a key Spack trusts
            self.post_message(CopyMenuRequested(spec, self.corpus, signature))

    def key_context(self, question: Browsing) -> KeyContext:
        """What decides which keys act: the corpus, the table's cursor and rows, and the question."""
        table, corpus, query = self.query_one(SpecTable), self.corpus, question.query
        return KeyContext(loaded=corpus is not None, spec_selected=table.current_spec is not None,
                          narrowed=bool(query.filters) or query.runs_on is not None,
                          comparing=question.view.compare is not None, tags=len(corpus.tags) if corpus else 0,
                          rows=table.row_count)

    # -- the details -----------------------------------------------------------------------

    def follow_cursor(self) -> None:
        """The details of the spec under the cursor; not rebuilt when an answer leaves it on the same one."""
        corpus, spec, last = self.corpus, self.query_one(SpecTable).current_spec, self._detail_shown
        shown = (corpus, spec, self.with_build_deps)
        if last and last[0] is corpus and last[1:] == shown[1:]:  # `is`: a Corpus has no meaningful ==
            return
        self._detail_shown = shown
        detail = spec_detail(corpus, spec, self.with_build_deps) if corpus is not None and spec is not None else None
        self.query_one(DetailPane).detail = self.provenance_follower.with_provenance(detail)

    def watch_with_build_deps(self) -> None:
        self.follow_cursor()

    @on(DetailPane.BuildToggled)
    def _build_toggled(self) -> None:
        self.with_build_deps = not self.with_build_deps

    @on(SpecTable.Selected)
    def _spec_selected(self) -> None:
        self.screen.set_focus(self.query_one(DetailPane))

    # -- the widths -----------------------------------------------------------------------

    @on(SpecTable.WidthWanted)
    def _table_width_wanted(self, event: SpecTable.WidthWanted) -> None:
        if self._wants_open:
            self._table_wants = event.width
            self.fit()

    def on_resize(self) -> None:
        self.fit()

    def watch_opened(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Narrow the package list, then the facets, as far as the table needs to tell its rows apart.

        Both stay on screen, however narrow, so Tab, `/` and `f` still reach them.
        """
        width = self.screen.size.width
        if not width:
            return
        widths = pane_widths(width, facets_toggled=self.has_class("-facets-toggled"),
                             table_wants=self._table_wants, opened=self.opened)
        for selector, cells in zip(("#packages", "#facets"), widths):
            pane = self.query_one(selector)
            if pane.styles.width is None or pane.styles.width.value != cells:
                pane.styles.width = cells
