"""A small modal list of choices; the base of the copy menu and the tag picker."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from cachetui.app.actions import bindings_of
from cachetui.app.widgets.key_option_list import KeyOptionList

T = TypeVar("T")


class ChoiceDialog(ModalScreen[T | None], Generic[T]):
    """Dismisses with the chosen value, or None on escape."""

    BINDINGS = bindings_of("dialog")

    def __init__(self, title: str, choices: Sequence[tuple[Text, T]], *, highlighted: int = 0,
                 looking_at: Callable[[T], None] | None = None) -> None:
        """`looking_at` hears each choice the cursor rests on (the first as the dialog opens)."""
        super().__init__()
        self._title = title
        self._choices = list(choices)
        self._highlighted = highlighted
        self._looking_at = looking_at

    @property
    def values(self) -> list[T]:
        """What each choice dismisses with, in the order shown."""
        return [value for _, value in self._choices]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(self._title, style="bold"), classes="dialog-title")
            yield KeyOptionList(*(Option(prompt) for prompt, _ in self._choices), classes="dialog-options")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = min(self._highlighted, max(len(self._choices) - 1, 0))
        options.focus()

    @on(OptionList.OptionHighlighted)
    def _looked_at(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self._looking_at is not None and 0 <= event.option_index < len(self._choices):
            self._looking_at(self._choices[event.option_index][1])

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self._choices[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)
