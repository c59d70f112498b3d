"""The browser's keys for what `--want` named: the coverage view in place of the specs, and back.

A base of the browser screen, so the browser (`browser.py`) stays routing between its three parts; these
few actions route the coverage view's keys (rows of `present/browser_actions.py`) into `CoverageView`.
A binary shown from the coverage view is a jump like one from the details (`DetailPane.Jump`): Backspace
in the table goes back to where it was.
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget

from cachetui.app.widgets.coverage_view import CoverageView
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.wanted import WantedDag
from cachetui.present.browser_actions import KeyContext

SHOWN = "-coverage"  # the screen's class while the coverage view shows in place of the specs


class CoverageKeys(Screen[None]):
    def __init__(self) -> None:
        super().__init__()
        self.wanted: WantedDag | None = None

    def want(self, wanted: WantedDag) -> None:
        """Before the screen is shown: what `--want` named, which it opens on (what the user asked about)."""
        self.wanted = wanted
        self.add_class(SHOWN)

    def coverage_view(self) -> ComposeResult:
        if self.wanted is not None:
            yield CoverageView(self.wanted, id="coverage")

    def coverage_focus(self) -> Widget | None:
        """Where the focus starts: the wanted tree when the coverage view shows."""
        return self.query_one(CoverageView).tree_list if self.has_class(SHOWN) else None

    def coverage_arrived(self, corpus: Corpus) -> None:
        if self.wanted is not None:
            self.query_one(CoverageView).corpus_arrived(corpus)

    def in_view(self, context: KeyContext) -> KeyContext:
        """What decides the keys: the coverage view's node while it shows, else the specs' `context`."""
        if self.has_class(SHOWN):
            return self.query_one(CoverageView).key_context()
        return replace(context, wanted=self.wanted is not None)

    def action_coverage(self) -> None:
        """`w`: the coverage of what `--want` named, or back to the specs."""
        self.toggle_class(SHOWN)
        self.set_focus(self.coverage_focus() or self.query_one(SpecTable))
        self.refresh_bindings()

    def action_nearest(self) -> None:
        """`n`: the wanted node's binary (held, or the nearest) in the spec table."""
        binary = self.query_one(CoverageView).binary()
        if binary is not None:
            self.action_coverage()
            self.post_message(DetailPane.Jump(binary))

    def action_coverage_copy(self) -> None:
        self.query_one(CoverageView).copy_menu()
