"""The spec table: a Line-API view that renders only the rows on screen.

The built-in DataTable keeps every row as Python objects; a whole site is ~500k
specs, so this table holds a numpy array of spec indices and turns a row into
text only when it is painted. What a row looks like comes from its row source
(`spec_rows`): columns chosen to tell rows apart, or the lines of `spack find -lv`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from cachetui.app.actions import bindings_of, keys_named, keys_shown
from cachetui.app.widgets.line_view import LineView
from cachetui.app.widgets.spec_rows import ColumnRows, FindRows, RowSource, slid
from cachetui.core.model.recent import Recent
from cachetui.core.query.sorting import SORT_COLUMNS
from cachetui.present.inert import inert
from cachetui.present.spec_table.table_cells import SpecRows
from cachetui.present.spec_table.table_layout import HIDDEN_AT_FIRST

# <binding id>: the keys bound to it now
FIND_HINT = "spack find -lv  (<browser.find-view>: columns, <table.left>/<table.right>: scroll)"
SCROLL_STEP = 8  # cells moved by Left/Right on the common line and the find view


def common_text(rows: SpecRows | None, clear_keys: str = "x", problems_keys: str = "p") -> Text:
    """The line above the titles: what every row shares, said once, or why there are no rows (`clear_keys`,
    `problems_keys`: the keys that clear the filters and list the problems, as bound)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if rows is None:
        return text
    if not len(rows.indices):
        if not rows.corpus.n_specs:
            return text.append(f"Nothing loaded: {problems_keys} lists what could not be read.", "italic")
        why = "No spec matches: " + (inert(rows.why_empty) if rows.why_empty else "nothing answers the query")
        return text.append(why + (f" ({clear_keys} clears the filters)." if rows.clearable else "."), "italic")
    shared = rows.common.spec_text()
    text.append("common: " if len(rows.indices) > 1 else "only: ", "dim")
    return text.append(inert(shared) or "nothing in common", "bold" if shared else "dim italic")


def source_for(rows: SpecRows, hidden: frozenset[str], find_hint: str = FIND_HINT) -> RowSource:
    return FindRows(rows, find_hint) if rows.find is not None else ColumnRows(rows, hidden)


class SpecTable(LineView):
    """Specs as rows; the cursor row is the selected spec."""

    BINDINGS = bindings_of("table")
    COMPONENT_CLASSES = {"spec-table--header", "spec-table--cursor", "spec-table--cursor-blurred", "spec-table--sorted"}
    HEADER_LINES = 2  # what every row shares, then the column titles
    CURSOR_CLASSES = ("spec-table--cursor", "spec-table--cursor-blurred")

    data: reactive[SpecRows | None] = reactive(None, always_update=True)
    hidden: reactive[frozenset[str]] = reactive(HIDDEN_AT_FIRST)

    @dataclass
    class Highlighted(Message):
        """The cursor moved to another spec (None when the table is empty)."""

        spec: int | None

    @dataclass
    class WidthWanted(Message):
        """The cells the table would use to show every column that tells rows apart."""

        width: int

    @dataclass
    class Selected(Message):
        spec: int

    @dataclass
    class SortRequested(Message):
        column: str
        descending: bool

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.source: RowSource | None = None
        # The same rows shown again (`l` or `d` off again) keep their source: measuring the columns
        # of 500k rows takes ~35 ms.
        self._sources: Recent[tuple[SpecRows, frozenset[str]], RowSource] = Recent(2)
        self._telling_width = 0
        self.x_offset = 0  # how far the common line and the find view are scrolled sideways

    @property
    def row_count(self) -> int:
        return self.source.row_count if self.source is not None else 0

    @property
    def current_spec(self) -> int | None:
        if self.source is None or not self.row_count:
            return None
        return self.source.spec_at(min(self.cursor, self.row_count - 1))

    @property
    def shown_columns(self) -> tuple[str, ...]:
        """The keys of the columns on screen, left to right (none in the find view)."""
        return self.source.shown if self.source is not None else ()

    @property
    def column_widths(self) -> tuple[tuple[str, int], ...]:
        """The columns on screen and their widths, left to right (a gap of one cell between two)."""
        return self.source.widths if self.source is not None else ()

    @property
    def squeezed(self) -> frozenset[str]:
        """Columns chosen to show that the table has no room for now."""
        return self.source.squeezed if self.source is not None else frozenset()

    def selectable(self, row: int) -> bool:
        return self.source is None or self.source.spec_at(row) is not None

    def watch_data(self, old: SpecRows | None, new: SpecRows | None) -> None:
        self._new_source()
        same_rows = old is not None and new is not None and np.array_equal(old.indices, new.indices)
        self.rows_changed(None if same_rows else 0)  # a new answer opens at its first row

    def watch_hidden(self) -> None:
        self._new_source()
        self._lines.clear()  # every row is laid out anew, not only the header
        self.refresh()

    def _new_source(self) -> None:
        self.x_offset = 0
        rows, hidden = self.data, self.hidden
        if rows is None:
            self.source = None
        else:
            self.source = self._sources.get((rows, hidden), partial(source_for, rows, hidden,
                                                                    keys_named(self.app, FIND_HINT)))
        if self.source is not None:
            self.source.lay_out(self.content_width)
            if self.source.telling_width and self.source.telling_width != self._telling_width:
                self._telling_width = self.source.telling_width
                self.post_message(self.WidthWanted(self._telling_width))

    def on_resize(self) -> None:
        super().on_resize()
        if self.source is not None:
            self.source.lay_out(self.content_width)

    def cursor_moved(self) -> None:
        self.post_message(self.Highlighted(self.current_spec))

    def select_spec(self, spec: int) -> None:
        """Put the cursor on `spec` when the table shows it."""
        row = self.source.row_of(spec) if self.source is not None else None
        if row is not None:
            self.cursor = row

    def header_text(self, y: int, width: int) -> Text:
        if y == 1:
            if self.source is None:
                return Text()
            self.source.lay_out(width)
            return self.source.titles(width, self.get_component_rich_style("spec-table--sorted"))
        return slid(self._common_text(), width, self.x_offset)

    def _common_text(self) -> Text:
        return common_text(self.data, keys_shown(self.app, "browser.clear"), keys_shown(self.app, "browser.problems"))

    def row_text(self, row: int, width: int) -> Text:
        assert self.source is not None
        # Laid out for the width painted at: a frame can be painted at a new size before the
        # Resize event arrives, and a row painted is kept (by width) for as long as the rows hold.
        self.source.lay_out(width)
        return self.source.line(row, width, self.x_offset)

    def scroll_sideways(self, delta: int) -> None:
        """Left/Right: slide the common line (and the find view's lines) to show what is cut."""
        top = int(self.scroll_offset.y)
        longest = max(self._common_text().cell_len,
                      self.source.longest_line(top, self.size.height) if self.source is not None else 0)
        offset = max(0, min(self.x_offset + delta, longest - self.content_width + 1))
        if offset != self.x_offset:
            self.x_offset = offset
            self._lines.clear()
            self.refresh()

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if y == 1:  # the column titles keep their own background across the whole width
            return strip.apply_style(self.get_component_rich_style("spec-table--header"))
        return strip

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("sort_next", "sort_reverse"):  # the find view orders rows as Spack does
            return self.source is None or self.source.sortable
        return True

    def action_scroll_sideways(self, direction: int) -> None:
        self.scroll_sideways(direction * SCROLL_STEP)

    def action_select(self) -> None:
        spec = self.current_spec
        if spec is not None:
            self.post_message(self.Selected(spec))

    def action_sort_next(self) -> None:
        keys = [key for key in self.shown_columns if key in SORT_COLUMNS] or list(SORT_COLUMNS)
        current = self.data.sort_column if self.data else None
        following = keys[(keys.index(current) + 1) % len(keys)] if current in keys else keys[0]
        self.post_message(self.SortRequested(following, following == "version"))

    def action_sort_reverse(self) -> None:
        if self.data is not None and self.data.sort_column:
            self.post_message(self.SortRequested(self.data.sort_column, not self.data.descending))

    def on_click(self, event: events.Click) -> None:
        if event.y == 1 and self.check_action("sort_next", ()):
            column = self.source.column_at(event.x) if self.source is not None else None
            if column is not None and column in SORT_COLUMNS:  # not "change": it marks a row
                data = self.data
                same = data is not None and data.sort_column == column
                self.post_message(self.SortRequested(column, data is not None and same and not data.descending))
            return
        row = self.row_at(event.y)
        if row is not None and self.selectable(row):  # not a header of the find view
            self.cursor = row
