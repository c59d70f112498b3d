"""`e`: export the table as it is (query, filters, sort) to a CSV or JSON file the user names."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from cachetui.present.export import ExportRefused, resolve_target
from cachetui.present.inert import inert


class ExportDialog(ModalScreen[Path | None]):
    """Dismisses with a checked target path (not inside an input, its directory exists), or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, suggested: str, rows: int, input_roots: Sequence[str]) -> None:
        super().__init__()
        self._suggested, self._rows, self._input_roots = suggested, rows, list(input_roots)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(f"Export {self._rows} specs  (.csv or .json; enter writes, esc cancels)", style="bold"),
                        classes="dialog-title")
            yield Input(inert(self._suggested), id="export-path")
            yield Static(id="export-problem")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            self.dismiss(resolve_target(event.value, self._input_roots))
        except ExportRefused as exc:
            self.query_one("#export-problem", Static).update(Text(inert(str(exc)), style="bold red"))

    def action_cancel(self) -> None:
        self.dismiss(None)
