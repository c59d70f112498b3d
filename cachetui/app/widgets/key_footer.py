"""The footer: one line of the keys that can act now, drawn from the screen's active bindings.

Textual 8.2.8's Footer mounts one widget per key and, at every bindings refresh (a focus change,
a filter that makes `x` useful), removes them all and mounts new ones: a layout of the screen and
two or three frames each time, and the removed keys are never freed (textualize/textual#6666). This
footer is one widget that draws a line of text, redrawn only when the keys it shows change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

SEPARATOR = "▏"
DIM = Style(dim=True)  # a key whose action says "not now" (check_action None)


@dataclass(frozen=True)
class FooterKey:
    key: str  # as Textual names it ("question_mark"): what a click presses
    display: str  # as the user reads it ("?")
    description: str
    enabled: bool = True  # check_action said None: shown dim, does nothing yet


def footer_keys(screen: Screen[object]) -> tuple[tuple[FooterKey, ...], FooterKey | None]:
    """The keys to show, in the order BINDINGS declare them (one per action), and the command palette's key."""
    shown: dict[str, tuple[int, FooterKey]] = {}
    palette = None
    app = screen.app
    declared = _declared_order(active.node for active in screen.active_bindings.values())
    for position, (key, (_node, binding, enabled, _tooltip)) in enumerate(screen.active_bindings.items()):
        entry = FooterKey(key, app.get_key_display(binding), binding.description, enabled)
        if key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
            palette = entry
        elif binding.show:
            rank = declared.get(binding.id, len(declared) + position) if binding.id else len(declared) + position
            shown.setdefault(binding.action, (rank, entry))
    return tuple(entry for _, entry in sorted(shown.values(), key=lambda ranked: ranked[0])), palette


def _declared_order(nodes: Iterable[DOMNode]) -> dict[str, int]:
    """Binding id -> its place in the nodes' BINDINGS. A key the user remapped (config.toml) keeps its
    binding's place there: Textual's keymap moves a remapped key to the end of the active bindings."""
    order: dict[str, int] = {}
    for node in dict.fromkeys(nodes):
        for node_class in reversed(type(node).__mro__):
            for binding in Binding.make_bindings(vars(node_class).get("BINDINGS", ())):
                if binding.id is not None:
                    order.setdefault(binding.id, len(order))
    return order


class KeyFooter(Widget, can_focus=False):
    """Click a key to press it. Keys that do not fit are left out whole, from the end of the line."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-footer--key", "key-footer--description", "key-footer--separator"}
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-footer--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keys: tuple[FooterKey, ...] = ()
        self.palette: FooterKey | None = None
        self._spans: list[tuple[int, int, FooterKey]] = []  # where each key was drawn: clicks find it

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self._bindings_changed, self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        keys, palette = footer_keys(screen)
        if (keys, palette) != (self.keys, self.palette):
            self.keys, self.palette = keys, palette
            self.refresh()

    @property
    def shown(self) -> list[tuple[int, int, FooterKey]]:
        """(first cell, cell after the last, key) of each key on the line as last drawn."""
        return list(self._spans)

    def render(self) -> Text:
        width = self.size.width
        key_style = self.get_component_rich_style("key-footer--key")
        description_style = self.get_component_rich_style("key-footer--description")
        # the palette's key is drawn compact at the right end, as Textual's footer draws it
        palette = (self.palette.display, f" {self.palette.description} ") if self.palette is not None else None
        room = width - (cell_len(palette[0]) + cell_len(palette[1]) + 1 if palette else 0)
        text = Text(no_wrap=True, overflow="crop")
        self._spans = []
        for key in self.keys:
            shown, description = self._label(key)
            cells = cell_len(shown) + cell_len(description)
            if text.cell_len + cells > room:
                break  # the rest does not fit: the most used keys come first
            self._spans.append((text.cell_len, text.cell_len + cells, key))
            text.append(shown, key_style if key.enabled else key_style + DIM)
            text.append(description, description_style if key.enabled else description_style + DIM)
        if palette is not None and self.palette is not None:
            text.append(" " * max(0, room - text.cell_len))
            text.append(SEPARATOR, self.get_component_rich_style("key-footer--separator"))
            self._spans.append((text.cell_len, text.cell_len + cell_len(palette[0]) + cell_len(palette[1]),
                                self.palette))
            text.append(palette[0], key_style)
            text.append(palette[1], description_style)
        return text

    @staticmethod
    def _label(key: FooterKey) -> tuple[str, str]:
        return f" {key.display} ", f"{key.description} " if key.description else ""

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
