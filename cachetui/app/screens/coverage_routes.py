"""The browser's part for what `--want` named: the coverage view in place of the specs, and back.

A plain part the browser screen holds (as it holds its answers and its action keys), so the screen
stays routing: it hands the coverage view's keys (rows of `present/browse/browser_actions.py`) to this,
and asks it which view shows, what every key can do there (`key_context`) and which panes the help
lists. A binary shown from the coverage view is a jump like one from the details (`DetailPane.Jump`):
Backspace in the table goes back to where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget

from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.model.corpus import Corpus
from cachetui.present.browse.browser_actions import KeyContext
from cachetui.present.browse.browsing import Browsing

if TYPE_CHECKING:  # the view, and coverage itself, load only when `--want` names something
    from cachetui.app.widgets.coverage_view import CoverageView
    from cachetui.core.model.wanted import WantedDag

SHOWN = "-coverage"  # the screen's class while the coverage view shows in place of the specs


class CoverageRoutes:
    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen
        self.wanted: WantedDag | None = None

    def want(self, wanted: WantedDag) -> None:
        """Before the screen is shown: what `--want` named, which it opens on (what the user asked about)."""
        self.wanted = wanted
        self._screen.add_class(SHOWN)

    @property
    def shown(self) -> bool:
        return self._screen.has_class(SHOWN)

    def compose(self) -> ComposeResult:
        if self.wanted is not None:
            from cachetui.app.widgets.coverage_view import CoverageView

            yield CoverageView(self.wanted, id="coverage")

    def mounted(self) -> None:
        """The focus on the wanted tree, and the corpus followed (one there already counts)."""
        if self.wanted is not None:
            self._screen.set_focus(self.focus_target())
            self._screen.watch(self._screen, "corpus", self._corpus_arrived)

    def focus_target(self) -> Widget | None:
        """Where the focus goes: the wanted tree when the coverage view shows."""
        return self._view().tree_list if self.shown else None

    def _view(self) -> CoverageView:
        from cachetui.app.widgets.coverage_view import CoverageView  # imported by compose: a lookup

        return self._screen.query_one(CoverageView)

    def _corpus_arrived(self, corpus: Corpus | None) -> None:
        if corpus is not None:
            self._view().corpus_arrived(corpus)

    def key_context(self, browsing: Browsing) -> KeyContext:
        """What decides which keys act: the coverage view's node while it shows, else the specs' (the body's)."""
        if self.shown:
            return self._view().key_context()
        return replace(self._screen.query_one(BrowserBody).key_context(browsing), wanted=self.wanted is not None)

    def panes(self) -> Sequence[Widget]:
        """The panes of the view that shows, as the help lists them."""
        return self._view().panes if self.shown else self._screen.query_one(BrowserBody).panes

    def toggle(self) -> None:
        """`w`: the coverage of what `--want` named, or back to the specs."""
        self._screen.toggle_class(SHOWN)
        self._screen.set_focus(self.focus_target() or self._screen.query_one(SpecTable))
        self._screen.refresh_bindings()  # every key: the view that shows changed, not only what one can do

    def nearest(self) -> None:
        """`n`: the wanted node's binary (held, or the nearest) in the spec table."""
        binary = self._view().binary()
        if binary is not None:
            self.toggle()
            self._screen.post_message(DetailPane.Jump(binary))

    def copy_menu(self) -> None:
        self._view().copy_menu()
