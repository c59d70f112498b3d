"""Issue 21: at every width the table shows what tells binaries apart, and nothing is cut without a mark."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from itertools import combinations
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.query_bar import ProblemNote, QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import type_query, wait_loaded
from tests.app.width_tree import write_width_tree

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "benchmarks"))
from generate_varied import generate

SIZES = [(120, 40), (80, 24), (60, 15)]
GAP = 1


def width_app(tmp_path: Path) -> CacheTuiApp:
    return CacheTuiApp([str(write_width_tree(tmp_path))], system_clipboard=False)


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


def drawn_cells(table: SpecTable, row: int) -> dict[str, str]:
    """A row as the table draws it, cut into its cells at the column widths."""
    line, cells, left = table.row_text(row, table.content_width).plain, {}, 0
    for key, width in table.column_widths:
        cells[key] = line[left:left + width].rstrip()
        left += width + GAP
    return cells


WHOLE = ("package", "version", "compiler", "platform", "os", "target", "stacks", "variants", "size", "installable", "tag")


def alike_unmarked(table: SpecTable, *, marks_count: bool = True) -> list[tuple[str, str]]:
    """Pairs of rows (by hash) that show alike, with no cut (…) where they differ.

    The hash aside: it says nothing about a binary (and one listed in two tags has one hash) — but
    for two binaries alike in everything else, their hashes are what tells them apart. A pair is told
    apart when some other cell shows differently; when all show alike, some cell where their whole
    texts differ must be cut and marked …, so the reader knows there is more (the details have it).
    """
    rows: dict[tuple[str, ...], list[int]] = {}
    drawn = [drawn_cells(table, row) for row in range(table.row_count)]
    for row, cells in enumerate(drawn):
        rows.setdefault(tuple(text for key, text in cells.items() if key != "hash"), []).append(row)
    source = table.source
    unmarked = []
    for group in (g for g in rows.values() if len(g) > 1):
        for a, b in combinations(group, 2):
            spec_a, spec_b = (source.spec_at(r) for r in (a, b))
            if all(source.cell(key, spec_a) == source.cell(key, spec_b) for key in WHOLE):
                continue  # alike in all but the hash, which shows
            if marks_count and any(source.cell(key, spec_a) != source.cell(key, spec_b)
                                        and ("…" in drawn[a][key] or "…" in drawn[b][key])
                                        for key in drawn[a]):
                continue
            unmarked.append((drawn[a]["hash"], drawn[b]["hash"]))
    return unmarked


@pytest.fixture(scope="module")
def varied_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the lead tried: benchmarks/generate_varied.py at scale S, seed 0 (12,000 specs, 50 packages)."""
    root = tmp_path_factory.mktemp("width-varied")
    generate(root, "S", seed=0)
    return root


@pytest.mark.parametrize("view", ["hdf5 +mpi %gcc", "all packages"])
@pytest.mark.parametrize("tree", ["width", "varied"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_pair_of_rows_told_apart_or_marked(tmp_path: Path, varied_tree: Path, size: tuple[int, int],
                                                      tree: str, view: str) -> None:
    root = write_width_tree(tmp_path) if tree == "width" else varied_tree
    app = CacheTuiApp([str(root)], system_clipboard=False)
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        if view != "all packages":
            await type_query(pilot, view)
            await wait_loaded(pilot)
        table = pilot.app.screen.query_one(SpecTable)
        assert table.row_count > 20 and "differs" in table.shown_columns
        assert alike_unmarked(table) == []
        if tree == "varied" and view != "all packages":
            # What the lead saw at 60 columns: lnq7sk4 and nghozow, both `build_type=RelW…`. The variants
            # that tell the 36 rows apart lead the cell, and fit: every pair shows apart, no cut needed.
            assert alike_unmarked(table, marks_count=False) == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_hdf5_rows_told_apart(tmp_path: Path, size: tuple[int, int]) -> None:
    async with hdf5_answer(tmp_path, size) as pilot:
        table = pilot.app.screen.query_one(SpecTable)
        keys = list(table.shown_columns)
        assert "differs" in keys and "size" not in keys  # all "-": it gives way first
        if size[0] >= 80:
            assert len(set(shown_rows(table))) == table.row_count
        # Each row's differs cell is its key: it tells the row from those that read as it does, or is empty.
        assert any(table.source.cell("differs", int(i)) for i in table.data.indices)
        assert table.size.height - table.HEADER_LINES >= 5  # the details give way first


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_all_packages_shows_the_tag(tmp_path: Path, size: tuple[int, int]) -> None:
    async with width_app(tmp_path).run_test(size=size) as pilot:
        await wait_loaded(pilot)
        table = pilot.app.screen.query_one(SpecTable)
        assert table.data is not None and table.data.package is None
        assert "tag" in list(table.shown_columns)
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


@pytest.mark.parametrize("size", [(80, 24), (60, 15)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_long_query_problem_wraps_marks_its_cut_and_is_whole_on_the_problems_screen(
        varied_tree: Path, size: tuple[int, int]) -> None:
    app = CacheTuiApp([str(varied_tree)], system_clipboard=False)
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 +xyzzy")  # no variant near it: the note lists those hdf5 has
        problem = app.screen.query_one(QueryBar).problem
        note = app.screen.query_one(ProblemNote)
        assert problem is not None and "known:" in problem
        lines = [line.rstrip() for line in note.render().plain.split("\n")]
        assert note.region.height == len(lines) == ProblemNote.LINES and note.region.right <= size[0]
        assert lines[-1].endswith("…")  # more than three lines' worth: the cut is marked
        shown = " ".join(" ".join(lines)[:-1].split())
        assert " ".join(("✗ " + problem).split()).startswith(shown)  # the start of the whole text, in order
        assert note.tooltip == "✗ " + problem
        await pilot.press("tab", "p")  # out of the line, keeping it (Escape would clear it)
        await pilot.pause()
        assert isinstance(app.screen, ProblemsScreen)
        said = app.screen.query_one("#problems-query")
        assert said.render().plain.endswith(problem)  # whole, and wrapped within the screen
        assert said.region.right <= size[0] and said.content_size.width * said.content_size.height >= len(problem)


async def test_a_short_query_problem_shows_whole(tmp_path: Path) -> None:
    async with width_app(tmp_path).run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 +frotran")
        problem = pilot.app.screen.query_one(QueryBar).problem
        shown = pilot.app.screen.query_one(ProblemNote).render().plain
        assert problem is not None and "fortran" in problem and "…" not in shown
        assert " ".join(shown.split()) == " ".join(("✗ " + problem).split())
