"""Facets with counts: choose values to filter (OR within a facet, AND across facets)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from rich.text import Text
from textual import on
from textual.message import Message
from textual.reactive import reactive

from cachetui.app.widgets.fit import fit
from cachetui.app.widgets.pick_list import PickList
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


class Kind(Enum):
    HEADING = "heading"
    ACTIVE = "active"  # an entry under "Active filters": Enter removes it
    VALUE = "value"
    MORE = "more"


@dataclass(frozen=True)
class Entry:
    kind: Kind
    facet: str = ""
    value: str = ""
    count: int = 0
    chosen: bool = False
    title: str = ""


@dataclass(frozen=True)
class FacetState:
    counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    selected: Mapping[str, frozenset[str]] = field(default_factory=dict)


@dataclass
class FacetRows:
    entries: list[Entry]
    initial_cursor: int | None

    def __len__(self) -> int:
        return len(self.entries)

    def selectable(self, row: int) -> bool:
        return self.entries[row].kind in (Kind.ACTIVE, Kind.VALUE)

    def text(self, row: int, width: int) -> Text:
        entry = self.entries[row]
        if entry.kind is Kind.HEADING:
            return Text(fit(entry.title, width, pad=True), style="bold reverse")
        if entry.kind is Kind.MORE:
            return Text(f"  … {entry.count} more", style="dim")
        if entry.kind is Kind.ACTIVE:
            label = f"{FACET_TITLES[entry.facet]}: "
            return Text.assemble(("✕ ", "bold"), label, fit(inert(entry.value), max(1, width - len(label) - 3)))
        counted = f" {entry.count} "
        mark = ("✓ ", "bold green") if entry.chosen else ("  ", "")
        shown = fit(inert(entry.value) or "(none)", max(1, width - 2 - len(counted)), pad=True)
        return Text.assemble(mark, (shown, "bold" if entry.chosen else ""), (counted, "dim"))


def facet_entries(state: FacetState) -> list[Entry]:
    entries: list[Entry] = []
    active = [(f, v) for f in FACETS for v in sorted(state.selected.get(f, ()))]
    if active:
        entries.append(Entry(Kind.HEADING, title="Active filters (x: clear)"))
        entries += [Entry(Kind.ACTIVE, facet, value, chosen=True) for facet, value in active]
    for facet in FACETS:
        counts = state.counts.get(facet, {})
        if not counts:
            continue
        entries.append(Entry(Kind.HEADING, facet, title=FACET_TITLES[facet]))
        chosen = state.selected.get(facet, frozenset())
        values = _ordered(facet, counts)
        shown = values[:MAX_VALUES] + [v for v in values[MAX_VALUES:] if v in chosen]
        entries += [Entry(Kind.VALUE, facet, v, counts[v], v in chosen) for v in shown]
        if len(values) > len(shown):
            entries.append(Entry(Kind.MORE, facet, count=len(values) - len(shown)))
    return entries


def _ordered(facet: str, counts: Mapping[str, int]) -> list[str]:
    if facet in _ORDERED_BY_VALUE:
        return sort_values(facet, list(counts))
    return sorted(counts, key=lambda v: (-counts[v], v.lower(), v))


class FacetPanel(PickList):
    """Posts `Toggled(facet, value)`; shows active filters first, each removable."""

    state: reactive[FacetState] = reactive(FacetState, always_update=True)

    class Toggled(Message):
        def __init__(self, facet: str, value: str) -> None:
            super().__init__()
            self.facet = facet
            self.value = value

    @property
    def entries(self) -> list[Entry]:
        return self.source.entries if self.source is not None else []  # type: ignore[union-attr]

    def watch_state(self, state: FacetState) -> None:
        previous = self.entries[self.cursor] if self.entries and self.cursor < len(self.entries) else None
        entries = facet_entries(state)
        cursor = 0
        if previous is not None:
            same = [i for i, e in enumerate(entries) if (e.kind, e.facet, e.value) == (previous.kind, previous.facet, previous.value)]
            cursor = same[0] if same else min(self.cursor, max(len(entries) - 1, 0))
        self.source = FacetRows(entries, cursor)

    @on(PickList.Selected)
    def _selected(self, event: PickList.Selected) -> None:
        event.stop()
        entry = self.entries[event.row]
        self.post_message(self.Toggled(entry.facet, entry.value))
