"""The browser's action table (`present/browse/browser_actions.py`) as Textual uses it: bindings, and keys as shown.

What a key hint says (the palette's "(x)", the status line's "(p)", the help's introduction) is read
from the app's keymap, so a key the user remapped in config.toml is named as they bound it.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.binding import Binding

from cachetui.present.browse.browser_actions import BrowserAction, KeyContext, by_action, can_act, declared_keys


def bindings(actions: tuple[BrowserAction, ...]) -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """One binding per row, in the table's order (the footer's)."""
    return [Binding(row.keys, row.action, row.footer, show=row.show, priority=row.priority, id=row.id)
            for row in actions]


def keys_shown(app: App[Any], binding_id: str, default: str | None = None, joiner: str = " or ") -> str:
    """The keys bound to `binding_id` now, as the footer shows them (`?`, `^y`); `default`: the keys its binding
    declares, when it is not a row of the browser's action table (which is where they are looked up)."""
    # Textual has no public getter for the keymap `set_keymap` stored; it applies `_keymap` to a
    # copy of the bindings at every key press, so this is what the keys really are.
    bound = app._keymap.get(binding_id) or (declared_keys(binding_id) if default is None else default)
    return joiner.join(app.get_key_display(Binding(key.strip(), "")) for key in bound.split(","))


class ActionKeys:
    """A screen's action table at work: which of its keys act now, and when the footer must be redrawn."""

    def __init__(self, rows: tuple[BrowserAction, ...]) -> None:
        self._rows = rows
        self._by_action = by_action(rows)
        self._last: tuple[bool, ...] = ()  # what the footer was last refreshed for

    def check(self, action: str, context: KeyContext, *, typing: bool) -> bool:
        """Whether `action` acts now (an action not in the table: yes)."""
        row = self._by_action.get(action)
        if row is None:
            return True
        return not (row.priority and typing) and row.acts(context)  # typing `/` or `f` into a text box types it

    def changed(self, context: KeyContext, *more: bool) -> bool:
        """Whether what the keys can do (and `more` the footer shows) changed since last asked."""
        state = can_act(self._rows, context) + more
        changed, self._last = state != self._last, state
        return changed
