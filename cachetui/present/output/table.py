"""Rows as a plain-text table: what `query` and `diff` print by default."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TextIO

from cachetui.present.inert import inert


def write_table(out: TextIO, rows: Sequence[Sequence[str]], *, right: Collection[int] = ()) -> None:
    """Columns two spaces apart, each as wide as its widest cell, left-aligned but those in `right` (counts);
    every cell made inert, no space at a line's end."""
    shown = [[inert(cell) for cell in row] for row in rows]
    if not shown:
        return
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))]
    for row in shown:
        cells = [cell.rjust(width) if i in right else cell.ljust(width)
                 for i, (cell, width) in enumerate(zip(row, widths))]
        out.write("  ".join(cells).rstrip() + "\n")
