"""The browser's keys for what `--want` named: the coverage view in place of the specs, and back.

A base of the browser screen, so the browser (`browser.py`) stays routing between its three parts; these
few actions route the coverage view's keys (rows of `present/browser_actions.py`) into `CoverageView`, and
which view shows decides what every key can do (`key_context`) and which panes the help lists.
A binary shown from the coverage view is a jump like one from the details (`DetailPane.Jump`): Backspace
in the table goes back to where it was.
"""

from __future__ import annotations

from dataclasses import replace

from textual import events, on
from textual.app import ComposeResult
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget

from cachetui.app.dialogs.help import HelpScreen, help_sections
from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.coverage_view import CoverageView
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.wanted import WantedDag
from cachetui.present.browser_actions import KeyContext
from cachetui.present.browsing import Browsing

SHOWN = "-coverage"  # the screen's class while the coverage view shows in place of the specs


class CoverageKeys(Screen[None]):
    browsing: var[Browsing]  # the browser's (declared there): where it is among the specs

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

    @on(events.Mount)
    def _coverage_mounted(self) -> None:
        """The focus on the wanted tree (Textual runs the browser's own on_mount first), and the corpus followed."""
        if self.wanted is not None:
            self.set_focus(self.coverage_focus())
            self.watch(self, "corpus", self._coverage_arrived)  # the browser's reactive; one already there counts

    def coverage_focus(self) -> Widget | None:
        """Where the focus goes: the wanted tree when the coverage view shows."""
        return self.query_one(CoverageView).tree_list if self.has_class(SHOWN) else None

    def _coverage_arrived(self, corpus: Corpus | None) -> None:
        if corpus is not None:
            self.query_one(CoverageView).corpus_arrived(corpus)

    def key_context(self) -> KeyContext:
        """What decides which keys act: the coverage view's node while it shows, else the specs' (the body's)."""
        if self.has_class(SHOWN):
            return self.query_one(CoverageView).key_context()
        return replace(self.query_one(BrowserBody).key_context(self.browsing), wanted=self.wanted is not None)

    def action_help(self) -> None:
        """`?`: the keys where the focus is, those that act everywhere, then each pane's, of the view that shows."""
        view = self.query_one(CoverageView) if self.has_class(SHOWN) else self.query_one(BrowserBody)
        self.app.push_screen(HelpScreen(help_sections(self, view.panes)))

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
