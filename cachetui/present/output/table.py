"""Rows as a plain-text table: what `query`, `diff`, `coverage` and `verify` print by default.

Given the terminal's width (`coverage` and `verify`, when stdout is a terminal), a table fits it: the widest cells
are cut first, marked …, and the columns stay aligned by terminal cells (a wide character counts twice). Without
one (a pipe, a file) nothing is cut.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Sequence
from typing import TextIO

from cachetui.present.inert import inert

GAP = 2  # spaces between columns
NARROWEST = 6  # cells a cut column keeps at least (five and the …), unless its widest cell is narrower


def write_table(out: TextIO, rows: Sequence[Sequence[str]], *, right: Collection[int] = (),
                width: int | None = None, whole: Collection[int] = ()) -> None:
    """Columns two spaces apart, each as wide as its widest cell, left-aligned but those in `right` (counts);
    every cell made inert, no space at a line's end.

    `width`: the terminal's columns, which each line fits (`fitted_widths`), the columns in `whole` never cut
    (a status, a short hash); None: nothing is cut."""
    shown = [[inert(cell) for cell in row] for row in rows]
    if not shown:
        return
    if width is not None:
        _write_fitted(out, shown, right, width, whole)
        return
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))]
    for row in shown:
        cells = [cell.rjust(width) if i in right else cell.ljust(width)
                 for i, (cell, width) in enumerate(zip(row, widths))]
        out.write("  ".join(cells).rstrip() + "\n")


def fitted_widths(natural: Sequence[int], width: int, whole: Collection[int] = ()) -> list[int]:
    """Each column's width so that a line of them, GAP apart, fits `width` cells: the widest columns are cut
    first, to one width (what that leaves spare goes to the first of them, a cell each), none below NARROWEST
    cells and those in `whole` never; when even that does not fit, the line is as narrow as it can be."""
    room = width - GAP * (len(natural) - 1) - sum(natural[i] for i in whole)
    cut = [i for i in range(len(natural)) if i not in whole]

    def used(cap: int) -> int:
        return sum(min(natural[i], max(cap, NARROWEST)) for i in cut)

    widest = max((natural[i] for i in cut), default=0)
    if used(widest) <= room:
        return list(natural)
    cap = max(NARROWEST, bisect_right(range(widest + 1), 0, key=lambda c: used(c) > room) - 1)
    widths = [natural[i] if i in whole else min(natural[i], cap) for i in range(len(natural))]
    spare = room - used(cap)
    for i in cut:
        if spare > 0 and widths[i] < natural[i]:
            widths[i] += 1
            spare -= 1
    return widths


def _write_fitted(out: TextIO, shown: list[list[str]], right: Collection[int], width: int,
                  whole: Collection[int]) -> None:
    from rich.cells import cell_len  # only on a terminal: a pipe never pays for it

    from cachetui.present.fit import fit

    widths = fitted_widths([max(cell_len(row[i]) for row in shown) for i in range(len(shown[0]))], width, whole)
    for row in shown:
        cells = []
        for i, (cell, cells_wide) in enumerate(zip(row, widths)):
            kept = fit(cell, cells_wide)  # inert already: a cut never splits an escape into a control
            pad = " " * (cells_wide - cell_len(kept))
            cells.append(pad + kept if i in right else kept + pad)
        out.write("  ".join(cells).rstrip() + "\n")
