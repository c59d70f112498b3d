"""`e`: export the table as it is (query, filters, sort) to a CSV or JSON file the user names.

`NameDialog` is the shape every such question shares: a title, one line of text, and what is
wrong with it said beside it until Enter gives something `checked` accepts (Escape cancels).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from cachetui.app.actions import bindings_of
from cachetui.present.format import counted
from cachetui.present.inert import inert
from cachetui.present.output.export import ExportRefused, resolve_target

T = TypeVar("T")


class NameDialog(ModalScreen[T | None], Generic[T]):
    """Dismisses with what `checked` makes of the text, or None; a refusal (one of REFUSALS) is said below."""

    BINDINGS = bindings_of("name")
    NAME_ID = "name"  # the Input's id; `<NAME_ID>-problem` is where a refusal is said
    REFUSALS: tuple[type[Exception], ...] = ()

    def __init__(self, title: str, suggested: str) -> None:
        super().__init__()
        self._title, self._suggested = title, suggested

    def checked(self, text: str) -> T:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self._title, style="bold"), classes="dialog-title")
            yield Input(inert(self._suggested), id=self.NAME_ID)
            yield Static(id=f"{self.NAME_ID}-problem")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            self.dismiss(self.checked(event.value))
        except self.REFUSALS as exc:
            self.query_one(f"#{self.NAME_ID}-problem", Static).update(Text(inert(str(exc)), style="bold red"))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportDialog(NameDialog[Path]):
    """Dismisses with a checked target path (not inside an input, its directory exists), or None."""

    NAME_ID = "export-path"
    REFUSALS = (ExportRefused,)

    def __init__(self, suggested: str, rows: int, input_roots: Sequence[str]) -> None:
        super().__init__(f"Export {counted(rows, 'spec')}  (.csv or .json; enter writes, esc cancels)", suggested)
        self._input_roots = list(input_roots)

    def checked(self, text: str) -> Path:
        return resolve_target(text, self._input_roots)

