"""The spec table: a Line-API view that renders only the rows on screen.

The built-in DataTable keeps every row as Python objects; a whole site is ~500k
specs, so this table holds a numpy array of spec indices and turns a row into
text only when it is painted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cachetui.app.widgets.fit import fit
from cachetui.core.hashes import short_hash
from cachetui.core.model import Corpus
from cachetui.present.format import condensed_variants, human_size
from cachetui.present.inert import inert

GAP = 1


@dataclass(frozen=True, eq=False)
class SpecRows:
    """What the table shows: spec indices in display order. Compared by identity."""

    corpus: Corpus
    indices: np.ndarray
    sort_column: str | None = None
    descending: bool = False


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    priority: int  # lower stays longer when the pane is narrow
    min_width: int
    max_width: int


COLUMNS = (
    Column("hash", "hash", 0, 7, 7),
    Column("version", "version", 1, 7, 12),
    Column("compiler", "compiler", 2, 8, 18),
    Column("platform", "platform", 7, 6, 8),
    Column("os", "os", 4, 6, 12),
    Column("target", "target", 3, 6, 12),
    Column("stacks", "stacks", 8, 8, 28),
    Column("variants", "variants", 9, 10, 60),
    Column("size", "size", 6, 8, 9),
    Column("tag", "tag", 5, 7, 18),
)


def _cell_getters(corpus: Corpus) -> dict[str, Callable[[int], str]]:
    def single(facet: str) -> Callable[[int], str]:
        values, col = corpus.vocab[facet].values, corpus.single[facet]
        return lambda i: values[col[i]]

    stacks, stack_values = corpus.multi["stack"], corpus.vocab["stack"].values
    return {
        "hash": lambda i: short_hash(corpus.hashes[i]),
        "version": single("version"),
        "compiler": single("compiler"),
        "platform": single("platform"),
        "os": single("os"),
        "target": single("target"),
        "tag": single("tag"),
        "stacks": lambda i: ",".join(stack_values[v] for v in stacks.of(i) if stack_values[v] != "root"),
        "variants": lambda i: condensed_variants(corpus.raw_variants(i)),
        "size": lambda i: human_size(int(corpus.size[i]) if corpus.size[i] >= 0 else None),
    }


class SpecTable(ScrollView, can_focus=True):
    """Specs as rows; the cursor row is the selected spec."""

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page-up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page-down"),
        Binding("home,g", "first", "First", show=False, id="table.first"),
        Binding("end,G", "last", "Last", show=False, id="table.last"),
        Binding("enter", "select", "Details", id="table.select"),
        Binding("s", "sort_next", "Sort", id="table.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="table.sort-reverse"),
    ]
    COMPONENT_CLASSES = {"spec-table--header", "spec-table--cursor", "spec-table--cursor-blurred", "spec-table--sorted"}

    data: reactive[SpecRows | None] = reactive(None, always_update=True)
    cursor: reactive[int] = reactive(0)

    class Highlighted(Message):
        """The cursor moved to another spec (None when the table is empty)."""

        def __init__(self, spec: int | None) -> None:
            super().__init__()
            self.spec = spec

    class Selected(Message):
        def __init__(self, spec: int) -> None:
            super().__init__()
            self.spec = spec

    class SortRequested(Message):
        def __init__(self, column: str, descending: bool) -> None:
            super().__init__()
            self.column = column
            self.descending = descending

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._getters: dict[str, Callable[[int], str]] = {}
        self._widths: dict[str, int] = {}
        self._layout: list[tuple[Column, int]] = []
        self._lines: LRUCache[tuple[int, int, bool, bool], Strip] = LRUCache(1024)

    # -- data flowing in -------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return 0 if self.data is None else len(self.data.indices)

    @property
    def current_spec(self) -> int | None:
        if self.data is None or not self.row_count:
            return None
        return int(self.data.indices[min(self.cursor, self.row_count - 1)])

    def watch_data(self, old: SpecRows | None, new: SpecRows | None) -> None:
        self._lines.clear()
        if new is not None and (old is None or old.corpus is not new.corpus):
            self._getters = _cell_getters(new.corpus)
        self._widths = self._measure(new) if new is not None else {}
        self._relayout()
        self.virtual_size = Size(self._width, self.row_count + 1)
        previous = self.cursor
        self.cursor = min(self.cursor, max(self.row_count - 1, 0))
        if self.cursor == previous:  # the watcher will not fire, but the spec under it changed
            self.post_message(self.Highlighted(self.current_spec))
        self.refresh()

    def _measure(self, rows: SpecRows) -> dict[str, int]:
        """Column widths from the values on display (sampled when there are very many)."""
        sample = rows.indices if len(rows.indices) <= 5000 else rows.indices[:: len(rows.indices) // 5000]
        widths = {}
        for column in COLUMNS:
            getter = self._getters[column.key]
            longest = max((len(inert(getter(int(i)))) for i in sample), default=0)
            widths[column.key] = max(column.min_width, min(column.max_width, max(longest, len(column.title) + 1)))
        return widths

    @property
    def _width(self) -> int:
        """Cells available for text: the region minus the vertical scrollbar."""
        return self.scrollable_content_region.width

    def on_resize(self) -> None:
        self._relayout()
        self.virtual_size = Size(self._width, self.row_count + 1)

    def _relayout(self) -> None:
        """Choose the columns that fit, by priority; the last one takes what is left."""
        self._lines.clear()
        width = self._width
        chosen: list[Column] = []
        used = 0
        for column in sorted(COLUMNS, key=lambda c: c.priority):
            need = self._widths.get(column.key, column.min_width) + GAP
            if used + need <= width or not chosen:
                chosen.append(column)
                used += need
        ordered = [c for c in COLUMNS if c in chosen]
        layout = [(c, self._widths.get(c.key, c.min_width)) for c in ordered]
        if layout:
            spare = width - sum(w + GAP for _, w in layout)
            last, last_width = layout[-1]
            layout[-1] = (last, max(1, last_width + spare + GAP))
        self._layout = layout

    # -- painting ----------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self._width
        if y == 0:
            return self._header(width)
        row = int(self.scroll_offset.y) + y - 1
        if row >= self.row_count:
            return Strip.blank(width, self.rich_style)
        is_cursor = row == self.cursor
        key = (row, width, is_cursor, self.has_focus)
        strip = self._lines.get(key)
        if strip is None:
            strip = self._lines[key] = self._row(row, width, is_cursor)
        return strip

    def _strip(self, text: Text, width: int, style: Style) -> Strip:
        segments = [s for s in text.render(self.app.console, end="") if s.text]
        return Strip(segments).crop_extend(0, width, style).apply_style(style)

    def _header(self, width: int) -> Strip:
        header_style = self.get_component_rich_style("spec-table--header")
        sorted_style = self.get_component_rich_style("spec-table--sorted")
        text = Text(no_wrap=True)
        data = self.data
        for column, col_width in self._layout:
            title = column.title
            is_sorted = data is not None and data.sort_column == column.key
            if is_sorted:
                title += " ▼" if data.descending else " ▲"
            text.append(fit(title, col_width, pad=True), sorted_style if is_sorted else None)
            text.append(" " * GAP)
        return self._strip(text, width, header_style)

    def _row(self, row: int, width: int, is_cursor: bool) -> Strip:
        assert self.data is not None
        spec = int(self.data.indices[row])
        text = Text(no_wrap=True)
        for column, col_width in self._layout:
            text.append(fit(inert(self._getters[column.key](spec)), col_width, pad=True))
            text.append(" " * GAP)
        style = self.rich_style
        if is_cursor:
            name = "spec-table--cursor" if self.has_focus else "spec-table--cursor-blurred"
            style = style + self.get_component_rich_style(name)
        return self._strip(text, width, style)

    # -- moving ------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        self._lines.clear()
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self.current_spec))

    def _scroll_to_cursor(self) -> None:
        visible = max(1, self.size.height - 1)
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.refresh()

    def _move(self, delta: int) -> None:
        if self.row_count:
            self.cursor = max(0, min(self.row_count - 1, self.cursor + delta))

    def action_cursor_up(self) -> None:
        self._move(-1)

    def action_cursor_down(self) -> None:
        self._move(1)

    def action_page_up(self) -> None:
        self._move(-max(1, self.size.height - 2))

    def action_page_down(self) -> None:
        self._move(max(1, self.size.height - 2))

    def action_first(self) -> None:
        self._move(-self.row_count)

    def action_last(self) -> None:
        self._move(self.row_count)

    def action_select(self) -> None:
        spec = self.current_spec
        if spec is not None:
            self.post_message(self.Selected(spec))

    def action_sort_next(self) -> None:
        keys = [c.key for c, _ in self._layout] or [c.key for c in COLUMNS]
        current = self.data.sort_column if self.data else None
        following = keys[(keys.index(current) + 1) % len(keys)] if current in keys else keys[0]
        self.post_message(self.SortRequested(following, following == "version"))

    def action_sort_reverse(self) -> None:
        if self.data is not None and self.data.sort_column:
            self.post_message(self.SortRequested(self.data.sort_column, not self.data.descending))

    def on_focus(self) -> None:
        self._lines.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._lines.clear()
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            column = self._column_at(event.x)
            if column is not None:
                same = self.data is not None and self.data.sort_column == column
                self.post_message(self.SortRequested(column, not self.data.descending if same else False))
        elif self.row_count:
            self.cursor = min(self.row_count - 1, int(self.scroll_offset.y) + event.y - 1)

    def _column_at(self, x: int) -> str | None:
        left = 0
        for column, width in self._layout:
            if left <= x < left + width + GAP:
                return column.key
            left += width + GAP
        return None
