"""Issue 21: at every width the table shows what tells binaries apart, and nothing is cut without a mark."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.screens.columns_dialog import ColumnsDialog
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import type_query, wait_loaded
from tests.app.width_tree import write_width_tree

SIZES = [(120, 40), (80, 24), (60, 15)]


def width_app(tmp_path: Path) -> CacheTuiApp:
    return CacheTuiApp([str(write_width_tree(tmp_path))], system_clipboard=False, use_cache=False)


@asynccontextmanager
async def hdf5_answer(tmp_path: Path, size: tuple[int, int]) -> AsyncIterator[Pilot]:
    """The app at `size` showing the answer every width test reads: hdf5 +mpi %gcc."""
    async with width_app(tmp_path).run_test(size=size) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 +mpi %gcc")
        await wait_loaded(pilot)
        yield pilot


def shown_rows(table: SpecTable) -> list[str]:
    return [table.row_text(row, table.content_width).plain for row in range(table.row_count)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_hdf5_rows_told_apart(tmp_path: Path, size: tuple[int, int]) -> None:
    async with hdf5_answer(tmp_path, size) as pilot:
        table = pilot.app.screen.query_one(SpecTable)
        keys = [c.key for c, _ in table._layout]
        assert "differs" in keys and "size" not in keys  # all "-": it gives way first
        if size[0] >= 80:
            assert len(set(shown_rows(table))) == table.row_count
        first = table._getters["differs"](int(table.data.indices[0]))
        assert first.split()[0] in ("+threadsafe", "~threadsafe")  # the most even split leads
        assert table.size.height - table.HEADER_LINES >= 5  # the details give way first


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_all_packages_shows_the_tag(tmp_path: Path, size: tuple[int, int]) -> None:
    async with width_app(tmp_path).run_test(size=size) as pilot:
        await wait_loaded(pilot)
        table = pilot.app.screen.query_one(SpecTable)
        assert table.data is not None and table.data.package is None
        assert "tag" in [c.key for c, _ in table._layout]
        if size[0] >= 80:
            assert len(set(shown_rows(table))) == table.row_count


async def test_common_line_marks_its_cut_and_scrolls(tmp_path: Path) -> None:
    async with hdf5_answer(tmp_path, (60, 15)) as pilot:
        table = pilot.app.screen.query_one(SpecTable)
        line = table.header_text(0, table.content_width).plain
        assert line.endswith("…")
        table.focus()
        await pilot.press("right")
        moved = table.header_text(0, table.content_width).plain
        assert moved.startswith("‹") and moved != line


async def test_find_view_scrolls_sideways(tmp_path: Path) -> None:
    async with hdf5_answer(tmp_path, (60, 15)) as pilot:
        await pilot.press("l")
        await wait_loaded(pilot)
        table = pilot.app.screen.query_one(SpecTable)
        lines = [table.row_text(r, table.content_width).plain for r in range(table.row_count)]
        assert any(line.endswith("…") for line in lines)
        await pilot.press("right")
        assert table.row_text(1, table.content_width).plain.startswith("‹")


async def test_column_chooser_says_what_has_no_room(tmp_path: Path) -> None:
    async with hdf5_answer(tmp_path, (60, 15)) as pilot:
        table = pilot.app.screen.query_one(SpecTable)
        assert table.squeezed
        await pilot.press("v")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, ColumnsDialog)
        labels = [str(dialog.query_one("SelectionList").get_option_at_index(i).prompt)
                  for i in range(dialog.query_one("SelectionList").option_count)]
        assert sum("(no room)" in label for label in labels) == len(table.squeezed)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_footer_keeps_help_and_quit(tmp_path: Path, size: tuple[int, int]) -> None:
    async with hdf5_answer(tmp_path, size) as pilot:
        footer = pilot.app.screen.query_one(KeyFooter)
        visible = {key.key for start, end, key in footer.shown if end <= size[0]}
        assert {"question_mark", "q"} <= visible
