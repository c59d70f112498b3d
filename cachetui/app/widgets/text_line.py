"""One-line text boxes: their own keys act as they arrive, and Escape clears what was typed before it leaves."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from cachetui.app.actions import bindings_of


class KeysInOrder(Input):
    """A box whose own bound keys (Ctrl+U, Enter, Escape…) act in the order they were typed.

    Textual runs a focused widget's non-priority bindings only once the key has bubbled up to the
    app, a hop through every container's queue, while a letter is inserted where it lands: so
    `/`, Ctrl+U and letters typed without a pause had Ctrl+U act after the first letters, deleting
    them. Here a key bound on the box runs its action as it arrives, as a letter does.
    """

    async def on_key(self, event: events.Key) -> None:
        active = self.screen.active_bindings.get(event.key)
        if active is not None and active.node is self and active.enabled:
            event.stop()
            event.prevent_default()
            await self.run_action(active.binding.action)


class TextLine(KeysInOrder):
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
