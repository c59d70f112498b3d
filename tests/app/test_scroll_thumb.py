"""A long view's scroll bar is drawn again only when its thumb moves on screen, and always shows where the view is."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region

from cachetui.app.widgets.line_view import LineView

ROWS = 20_000  # the thumb, one cell of a 19-cell bar, moves an eighth of a cell every ~130 rows: every ~7 pages


class _Numbers(LineView):
    COMPONENT_CLASSES = {"numbers--cursor"}
    CURSOR_CLASSES = ("numbers--cursor", "numbers--cursor")

    def on_mount(self) -> None:
        self.rows_changed(0)

    @property
    def row_count(self) -> int:
        return ROWS

    def row_text(self, row: int, width: int) -> Text:
        return Text(str(row))


class _OneView(App[None]):
    def compose(self) -> ComposeResult:
        yield _Numbers()


def _thumb(lines: list) -> list[list[tuple[str, object]]]:
    """Each line's glyphs, and which of them are the thumb (the part a mouse grabs)."""
    return [[(segment.text, segment.style.meta.get("@mouse.down") if segment.style else None) for segment in line]
            for line in lines]


async def test_the_bar_is_drawn_again_only_when_the_thumb_moves_and_always_where_the_view_is() -> None:
    app = _OneView()
    async with app.run_test(size=(40, 20)) as pilot:
        view = app.query_one(_Numbers)
        view.focus()
        await pilot.pause()
        bar = view.vertical_scrollbar
        assert bar.display and bar.size.height > 10
        drawn = []
        render = bar.render
        bar.render = lambda: drawn.append(view.scroll_offset.y) or render()  # type: ignore[method-assign]
        pages = 40
        for _ in range(pages):
            await pilot.press("pagedown")
            await pilot.pause()
            whole = Region(0, 0, *bar.size)
            shown = bar.render_lines(whole)  # what the screen has: the lines drawn last
            assert bar.position == view.scroll_offset.y  # kept true for a drag, drawn or not
            console = app.console
            true = console.render_lines(render(), console.options.update_dimensions(*bar.size), pad=False)
            assert _thumb(shown) == _thumb(true)  # the bar on screen is the bar at the view's position
        assert 0 < len(drawn) < pages // 4, drawn
