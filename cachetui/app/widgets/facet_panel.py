"""Facets with counts: choose values to filter (OR within a facet, AND across facets)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.text import Text
from textual import on
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from cachetui.app.widgets.fit import fit
from cachetui.app.widgets.key_option_list import KeyOptionList
from cachetui.core.model import FACETS
from cachetui.core.query import sort_values
from cachetui.present.inert import inert

FACET_TITLES = {
    "tag": "Tag",
    "version": "Version",
    "compiler": "Compiler",
    "compiler_name": "Compiler name",
    "platform": "Platform",
    "os": "OS",
    "target": "Target",
    "stack": "Stack",
    "variant": "Variant",
}
MAX_VALUES = 40  # per facet; the rest is summarised, chosen values are always shown
_ORDERED_BY_VALUE = frozenset({"version", "tag"})


@dataclass(frozen=True)
class _Key:
    facet: str
    value: str
    active: bool  # the entry in "Active filters", not the one in its facet


@dataclass(frozen=True)
class FacetState:
    counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    selected: Mapping[str, frozenset[str]] = field(default_factory=dict)


class FacetPanel(KeyOptionList):
    """Posts `Toggled(facet, value)`; shows active filters first, each removable."""

    state: reactive[FacetState] = reactive(FacetState, always_update=True)

    class Toggled(Message):
        def __init__(self, facet: str, value: str) -> None:
            super().__init__()
            self.facet = facet
            self.value = value

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._keys: list[_Key | None] = []

    def watch_state(self, state: FacetState) -> None:
        current = self._keys[self.highlighted] if self.highlighted is not None and self._keys else None
        options, keys = self._build(state)
        self._keys = keys
        self.set_options(options)
        if current in keys:
            self.highlighted = keys.index(current)
        elif any(k is not None for k in keys):
            self.highlighted = next(i for i, k in enumerate(keys) if k is not None)

    def _build(self, state: FacetState) -> tuple[list[Option], list[_Key | None]]:
        options: list[Option] = []
        keys: list[_Key | None] = []

        def heading(title: str) -> None:
            options.append(Option(Text(title, style="bold reverse"), disabled=True))
            keys.append(None)

        active = [(f, v) for f in FACETS for v in sorted(state.selected.get(f, ()))]
        if active:
            heading("Active filters (x: clear)")
            for facet, value in active:
                label = f"{FACET_TITLES[facet]}: "
                shown = self._one_line(inert(value), 2 + len(label))
                options.append(Option(Text.assemble(("✕ ", "bold"), label, shown)))
                keys.append(_Key(facet, value, active=True))
        for facet in FACETS:
            counts = state.counts.get(facet, {})
            if not counts:
                continue
            heading(FACET_TITLES[facet])
            chosen = state.selected.get(facet, frozenset())
            values = self._ordered(facet, counts)
            shown = values[:MAX_VALUES] + [v for v in values[MAX_VALUES:] if v in chosen]
            for value in shown:
                options.append(Option(self._prompt(value, counts[value], value in chosen)))
                keys.append(_Key(facet, value, active=False))
            if len(values) > len(shown):
                options.append(Option(Text(f"  … {len(values) - len(shown)} more", style="dim"), disabled=True))
                keys.append(None)
        return options, keys

    @staticmethod
    def _ordered(facet: str, counts: Mapping[str, int]) -> list[str]:
        if facet in _ORDERED_BY_VALUE:
            return sort_values(facet, list(counts))
        return sorted(counts, key=lambda v: (-counts[v], v.lower(), v))

    def _prompt(self, value: str, count: int, chosen: bool) -> Text:
        mark = ("✓ ", "bold green") if chosen else ("  ", "")
        counted = f"  {count}"
        shown = self._one_line(inert(value) or "(none)", 2 + len(counted))
        return Text.assemble(mark, (shown, "bold" if chosen else ""), (counted, "dim"))

    def _one_line(self, text: str, reserved: int) -> str:
        """Cut `text` so one option stays one line (OptionList would wrap it)."""
        return fit(text, max(4, self.scrollable_content_region.width - reserved - 1))

    def on_resize(self) -> None:
        self.state = self.state  # re-cut the prompts to the new width

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        key = self._keys[event.option_index]
        if key is not None:
            self.post_message(self.Toggled(key.facet, key.value))
