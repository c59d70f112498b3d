"""`?`: the keys, read from the live, merged bindings, so the help can never drift from them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text
from textual import events
from textual.actions import parse
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from cachetui.app.actions import bindings_of, declared_bindings, keymap, keys_named
from cachetui.app.dialogs.closing import closed_by_opening_key

# <binding id>: the keys bound to it now (config.toml's [keymap] may have changed them).
INTRO = (
    "cachetui: find a prebuilt Spack binary and copy its hash.\n"
    "<browser.search> searches packages, Enter opens one, the facets narrow it, <browser.copy-hash> copies the hash.\n"
    "Tab / Shift+Tab move between panes; Ctrl+P opens the command palette.\n"
)

KeyRow = tuple[str, str]  # keys as shown, what they do
Section = tuple[str, list[KeyRow]]


def _bindings(node: DOMNode) -> Iterable[Binding]:
    """What the node's keys really do now: its declared bindings with the app's keymap (the user's config.toml),
    but those its `check_action` hides (as the footer does: `w` with nothing wanted, a table's key elsewhere)."""
    bindings = declared_bindings(node)
    if keys := keymap(node.app):
        bindings.apply_keymap(keys)
    for _, binding in bindings:
        if _can_act(node, binding.action):
            yield binding


def _can_act(node: DOMNode, action: str) -> bool:
    namespace, name, parameters = parse(action)
    acting = node.app if namespace == "app" else node.screen if namespace == "screen" else node
    return acting.check_action(name, parameters) is not False  # None: shown dimmed, acts once loaded


def key_rows(nodes: Iterable[DOMNode], app: App[None]) -> list[KeyRow]:
    """One row per action: every key bound to it, and its description.

    Keys are claimed in the order Textual tries bindings: priority ones from the app down,
    then the rest from the nearest node (`nodes` go from the focus outwards). A key that is
    claimed is not listed again for a binding that would never act.
    """
    nodes = list(nodes)
    in_order = [b for node in reversed(nodes) for b in _bindings(node) if b.priority]
    in_order += [b for node in nodes for b in _bindings(node) if not b.priority]
    grouped: dict[tuple[str, str], list[str]] = {}
    claimed: set[str] = set()
    for binding in in_order:
        if binding.key in claimed:
            continue
        claimed.add(binding.key)
        action = binding.action.removeprefix("app.")  # `q` bound on the screen to app.quit is the app's quit
        keys = grouped.setdefault((action, binding.description or action), [])
        shown = app.get_key_display(binding)
        if shown not in keys:
            keys.append(shown)
    return [(", ".join(keys), description) for (_, description), keys in grouped.items()]


def help_sections(screen: Screen[Any], panes: Sequence[Widget]) -> list[Section]:
    """Where the focus is first, then what works everywhere, then every other pane's keys."""
    focused = screen.focused
    here = [n for n in focused.ancestors_with_self if isinstance(n, Widget) and n is not screen] if focused else []
    sections: list[Section] = []
    if here:
        title = next((str(n.border_title) for n in here if n.border_title), "focused pane")
        sections.append((f"Here: {title}", key_rows(here, screen.app)))
    sections.append(("Everywhere", key_rows([screen, screen.app], screen.app)))
    for pane in panes:
        if focused is not None and focused in pane.walk_children(with_self=True):
            continue
        # Text-editing keys of search boxes are left to the pane that has the focus.
        nodes = [n for n in pane.walk_children(Widget, with_self=True) if not isinstance(n, Input)]
        rows = key_rows(nodes, screen.app)
        if rows:
            sections.append((str(pane.border_title or pane.id), rows))
    return sections


def intro(app: App[Any]) -> str:
    """INTRO with each binding id replaced by the keys bound to it now."""
    return keys_named(app, INTRO)


class HelpScreen(ModalScreen[None]):
    BINDINGS = bindings_of("help")

    async def on_key(self, event: events.Key) -> None:
        await closed_by_opening_key(self, event, "browser.help", "app.pop_screen")

    def __init__(self, sections: Sequence[Section]) -> None:
        super().__init__()
        self._sections = list(sections)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(self._help_text(), id="help-body")

    def _help_text(self) -> Text:
        text = Text(intro(self.app))
        for title, rows in self._sections:
            text.append(f"\n{title}\n", "bold underline")
            for keys, description in rows:
                text.append(f"  {keys:<22}", "bold cyan")
                text.append(f"{description}\n")
        return text
