"""Fit text into a number of terminal cells (wide characters count twice), cut text marked …."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.text import Text


def fit(text: str, width: int, *, pad: bool = False) -> str:
    """Cut `text` to `width` cells with an ellipsis; pad to exactly `width` when asked."""
    if cell_len(text) <= width:
        return set_cell_size(text, width) if pad else text
    return set_cell_size(text, max(0, width - 1)) + "…"


def wrapped(text: Text, width: int, lines: int, console: Console) -> Text:
    """`text` wrapped to `width` cells in at most `lines` lines, the last cut and marked … when more would follow."""
    found = text.wrap(console, max(1, width))
    if len(found) <= lines:
        return Text("\n").join(found)
    kept = found[:lines]
    last = kept[-1]
    last.rstrip()
    last.truncate(max(0, width - 1))
    last.append("…")
    return Text("\n").join(kept)


def fit_left(text: str, width: int) -> str:
    """Cut `text` to `width` cells from the left, marked …, keeping its end (a path's file name)."""
    if cell_len(text) <= width:
        return text
    kept: list[str] = []
    used = 0
    for char in reversed(text):
        used += cell_len(char)
        if used > width - 1:
            break
        kept.append(char)
    return "…" + "".join(reversed(kept))
