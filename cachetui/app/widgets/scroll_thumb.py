"""A scroll bar told of a new position without being drawn again when its thumb would be drawn the same.

Textual draws a scroll bar anew whenever its position changes, and a bar is drawn through Rich: a new renderable,
console rendering and a new strip per line. Over a long table the thumb is one cell that moves an eighth of a cell
every few thousand rows, so after a page-down the bar drawn again is the bar already on screen, and drawing it was
a fifth of the frame's compositing (py-spy on page-down at 500,000 specs).
"""

from __future__ import annotations

from math import ceil

from rich.segment import Segment
from textual.scrollbar import ScrollBar


def move_thumb(bar: ScrollBar, position: float) -> None:
    """Set the bar's position; it is drawn again only when its thumb moves on screen.

    The position is kept true either way (a drag starts from it). Whether the thumb moves is worked out by the
    bar's own renderer, so the rule stays Textual's.
    """
    position = bar.validate_position(position)
    if position != bar.position and _drawn(bar, position) == _drawn(bar, bar.position):
        bar.set_reactive(ScrollBar.position, position)  # no watcher and no repaint: the screen already shows it
    else:
        bar.position = position


def _drawn(bar: ScrollBar, position: float) -> list[Segment]:
    """The segments the bar is drawn with at `position` (in one colour: only where the thumb is matters)."""
    virtual_size = ceil(bar.window_virtual_size)
    window_size = ceil(bar.window_size) if bar.window_size < bar.window_virtual_size else 0
    size = bar.size.height if bar.vertical else bar.size.width
    return bar.renderer.render_bar(size=size, virtual_size=virtual_size, window_size=window_size, position=position,
                                   thickness=bar.thickness, vertical=bar.vertical).segments
