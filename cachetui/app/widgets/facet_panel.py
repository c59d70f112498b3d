"""Facets with counts: choose values to filter (OR within a facet, AND across facets)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input

from cachetui.app.actions import bindings_of, keys_named
from cachetui.app.widgets.pick_list import PickList
from cachetui.app.widgets.text_line import TextLine
from cachetui.core.model.fields import REGISTRY, RegistryLookup
from cachetui.core.query.query import sort_values
from cachetui.core.spack.tags import WHOLE_TAG_LABELS
from cachetui.present.apart import apart
from cachetui.present.fit import fit
from cachetui.present.inert import inert

FACET_TITLES = RegistryLookup(REGISTRY.facet_titles)  # declared with each field (cachetui.core.model.fields)
MAX_VALUES = 40  # per facet; the rest is one "… N more" row (Enter shows them), chosen values always show
# Every spec of a tag is in its `root` stack: the whole tag, which as a facet value narrows nothing.
_HIDDEN_VALUES = {"stack": WHOLE_TAG_LABELS}


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
    filter_text: str = ""  # typed in the facets pane: only values containing it show, all of them
    expanded: frozenset[str] = frozenset()  # facets whose "… more" row was opened
    clear_keys: str = "x"  # the keys that clear every filter, as bound now (the active filters' heading names them)
    choose_keys: str = "⏎"  # the keys that choose a row, as bound now (a "… more" row names them)


@dataclass
class FacetRows:
    entries: list[Entry]
    initial_cursor: int | None
    _shown: dict[int, dict[int, str]] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.entries)

    def selectable(self, row: int) -> bool:
        return self.entries[row].kind in (Kind.ACTIVE, Kind.VALUE, Kind.MORE)

    def text(self, row: int, width: int) -> Text:
        entry = self.entries[row]
        if entry.kind is Kind.HEADING:
            return Text(fit(entry.title, width, pad=True), style="bold reverse")
        if entry.kind is Kind.MORE:
            return Text(f"  … {entry.count} more ({entry.title})", style="dim")
        shown = self._values(width)[row]
        if entry.kind is Kind.ACTIVE:
            return Text.assemble(("✕ ", "bold"), f"{FACET_TITLES[entry.facet]}: ", shown)
        mark = ("✓ ", "bold green") if entry.chosen else ("  ", "")
        counted = f" {entry.count} ".rjust(width - 2 - cell_len(shown))
        return Text.assemble(mark, (shown, "bold" if entry.chosen else ""), (counted, "dim"))

    def key(self, row: int) -> Hashable:
        """What a row's paint depends on: its entry, and the entries its facet shows beside it (its value is
        cut to stay apart from theirs, its count aligned with theirs)."""
        return self._keys[row]

    @cached_property
    def _keys(self) -> list[Hashable]:
        groups: dict[tuple[Kind, str], list[Entry]] = {}
        for entry in self.entries:
            groups.setdefault((entry.kind, entry.facet), []).append(entry)
        together = {group: tuple(entries) for group, entries in groups.items()}
        return [(entry, together[entry.kind, entry.facet]) for entry in self.entries]

    def _values(self, width: int) -> dict[int, str]:
        """Row -> its value as shown at `width`: the values of one facet take the same cells (their counts
        aligned) and are cut in the middle so that no two read alike (`develop-2025-04-20`, `-05-04`)."""
        if width not in self._shown:
            groups: dict[tuple[Kind, str], list[int]] = {}
            for row, entry in enumerate(self.entries):
                if entry.kind in (Kind.ACTIVE, Kind.VALUE):
                    groups.setdefault((entry.kind, entry.facet), []).append(row)
            shown: dict[int, str] = {}
            for (kind, facet), rows in groups.items():
                if kind is Kind.ACTIVE:
                    cells = width - len(FACET_TITLES[facet]) - 5  # "✕ ", "Title: ", and a cell to spare
                else:
                    cells = width - 2 - max(len(f" {self.entries[row].count} ") for row in rows)
                values = [inert(self.entries[row].value) or "(none)" for row in rows]
                cut = apart(values, max(1, cells))
                shown |= {row: fit(text, max(1, cells), pad=kind is Kind.VALUE) for row, text in zip(rows, cut)}
            self._shown.clear()  # one width at a time: a resize lays the list out anew
            self._shown[width] = shown
        return self._shown[width]


def facet_entries(state: FacetState) -> list[Entry]:
    entries: list[Entry] = []
    active = [(f, v) for f in REGISTRY.facets() for v in sorted(state.selected.get(f, ()))]
    if active:
        entries.append(Entry(Kind.HEADING, title=f"Active filters ({state.clear_keys}: clear)"))
        entries += [Entry(Kind.ACTIVE, facet, value, chosen=True) for facet, value in active]
    needle = state.filter_text.strip().lower()
    for facet in REGISTRY.facets():
        counts = state.counts.get(facet, {})
        chosen = state.selected.get(facet, frozenset())
        hidden = _HIDDEN_VALUES.get(facet, frozenset()) - chosen
        values = [v for v in _ordered(facet, counts) if v not in hidden and needle in v.lower()]
        if not values or (set(values) <= {_quiet(facet)} and not chosen):  # "unknown" for every spec says nothing
            continue
        entries.append(Entry(Kind.HEADING, facet, title=FACET_TITLES[facet]))
        if needle or facet in state.expanded:
            shown = values
        else:
            shown = values[:MAX_VALUES] + [v for v in values[MAX_VALUES:] if v in chosen]
        entries += [Entry(Kind.VALUE, facet, v, counts[v], v in chosen) for v in shown]
        if len(values) > len(shown):
            entries.append(Entry(Kind.MORE, facet, count=len(values) - len(shown), title=state.choose_keys))
    return entries


def _quiet(facet: str) -> str | None:
    """The value that, held by every spec, says nothing (`Facet.quiet`); None when every value says something."""
    declared = REGISTRY.named[facet].facet
    return declared.quiet if declared is not None and declared.quiet else None


def _ordered(facet: str, counts: Mapping[str, int]) -> list[str]:
    if facet in REGISTRY.facets_marked("dated"):  # releases newest first, the rest by how many binaries
        return sort_values(facet, list(counts))
    return sorted(counts, key=lambda v: (-counts[v], v.lower(), v))


class FacetPanel(PickList):
    """Posts `Toggled(facet, value)`; shows active filters first, each removable."""

    state: reactive[FacetState] = reactive(FacetState, always_update=True)

    @dataclass
    class Toggled(Message):
        facet: str
        value: str

    @dataclass
    class Expanded(Message):
        """The "… more" row of a facet was chosen: show all of its values."""

        facet: str

    @property
    def entries(self) -> list[Entry]:
        return self.source.entries if isinstance(self.source, FacetRows) else []

    def row_key(self, row: int) -> Hashable:
        # An entry (with its facet's entries beside it) is all its line shows: a toggle that only moves
        # the lines below the active filters repaints the few that changed, in the frame that answers the key.
        source = self.source
        return source.key(row) if isinstance(source, FacetRows) and row < len(source) else row

    def forget_rows(self) -> None:
        pass  # keyed by what they show, painted lines stay true (the cache is bounded)

    def watch_state(self, state: FacetState) -> None:
        previous = self.entries[self.cursor] if self.entries and self.cursor < len(self.entries) else None
        entries = facet_entries(state)
        cursor = 0
        if previous is not None:
            was = (previous.kind, previous.facet, previous.value)
            same = [i for i, e in enumerate(entries) if (e.kind, e.facet, e.value) == was]
            cursor = same[0] if same else min(self.cursor, max(len(entries) - 1, 0))
        self.source = FacetRows(entries, cursor)

    @on(PickList.Selected)
    def _selected(self, event: PickList.Selected) -> None:
        event.stop()
        entry = self.entries[event.row]
        if entry.kind is Kind.MORE:
            self.post_message(self.Expanded(entry.facet))
        else:
            self.post_message(self.Toggled(entry.facet, entry.value))


class FacetFilter(TextLine):
    """The facet filter's box: Enter goes to the facets it narrowed, Escape clears it, then goes there."""

    BINDINGS = bindings_of("filter")


class FacetsPane(Vertical):
    """A filter box above the facet list: typing narrows every facet to the values containing the text."""

    BINDINGS = bindings_of("facets")

    @dataclass
    class FilterChanged(Message):
        text: str

    def compose(self) -> ComposeResult:
        yield FacetFilter(placeholder=keys_named(self.app, "<browser.search> filter facets"), id="facet-filter")
        yield FacetPanel(id="facet-list")

    @property
    def filter(self) -> Input:
        """The text box that narrows the facets to the values containing its text (`/` here)."""
        return self.query_one("#facet-filter", Input)

    @property
    def panel(self) -> FacetPanel:
        """The facets and their values, which Tab reaches after the filter."""
        return self.query_one(FacetPanel)

    @on(Input.Changed, "#facet-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.FilterChanged(event.value))

    @on(Input.Submitted, "#facet-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.screen.set_focus(self.panel)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_filter":
            return self.filter.has_focus and not self.filter.value  # with text, Escape clears it; elsewhere, the screen
        return True

    def action_leave_filter(self) -> None:
        self.screen.set_focus(self.panel)
