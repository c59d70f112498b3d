"""The browser's keys: its state as reactive attributes, which keys can act now, and what they do.

`BrowserPanes` (browser_panes.py) adds how the panes share the width and the focus, and
`BrowserScreen` (browser.py) the answers that flow down to them; the keys change
state or open a dialog (a worker awaiting `push_screen_wait`), and the screen's watchers do the rest.
"""

from __future__ import annotations

from dataclasses import replace

from textual import work
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input

from cachetui.app.requests import CopyMenuRequested, CopyRequested, ExportRequested
from cachetui.app.screens.columns_dialog import ColumnsDialog
from cachetui.app.screens.copy_menu import copy_choices
from cachetui.app.screens.help import HelpScreen, help_sections
from cachetui.app.screens.panes import WIDE_FROM
from cachetui.app.screens.problems import ProblemsScreen
from cachetui.app.screens.tag_picker import ALL_TAGS, TagPicker
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.core.model.corpus import Corpus, SpecView
from cachetui.core.query.query import Query, RunsOn, facet_counts
from cachetui.core.spack.targets import host
from cachetui.present.answer import View, file_safe
from cachetui.present.inert import inert
from cachetui.present.table_layout import HIDDEN_AT_FIRST

# Pane -> the title on its top border; the focused pane's title and border light up.
PANE_TITLES = {"#packages": "Packages", "#specs": "Specs", "#detail": "Details", "#facets": "Facets"}


# The browser's keys, grouped by what they are for; BINDINGS puts the groups in the footer's order,
# what is used most first, so a narrow footer cuts the rest.

# `/` and `f` move the focus, so they are priority bindings: Textual then acts on them as they
# arrive, and the keys typed right after reach the new focus (see check_action for text boxes).
FOCUS_KEYS = [
    Binding("slash", "focus_search", "Search", priority=True, id="browser.search"),
    Binding("f", "toggle_facets", "Facets", priority=True, id="browser.facets"),
]
# Help and quit early, so a footer cut at 80 columns still offers them.
HELP_KEYS = [
    Binding("question_mark", "help", "Help", id="browser.help"),
    Binding("q", "app.quit", "Quit", id="browser.quit"),
]
# What a user came for: the hash, or a command that installs it.
COPY_KEYS = [
    Binding("y", "copy_hash", "Copy hash", id="browser.copy-hash"),
    Binding("c", "copy_menu", "Copy…", id="browser.copy-menu"),
]
NARROWING_KEYS = [
    Binding("x", "clear_filters", "Clear", id="browser.clear"),
    Binding("t", "choose_tag", "Tag", id="browser.tag"),
    Binding("r", "toggle_runs_on", "Runs here", id="browser.runs-on"),
]
# Other views of the same answer, and what leaves the screen.
VIEW_KEYS = [
    Binding("v", "choose_columns", "Columns", id="browser.columns"),
    Binding("l", "toggle_find_view", "spack find", id="browser.find-view"),
    Binding("d", "compare", "Compare", id="browser.compare"),
    Binding("e", "export", "Export", id="browser.export"),
    Binding("p", "problems", "Problems", id="browser.problems"),
    Binding("escape", "back", "Back", show=False, id="browser.back"),
]


class BrowserKeys(Screen[None]):
    """The browser's state and the keys that change it (the footer offers only those that can act)."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]
    BINDINGS = [*FOCUS_KEYS, *HELP_KEYS, *COPY_KEYS, *NARROWING_KEYS, *VIEW_KEYS]

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
        self._keys_state: tuple[bool, ...] = ()  # what the footer was last refreshed for

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
        self._choose_comparison(tags)

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def _choose_comparison(self, tags: list[str]) -> None:
        counts = self._tag_counts()
        old = await self.app.push_screen_wait(
            TagPicker(tags, counts, None, title="Compare: the older tag", with_all=False))
        if old is None:
            return
        new = await self.app.push_screen_wait(
            TagPicker([t for t in tags if t != old], counts, None, title=f"Compare {inert(old)} with: the newer tag",
                      with_all=False))
        if new is not None:  # the answer scopes to the two tags; a tag filter set before waits until it stops
            self.view = replace(self.view, compare=(old, new))

    def action_export(self) -> None:
        """The table as shown now: its rows are taken at the key, so a later answer cannot swap them."""
        data = self.query_one(SpecTable).data
        if data is None or self.query_one(StatusLine).status.busy:
            self.notify("The table is being updated; export once it shows the answer.", markup=False)
            return
        self.post_message(ExportRequested(f"cachetui-{file_safe(self.spec_query.package or 'all')}.csv", data))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_choose_columns(self) -> None:
        hidden = await self.app.push_screen_wait(ColumnsDialog(self.hidden_columns, self.query_one(SpecTable).squeezed))
        if hidden is not None:
            self.hidden_columns = hidden

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_choose_tag(self) -> None:
        corpus = self.corpus
        if corpus is None:
            return
        chosen = self.spec_query.filters.get("tag", frozenset())
        current = next(iter(chosen)) if len(chosen) == 1 else None
        tag = await self.app.push_screen_wait(TagPicker(corpus.tags, self._tag_counts(), current))
        if tag is not None:
            self.spec_query = self.spec_query.with_facet("tag", frozenset() if tag == ALL_TAGS else frozenset({tag}))

    def _tag_counts(self) -> dict[str, int]:
        """Specs per tag in the package open now, whatever the filters."""
        return facet_counts(self.corpus, Query(self.spec_query.package), "tag") if self.corpus else {}

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

    def action_problems(self) -> None:
        if self.corpus is not None:
            self.app.push_screen(ProblemsScreen(self.corpus.report, self.query_one(QueryBar).problem))

    def action_help(self) -> None:
        panes = [self.query_one(selector) for selector in PANE_TITLES]
        self.app.push_screen(HelpScreen(help_sections(self, panes)))
