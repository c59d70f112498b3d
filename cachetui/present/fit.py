"""Fit text into a number of terminal cells (wide characters count twice)."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size


def fit(text: str, width: int, *, pad: bool = False) -> str:
    """Cut `text` to `width` cells with an ellipsis; pad to exactly `width` when asked."""
    if cell_len(text) <= width:
        return set_cell_size(text, width) if pad else text
    return set_cell_size(text, max(0, width - 1)) + "…"
