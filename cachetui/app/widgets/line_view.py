"""A Line-API view with a cursor: the base of the spec table and the pick lists.

It renders only the rows on screen (a row is built when painted, and cached), so a
list of 3,000 packages or a table of 500,000 specs costs what a screenful costs.
Subclasses say how many rows there are, which can hold the cursor, and how a row looks.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from cachetui.app.actions import bindings_of
from cachetui.app.widgets.plain_box import BoxedLines, PlainBox, plain_box
from cachetui.app.widgets.scroll_thumb import move_thumb
from cachetui.core.model.recent import Recent

# Painted rows kept: the screen and the pages painted ahead above and below it, at a few widths.
PAINTED_ROWS_KEPT = 1024
# Painted rows kept as the screen gets them: a tall screen's rows, and a few more.
BOXED_ROWS_KEPT = 160


class LineView(ScrollView, can_focus=True):
    BINDINGS = bindings_of("lines")
    HEADER_LINES: ClassVar[int] = 0
    CURSOR_CLASSES: ClassVar[tuple[str, str]] = ("", "")  # component classes: focused, blurred

    cursor: reactive[int] = reactive(0, init=False)

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        # Not Textual's LRUCache: it links entries in a ring of lists whose first node, made with the
        # widget, is frozen with the corpus (gc.freeze() after a load), so the first ring cleared is
        # never collected (tests/app/test_line_view_memory.py), and every gen-2 collection walks it.
        self._lines: Recent[tuple[Hashable, int, bool, bool], Strip] = Recent(PAINTED_ROWS_KEPT)
        self._boxed = BoxedLines(BOXED_ROWS_KEPT)  # painted rows as the screen gets them
        self._paint: tuple[int, Style] | None = None  # (content width, base style) while a paint is on
        self._ahead_asked = False

    # -- what subclasses provide -------------------------------------------------------

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def row_text(self, row: int, width: int) -> Text:
        raise NotImplementedError

    def header_text(self, y: int, width: int) -> Text:
        """Header line `y` (of HEADER_LINES), fixed above the scrolling rows."""
        return Text()

    def selectable(self, row: int) -> bool:
        return True

    def row_key(self, row: int) -> Hashable:
        """What a row's paint depends on, besides width, cursor and focus: by default its index, and
        painted rows are forgotten when the rows change (`forget_rows`). A view whose rows say what
        they show can key by that and keep the paint of rows an answer only moves."""
        return row

    def forget_rows(self) -> None:
        """The rows changed: painted rows keyed by index no longer hold."""
        self._lines.clear()
        self._boxed.clear()

    def cursor_moved(self) -> None:
        """Hook: the cursor now rests on another row (or the rows changed under it)."""

    def row_chosen(self, row: int) -> None:
        """Hook: Enter, or a click, on a selectable row."""

    # -- rows changing -----------------------------------------------------------------

    @property
    def content_width(self) -> int:
        """Cells available for text: the region minus the vertical scrollbar."""
        return self.scrollable_content_region.width

    def rows_changed(self, cursor: int | None = None) -> None:
        """Call after the rows change: resize, clamp or place the cursor, repaint."""
        self.forget_rows()
        self._set_virtual_size(Size(self.content_width, self.row_count + self.HEADER_LINES))
        wanted = self.cursor if cursor is None else cursor
        wanted = self._nearest_selectable(max(0, min(wanted, self.row_count - 1)), 1)
        if wanted == self.cursor:
            self.cursor_moved()  # same index, but the row under it may be another one
        else:
            self.cursor = wanted
        self._scroll_to_cursor()
        self.refresh()
        self._paint_ahead_later()

    def rows_reworded(self, rows: Iterable[int]) -> None:
        """Call after the rows change when only `rows` read differently: as many rows as before, the cursor on
        the same one. Only their lines are repainted, where `rows_changed` repaints the whole view; a view whose
        `row_key` is by index forgets its painted rows first (`forget_rows`)."""
        self.forget_rows()
        for row in rows:
            self._refresh_row(row)
        self._paint_ahead_later()

    def on_resize(self) -> None:
        # Painted rows are kept: they are keyed by width, and the table's height changes with the
        # details below it as the cursor moves (at 80x24), which would throw the rows painted ahead away.
        self._set_virtual_size(Size(self.content_width, self.row_count + self.HEADER_LINES))
        self._scroll_to_cursor()
        self.refresh()  # a frame may have been painted at the new size before this event came
        self._paint_ahead_later()

    def _set_virtual_size(self, size: Size) -> None:
        """Rows changed: a view sized by CSS needs no screen layout, only its scrollbar updated.

        Setting `virtual_size` lays out the whole screen (5-20 ms at 120x40, and a frame later) on
        every change, so each cursor move that changes the details' length would pay it. A layout
        is still asked for when a scrollbar appears or goes (`show_vertical_scrollbar` does so).
        """
        height = self.styles.height
        if height is None or height.is_auto or not self.container_size:
            self.virtual_size = size  # sized by its rows, or not laid out yet: the screen must know
        elif size != self.virtual_size:
            self.set_reactive(LineView.virtual_size, size)
            # Textual 8.2.8's own no-layout path (as when scrolling): it has no public way to change a virtual
            # size without laying out the screen.
            self._scroll_update(size)

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Textual 8.2.8 passes a scroll view's region as its virtual size at every screen layout, so
        # ScrollView updates (repaints) its scrollbars each time, a frame after the layout's own: the
        # rows are the virtual size here, and only a change of size needs the scrollbars updated. A private
        # hook: Textual offers no public one for what a layout hands a scroll view.
        return super()._size_updated(size, self.virtual_size, container_size, layout)

    # -- painting ----------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        # Once per paint, not once per line: `rich_style` walks the ancestors (a third of a row's cost).
        self._paint = (self.content_width, self.rich_style)
        try:
            box = plain_box(self)
            return super().render_lines(crop) if box is None else self._boxed_lines(crop, box)
        finally:
            self._paint = None

    def _boxed_lines(self, crop: Region, box: PlainBox) -> list[Strip]:
        """The lines in `crop` as Textual's StylesCache draws them, but each row's painted strip, once put in its
        box (padding, the app's line filters), is kept and handed on as the same object while it is on screen.

        The StylesCache draws every line of a view again after a scroll (a page-down: the whole table), each into a
        new Strip, which the compositor then cuts anew. Kept, a row painted ahead comes out boxed once, and a row
        still on screen is neither boxed nor cut again. Lines in the gutter (the title on the top border) are drawn
        by the StylesCache, which keeps them.
        """
        width, height = self.region.size
        top, bottom = box.gutter.top, height - box.gutter.bottom
        filters = self.app.get_line_filters()
        background = self.background_colors[1]
        lines: list[Strip] = []
        for y in crop.line_range:
            if y < top or y >= bottom:
                lines.extend(self._styles_cache.render_widget(self, Region(0, y, width, 1)))
                continue
            lines.append(self._boxed.get(self.render_line(y - top), box, filters, background))
        if crop.column_span != (0, width):
            x1, x2 = crop.column_span
            return [line.crop(x1, x2) for line in lines]
        return lines

    def render_line(self, y: int) -> Strip:
        width, base = self._paint or (self.content_width, self.rich_style)
        if y < self.HEADER_LINES:
            return self._strip(self.header_text(y, width), width, base)
        row = int(self.scroll_offset.y) + y - self.HEADER_LINES
        if row >= self.row_count:
            return Strip.blank(width, base)
        return self._row_strip(row, width, base, row == self.cursor and self.selectable(row))

    def _row_strip(self, row: int, width: int, base: Style, is_cursor: bool) -> Strip:
        def paint() -> Strip:
            style = base
            if is_cursor:
                focused, blurred = self.CURSOR_CLASSES
                style = style + self.get_component_rich_style(focused if self.has_focus else blurred)
            return self._strip(self.row_text(row, width), width, style)
        return self._lines.get((self.row_key(row), width, is_cursor, self.has_focus), paint)

    def _paint_ahead_later(self) -> None:
        if not self._ahead_asked:
            self._ahead_asked = True
            self.call_after_refresh(self._paint_ahead)

    def _paint_ahead(self) -> None:
        """Once a frame is out, paint the pages above and below into the cache: a page-down then finds
        its rows painted and answers in about the time a cursor move takes (benchmarks/pty_keys.py at
        500k specs: page-down p50 10 ms, a cursor move's 9)."""
        self._ahead_asked = False
        visible = self.size.height - self.HEADER_LINES
        if visible <= 0 or not self.row_count:
            return
        width, base, top = self.content_width, self.rich_style, int(self.scroll_offset.y)
        below = range(top + visible, min(self.row_count, top + 2 * visible))
        for row in [*below, *range(max(0, top - visible), top)]:
            self._row_strip(row, width, base, row == self.cursor and self.selectable(row))

    def _strip(self, text: Text, width: int, style: Style) -> Strip:
        text.no_wrap = True
        segments = [s for s in text.render(self.app.console, end="") if s.text]
        # Cropped, padded and styled as segments, then one Strip: Strip.crop_extend and apply_style
        # make up to four Strips a row, each with seven caches, kept alive with the painted row.
        line = Segment.adjust_line_length(segments, width, style)
        return Strip(Segment.apply_style(line, style), width)

    def watch_scroll_y(self, old: float, new: float) -> None:
        if self.show_vertical_scrollbar:  # before Textual sets it: a thumb that stays put is not drawn again
            move_thumb(self.vertical_scrollbar, new)
        super().watch_scroll_y(old, new)
        self.refresh()
        self._paint_ahead_later()

    def on_focus(self) -> None:
        self._lines.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._lines.clear()
        self.refresh()

    # -- moving ------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        # Cached rows are keyed by whether they hold the cursor: only the two rows that changed repaint.
        self._scroll_to_cursor()
        for row in (old, new):
            self._refresh_row(row)
        self.cursor_moved()
        self._paint_ahead_later()

    def _refresh_row(self, row: int) -> None:
        self.refresh_line(row + self.HEADER_LINES)  # virtual coordinates: the header sits above row 0

    def _scroll_to_cursor(self) -> None:
        if self.size.height <= self.HEADER_LINES:
            return  # hidden (no size yet): scrolling now would use a one-row view; on_resize catches up
        visible = self.size.height - self.HEADER_LINES
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + visible:
            self.scroll_to(y=self.cursor - visible + 1, animate=False, immediate=True)

    def _nearest_selectable(self, row: int, step: int) -> int:
        """`row` if it can hold the cursor, else the next one that can (either way)."""
        for direction in (step, -step):
            probe = row
            while 0 <= probe < self.row_count:
                if self.selectable(probe):
                    return probe
                probe += direction
        return max(0, min(row, self.row_count - 1))

    def move_cursor(self, delta: int) -> None:
        if self.row_count:
            target = max(0, min(self.row_count - 1, self.cursor + delta))
            self.cursor = self._nearest_selectable(target, 1 if delta >= 0 else -1)

    def action_cursor_up(self) -> None:
        self.move_cursor(-1)

    def action_cursor_down(self) -> None:
        self.move_cursor(1)

    def action_page_up(self) -> None:
        self.move_cursor(-max(1, self.size.height - self.HEADER_LINES - 1))

    def action_page_down(self) -> None:
        self.move_cursor(max(1, self.size.height - self.HEADER_LINES - 1))

    def action_first(self) -> None:
        self.move_cursor(-self.row_count)

    def action_last(self) -> None:
        self.move_cursor(self.row_count)

    def row_at(self, y: int) -> int | None:
        row = int(self.scroll_offset.y) + y - self.HEADER_LINES
        return row if 0 <= row < self.row_count else None

    def on_click(self, event: events.Click) -> None:
        row = self.row_at(event.y)
        if row is not None and self.selectable(row):
            self.cursor = row
            self.row_chosen(row)
