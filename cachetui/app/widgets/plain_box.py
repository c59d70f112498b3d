"""A line view's box when it is only padding and a top or bottom border, and its painted rows kept in that box.

Textual's StylesCache puts every line a widget paints into the widget's box (borders, padding, tint, opacity) as a new
Strip. For a box of padding alone, the result is the painted row with blank cells beside it: `PlainBox.around` makes
exactly that, and `BoxedLines` keeps it per painted row, so a row that stays on screen, or was painted ahead, is put
in its box once. Any other box (a side border, an outline, a tint, some opacity, a hatch, a hovered link) is left to
the StylesCache: `plain_box` says None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Spacing
from textual.strip import Strip
from textual.style import Style as TextualStyle
from textual.widget import Widget


@dataclass(frozen=True)
class PlainBox:
    gutter: Spacing  # borders and padding: the lines above and below the rows are the StylesCache's to draw
    content_width: int
    pad_left: int
    pad_right: int
    inner: Style  # the padding's cells, as the StylesCache styles them

    def around(self, line: Strip) -> Strip:
        """`line` as the StylesCache draws it in this box (`StylesCache.render_line`, a content line)."""
        line = line.adjust_cell_length(self.content_width, self.inner)
        if not (self.pad_left or self.pad_right):
            return line
        left = [Segment(" " * self.pad_left, self.inner)] if self.pad_left else []
        right = [Segment(" " * self.pad_right, self.inner)] if self.pad_right else []
        return Strip([*left, *line, *right], self.content_width + self.pad_left + self.pad_right)


def plain_box(widget: Widget) -> PlainBox | None:
    """The widget's box, when its rows are only padded in it; else None."""
    styles = widget.styles
    _, (right, _), _, (left, _) = styles.border
    if left or right or any(kind for kind, _ in styles.outline):
        return None
    if styles.tint.a or styles.text_opacity != 1.0 or widget.opacity != 1.0:
        return None
    if styles.has_rule("hatch") and styles.hatch != "none":
        return None
    if widget.auto_links:
        hover = widget.hover_style
        if hover._link_id and hover._meta and "@click" in hover.meta:  # the StylesCache restyles a hovered link
            return None
    base_background, background = widget.background_colors
    _, pad_right, _, pad_left = styles.padding
    inner = TextualStyle(background=base_background + background).rich_style
    return PlainBox(styles.gutter, widget.content_region.width, pad_left, pad_right, inner)


class BoxedLines:
    """Painted rows as the screen gets them (in their box, through the app's line filters), by the painted strip: the
    same object while its row is kept painted. Only the last `most` are kept, about what the screen shows: the
    compositor's cuts are kept inside each, and rows painted ahead are not boxed until they are shown, so the
    painted rows themselves stay as small as before (every full collection walks the ones kept)."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._kept: dict[int, tuple[Strip, tuple[object, ...], Strip]] = {}  # id(painted) -> painted, how, shown

    def get(self, line: Strip, box: PlainBox, filters: Sequence[LineFilter], background: Color) -> Strip:
        how = (box, *filters, background)
        kept = self._kept.pop(id(line), None)
        if kept is not None and kept[0] is line and kept[1] == how:
            self._kept[id(line)] = kept  # the newest again: the screen's rows are the last to go
            return kept[2]
        shown = box.around(line)
        for line_filter in filters:  # not Strip.apply_filter: it would keep the result inside the painted row
            shown = Strip(line_filter.apply(list(shown), background), shown.cell_length)
        if len(self._kept) >= self._most:
            del self._kept[next(iter(self._kept))]
        self._kept[id(line)] = (line, how, shown)
        return shown

    def clear(self) -> None:
        self._kept.clear()
