"""The spec table's columns, and which of them fit a width: pure, so it is tested without a terminal.

The table measures an answer into `Fill`s (how wide each column's cells are, whether they tell any
rows apart); `lay_out` decides what a width holds. `cachetui.present.spec_table.table_plan` tries a few
layouts and keeps the one that tells the most rows apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cachetui.core.model.fields import REGISTRY, Column, RegistryLookup, RegistryView

GAP = 1  # cells between two columns

# The columns (declared with the other fields of a spec, in cachetui.core.model.fields), in the table's order.
COLUMNS: Sequence[Column] = RegistryView(REGISTRY.columns)
COLUMN = RegistryLookup(REGISTRY.column_keys)

# Hidden until the user shows them (`v`): each column says so itself (`Column.hidden`).
HIDDEN_AT_FIRST = frozenset(REGISTRY.columns_marked("hidden"))


@dataclass(frozen=True)
class Fill:
    """A column as the current answer fills it."""

    column: Column
    width: int  # what it takes in its turn: its widest cell (or title) within the column's bounds
    longest: int = 0  # what it grows to when room is left over (a flexible column's widest cell, uncut)
    alike: bool = False  # one value, or unknown, in every row: it tells no rows apart and gives way first
    priority: int | None = None  # its turn, when the answer changes it (None: the column's own)

    @property
    def turn(self) -> int:
        return self.column.priority if self.priority is None else self.priority


Layout = tuple[tuple[Column, int], ...]


def lay_out(fills: Sequence[Fill], room: int) -> Layout:
    """The columns that fit in `room` cells, in the order of `fills`, with their widths.

    Columns that tell rows apart come first, by priority: each takes its width while it fits, and a
    flexible one takes what is left (down to its minimum; its cut cells are marked …). Room left over
    widens flexible columns towards their longest cell before a column alike in every row may have any;
    what remains goes to the last column, so a row fills the width.
    """
    ranked = sorted(fills, key=lambda fill: (fill.alike, fill.turn))
    widths: dict[str, int] = {}
    used = 0

    def wanted() -> int:  # room the chosen columns would grow into
        return sum(max(0, f.longest - widths[f.column.key]) for f in fills if f.column.key in widths)

    for fill in ranked:
        key, column = fill.column.key, fill.column
        if fill.alike and widths and used + wanted() + fill.width + GAP > room:
            continue  # only into room nothing informative wants
        if used + fill.width + GAP <= room:
            widths[key] = fill.width
        elif column.flexible and room - used - GAP >= column.min_width:
            widths[key] = room - used - GAP
        elif not widths:  # the first column shows, however narrow the room
            widths[key] = max(1, room - GAP)
        else:
            continue
        used += widths[key] + GAP
    for fill in ranked:
        key = fill.column.key
        if key in widths and fill.longest > widths[key] and used < room:
            grown = min(fill.longest, widths[key] + room - used)
            used += grown - widths[key]
            widths[key] = grown
    layout = [(fill.column, widths[fill.column.key]) for fill in fills if fill.column.key in widths]
    if layout and used < room:
        column, width = layout[-1]
        layout[-1] = (column, width + room - used + GAP)  # no gap after the last: the row ends at the edge
    return tuple(layout)
