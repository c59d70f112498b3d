"""`?`: the keys, read from the live bindings so the help can never drift from them."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

INTRO = (
    "cachetui: find a prebuilt Spack binary and copy its hash.\n"
    "Type to search packages, Enter to open one, narrow with the facets, y to copy the hash.\n"
    "Tab / Shift+Tab move between panes; Ctrl+P opens the command palette.\n"
)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "app.pop_screen", "Close", id="help.close")]

    def __init__(self, sections: Iterable[tuple[str, Iterable[Binding]]]) -> None:
        super().__init__()
        self._sections = [(title, list(bindings)) for title, bindings in sections]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(self._help_text(), id="help-body")

    def _help_text(self) -> Text:
        text = Text(INTRO)
        for title, bindings in self._sections:
            text.append(f"\n{title}\n", "bold underline")
            for binding in bindings:
                keys = ", ".join(self.app.get_key_display(Binding(k, "")) for k in binding.key.split(","))
                text.append(f"  {keys:<22}", "bold cyan")
                text.append(f"{binding.description}\n")
        return text
