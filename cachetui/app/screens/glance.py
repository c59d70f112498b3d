"""The browser's first frame on a warm start: the package list as the sources were last read, while they are checked.

It holds the browser's top rows and its package list, in the same places and styles, drawn from the glance the
last load kept (`cachetui.core.load.glance`): no numpy, no loader and no browser are imported before it is on the
screen. The status line says it shows the last reading and what the check is at. The list can be searched and
moved in; once the corpus is there, the app puts the browser in its place and hands it what was typed, where the
focus and the cursor were, and the package chosen (`Handover`), so no key is lost.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, Static

from cachetui.app.actions import keys_named
from cachetui.app.screens.panes import PANE_TITLES, QUERY_PLACEHOLDER, pane_widths
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.package_list import PackageList, PackageListState
from cachetui.app.widgets.text_line import TextLine
from cachetui.core.load.glance import Glance
from cachetui.present.browse.browser_actions import ACTIONS
from cachetui.present.browse.glance import CHECKING, checking, glance_status

# The browser's rows that act here (the same ids: a key the user remapped is remapped here too).
SEARCH = "browser.search"
# The most queues a key's effect passes through here, Enter's in the query line: the key, then Submitted in the
# line, its row and the screen, which has the list choose; then Chosen in the list, its row and the screen again.
LONGEST_CHAIN = 7
SETTLE_ROUND_S = 1.0  # far beyond a round's few milliseconds


@dataclass(frozen=True)
class Handover:
    """What the user did on the glance, for the browser that takes its place."""

    typed: str  # the query line
    searching: bool  # the focus was on the query line (else on the package list)
    at: str | None  # the package under the list's cursor (None: "All packages")
    chosen: str | None | bool = False  # the package opened with Enter (None: "All packages"; False: none)
    checking: str | None = None  # what the check of the sources is at, as it last said


class GlanceScreen(Screen[None]):
    BINDINGS = [Binding(row.keys, "focus_search", row.footer, show=row.show, priority=row.priority, id=row.id)
                for row in ACTIONS if row.id == SEARCH]

    def __init__(self, glance: Glance) -> None:
        super().__init__()
        self.glance = glance
        self._chosen: str | None | bool = False
        self._checking: str | None = None  # what the check is at, as it last said

    def compose(self) -> ComposeResult:
        yield Static(glance_status(self.glance), id="status", markup=False)
        with Horizontal(id="query"):
            yield TextLine(placeholder=keys_named(self.app, QUERY_PLACEHOLDER), id="query-line")
        with Horizontal(id="body"):
            yield PackageList(id="packages")
            with Vertical(id="center"):
                yield Static(CHECKING, id="specs", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        for selector in ("#packages", "#specs"):
            self.query_one(selector).border_title = PANE_TITLES[selector]
        packages = self.query_one(PackageList)
        packages.state = PackageListState(names=self.glance.packages, counts=self.glance.counts())
        self.set_focus(packages.options)  # as the browser starts: a first `q` quits

    def on_resize(self) -> None:
        """The list as wide as the browser makes it before it has an answer (`pane_widths`)."""
        width = pane_widths(self.size.width, facets_toggled=False, table_wants=0, opened=False)[0]
        self.query_one(PackageList).styles.width = width

    def action_focus_search(self) -> None:
        self.set_focus(self.query_one(TextLine))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`/` is typed in the query line (a spec query's `/hash`), as the browser's own line takes it."""
        return not (action == "focus_search" and isinstance(self.focused, Input))

    @on(Input.Changed, "#query-line")
    def _typed(self, event: Input.Changed) -> None:
        packages = self.query_one(PackageList)
        packages.state = replace(packages.state, search=event.value)

    @on(Input.Submitted, "#query-line")
    def _submitted(self) -> None:
        self.query_one(PackageList).choose_highlighted()

    @on(PackageList.Chosen)
    def _chosen_now(self, event: PackageList.Chosen) -> None:
        self._chosen = event.package
        self._say()

    def show_progress(self, done: int, total: int | None, what: str) -> None:
        """What the check is at (a load that finds changes reads them again: it can take a while)."""
        self._checking = checking(done, total, what)
        self._say()

    def _say(self) -> None:
        self.query_one("#status", Static).update(glance_status(self.glance, self._checking, self._chosen))

    async def settle(self) -> None:
        """Every key already sent to the glance handled, with what it set off (the search, Enter's choice), so the
        handover holds all of it. A round passes a callback through every widget's queue, behind what is in it:
        each round carries every message at least one queue on."""
        for _ in range(LONGEST_CHAIN):
            passed: list[asyncio.Event] = []
            for node in self.walk_children(with_self=True):
                done = asyncio.Event()
                if node.call_later(done.set):  # False: the widget is closing, and takes no more keys
                    passed.append(done)
            # Bounded: a widget that never got to its queue would otherwise hold the browser back for good.
            waits = [asyncio.ensure_future(done.wait()) for done in passed]
            _, late = await asyncio.wait(waits, timeout=SETTLE_ROUND_S) if waits else (set(), set())
            for wait in late:
                wait.cancel()
            if late:
                return

    def handover(self) -> Handover:
        packages = self.query_one(PackageList)
        rows = packages.rows
        at = rows.package(packages.options.cursor) if rows is not None and len(rows) else None
        return Handover(self.query_one(TextLine).value, self.focused is self.query_one(TextLine), at, self._chosen,
                        self._checking)
