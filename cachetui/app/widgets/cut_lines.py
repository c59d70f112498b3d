"""Lines cut to their pane with `…`, for the views that list what a question found (coverage, plan).

Textual's Static crops a line too long for its widget without a mark; these end it in `…`, as present/fit.py
cuts every other text of the browser.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


def cut(text: Text, width: int) -> Text:
    """`text` in `width` cells: a longer one cut, its last cell `…` (present/fit.py's rule, styles kept)."""
    if text.cell_len <= width:
        return text
    text = text.copy()
    text.truncate(max(1, width), overflow="ellipsis")
    return text


@dataclass
class CutRows:
    """Rows of text for a `PickList`, each cut to the pane's width with `…`."""

    rows: list[Text]
    initial_cursor: int | None = 0

    def __len__(self) -> int:
        return len(self.rows)

    def text(self, row: int, width: int) -> Text:
        return cut(self.rows[row], width)

    def selectable(self, row: int) -> bool:
        return True


class CutLine(Widget):
    """One line of a view, cut to its width with `…`."""

    said: reactive[Text] = reactive(Text)

    def render(self) -> Text:
        return cut(self.said, self.content_size.width or self.said.cell_len)
