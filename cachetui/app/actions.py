"""The app's key rows (`present/browse/browser_actions.py`, `present/browse/keys.py`) as Textual uses them:
bindings, and keys as shown.

What a key hint says (the palette's "(x)", the status line's "(p)", the help's introduction) is read
from the app's keymap, so a key the user remapped in config.toml is named as they bound it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode

from cachetui.present.browse import browser_actions, keys
from cachetui.present.browse.browser_actions import APP, BrowserAction, KeyContext, by_id, can_act
from cachetui.present.config.textual_names import CHARACTER_KEYS

ROUTE = "route"  # the screen's action that hands a row's key to its target


def bindings(actions: tuple[BrowserAction, ...]) -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """The browser screen's: one binding per row, in the table's order (the footer's), each handed to the part
    the row names (`route('browser.copy-hash')`; the app's own, as Textual names them: `app.quit`)."""
    return [Binding(row.keys, action_of(row), row.footer, show=row.show, priority=row.priority, id=row.id)
            for row in actions]


def action_of(row: BrowserAction) -> str:
    """The screen's action for a row: handed to its target by the screen, or the app's own."""
    return f"app.{row.action}" if row.target == APP else f"{ROUTE}({row.id!r})"


def bindings_of(part: str) -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """A widget's, dialog's or the app's BINDINGS: the rows of `present/browse/keys.py` naming it, in their order."""
    return [Binding(row.keys, row.action, row.description or "", show=row.show, priority=row.priority, id=row.id)
            for row in keys.keys_of(part)]


def declared_bindings(node: DOMNode) -> BindingsMap:
    """A node's bindings as Textual merges them: each class's BINDINGS up the MRO, a subclass's key replacing its
    bases' (an app adds its command palette's key).

    What the help lists for a pane away from the focus (`Screen.active_bindings` has only the focus chain's);
    tests/app/test_key_views.py holds it to the bindings Textual keeps for each node of every screen.
    """
    keys: dict[str, list[Binding]] = {}
    for base in reversed(type(node).__mro__):
        if issubclass(base, DOMNode):
            keys.update(BindingsMap(vars(base).get("BINDINGS", ())).key_to_bindings)
    palette_bound = any(b.action in {"command_palette", "app.command_palette"} for bs in keys.values() for b in bs)
    if isinstance(node, App) and node.ENABLE_COMMAND_PALETTE and not palette_bound:
        keys.setdefault(node.COMMAND_PALETTE_BINDING, []).append(Binding(
            node.COMMAND_PALETTE_BINDING, "command_palette", "palette", show=False,
            key_display=node.COMMAND_PALETTE_DISPLAY, priority=True, tooltip="Open the command palette"))
    return BindingsMap.from_keys(keys)


def declared_keys(binding_id: str) -> str:
    """The keys the row with this binding id declares (before any keymap); KeyError for no such row."""
    rows = {row.id: row.keys for row in browser_actions.ACTIONS} | {row.id: row.keys for row in keys.KEYS}
    return rows[binding_id]


@runtime_checkable
class KeptKeymap(Protocol):
    """An app that keeps the keymap it set: Textual has no public getter for the one `set_keymap` stored."""

    keymap: Mapping[str, str]


def normalized(keymap: Mapping[str, str]) -> dict[str, str]:
    """A keymap as Textual keeps it: a character by its name (`?`: question_mark), as BINDINGS name keys."""
    return {binding_id: ",".join(_key_name(key.strip()) for key in keys.split(","))
            for binding_id, keys in keymap.items()}


def _key_name(key: str) -> str:
    """A key as Textual names it: a character other than a letter or digit by its (Unicode) name."""
    if len(key) != 1 or key.isalnum():
        return key
    try:
        return CHARACTER_KEYS.get(key) or unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
    except ValueError:  # a character with no name
        return key


def keymap(app: App[Any]) -> Mapping[str, str]:
    """The keymap the app set (config.toml's `[keymap]`): binding id -> its keys."""
    return app.keymap if isinstance(app, KeptKeymap) else {}


def bound_keys(app: App[Any], binding_id: str) -> tuple[str, ...]:
    """The keys bound to `binding_id` now, as Textual names them (`question_mark`, `f2`)."""
    return tuple(key.strip() for key in (keymap(app).get(binding_id) or declared_keys(binding_id)).split(","))


def keys_named(app: App[Any], text: str) -> str:
    """`text` with each `<binding id>` replaced by the keys bound to it now (`<browser.search>`: `/`)."""
    return re.sub(r"<([a-z.-]+)>", lambda match: keys_shown(app, match.group(1)), text)


def keys_shown(app: App[Any], binding_id: str, default: str | None = None, joiner: str = " or ") -> str:
    """The keys bound to `binding_id` now, as the footer shows them (`?`, `^y`); `default`: the keys its binding
    declares, when it is not a row of the app's tables (which is where they are looked up)."""
    bound = keymap(app).get(binding_id) or (declared_keys(binding_id) if default is None else default)
    return joiner.join(app.get_key_display(Binding(key.strip(), "")) for key in bound.split(","))


class ActionKeys:
    """A screen's action table at work: which of its keys act now, and when the footer must be redrawn."""

    def __init__(self, rows: tuple[BrowserAction, ...]) -> None:
        self._rows = rows
        self._by_id = by_id(rows)
        self._last: tuple[bool, ...] = ()  # what the footer was last refreshed for

    def row(self, binding_id: str) -> BrowserAction:
        return self._by_id[binding_id]

    def check(self, action: str, parameters: tuple[object, ...], context: KeyContext, *, typing: bool) -> bool:
        """Whether `action` acts now (an action that is not a row's: yes)."""
        row = self._by_id.get(str(parameters[0])) if action == ROUTE and parameters else None
        if row is None:
            return True
        return not (row.priority and typing) and row.acts(context)  # typing `/` or `f` into a text box types it

    def changed(self, context: KeyContext, *more: bool) -> bool:
        """Whether what the keys can do (and `more` the footer shows) changed since last asked."""
        state = can_act(self._rows, context) + more
        changed, self._last = state != self._last, state
        return changed
