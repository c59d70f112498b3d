"""A one-line text box whose Escape clears what was typed before it leaves, as fzf's and k9s's do."""

from __future__ import annotations

from textual.widgets import Input

from cachetui.app.actions import bindings_of


class TextLine(Input):
    """Escape clears a box with text in it (`line.clear`); in an empty one it does what the box's owner says.

    The footer shows which, since `check_action` hides the one that would not act; the bindings' keys
    redraw it when the box turns empty or not (`watch_value`), not at every key typed.
    """

    BINDINGS = bindings_of("line")
    _had_text = False  # as the footer last showed it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_text":
            return bool(self.value)
        return True

    def action_clear_text(self) -> None:
        self.value = ""

    def watch_value(self, value: str) -> None:
        if bool(value) != self._had_text:
            self._had_text = bool(value)
            self.refresh_bindings()
