"""A line view hands the screen its kept rows in their box: line for line, what Textual's StylesCache draws.

Every line view on screen (the package list, the table with its title and header, the details with their padding, the
facets) is drawn both ways, focused and not, at two sizes, after keys that scroll and move the cursor; and a row that
stays on screen is handed on as the same strip, where the StylesCache would make a new one.
"""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from cachetui.app.widgets.line_view import LineView
from cachetui.app.widgets.plain_box import plain_box
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import sample_app, wait_loaded


def _drawn(lines: list[Strip]) -> list[tuple[int, list[object]]]:
    return [(line.cell_length, list(line)) for line in lines]


def _as_the_styles_cache_draws(view: LineView) -> list[Strip]:
    view._styles_cache.clear()
    return Widget.render_lines(view, Region(0, 0, *view.region.size))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_every_line_view_draws_what_the_styles_cache_draws(size: tuple[int, int]) -> None:
    app = sample_app()
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        compared = set()
        for keys in ([], ["tab"], ["pagedown", "down", "down"], ["tab"], ["tab"], ["down"]):
            await pilot.press(*keys)
            await pilot.pause()
            for view in app.screen.query(LineView):
                if not view.display or not view.region:
                    continue
                assert plain_box(view) is not None, type(view).__name__  # drawn through its kept rows
                ours = view.render_lines(Region(0, 0, *view.region.size))
                assert _drawn(ours) == _drawn(_as_the_styles_cache_draws(view)), type(view).__name__
                compared.add((type(view).__name__, view.has_focus))
        assert {("SpecTable", True), ("SpecTable", False), ("DetailPane", True), ("PickList", True)} <= compared


async def test_a_row_still_on_screen_is_the_same_strip_and_a_cut_column_is_cut() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("tab")
        await pilot.pause()
        table = app.screen.query_one(SpecTable)
        whole = Region(0, 0, *table.region.size)
        before = table.render_lines(whole)
        await pilot.press("down")
        await pilot.pause()
        after = table.render_lines(whole)
        first_row = 1 + table.HEADER_LINES  # below the title on the top border and the header (drawn anew)
        moved = {first_row + table.cursor - 1, first_row + table.cursor}
        same = {y for y, (old, new) in enumerate(zip(before, after, strict=True)) if old is new}
        assert set(range(first_row, len(after))) - same == moved
        cut = table.render_lines(Region(3, 2, 10, 5))
        assert _drawn(cut) == _drawn([line.crop(3, 13) for line in after[2:7]])
