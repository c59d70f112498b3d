"""While the corpus loads: what is being read, and how far (the window is up from the start)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, ProgressBar

from cachetui.present.format import loading_text


class Loading(Vertical):
    def compose(self) -> ComposeResult:
        yield Label("Loading build-cache documents…", id="loading-label")
        yield ProgressBar(id="loading-bar", show_eta=False)

    def show(self, done: int, total: int | None, what: str) -> None:
        """Documents read, or bytes of an index downloaded."""
        self.query_one("#loading-bar", ProgressBar).update(total=total, progress=done)
        self.query_one("#loading-label", Label).update(Text(loading_text(done, total, what)))
