"""What the browser shows reads right as it stands: parts kept apart, cuts marked, on and off told
apart without colour, the reader's place kept, commands in the order they are run.

Each test drives keys as a user does and reads what the screen shows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine, render_status
from tests.app.helpers import open_package, sample_app, toggle_facet, type_query, wait_loaded
from tests.app.test_hostile_app import screen_text
from tests.hostile_server import PASSWORD, HostileServer, serve_hostile
from tests.mirrors import DB8, v2_mirror


async def _status_after_a_filter_and_a_spec(size: tuple[int, int]) -> tuple[str, str]:
    """The status line whole, and as the screen shows it, after a tag filter and a spec query."""
    app = sample_app()
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        await toggle_facet(pilot, "tag", "develop")
        await type_query(pilot, "py-mpi4py %gcc")
        return render_status(app.screen.query_one(StatusLine).status).plain, screen_text(app).splitlines()[0].strip()


async def test_the_status_line_keeps_the_filter_apart_from_the_spec_query() -> None:
    whole, shown = await _status_after_a_filter_and_a_spec((120, 40))
    assert "developspec" not in whole
    assert whole.startswith("tag=develop  spec: py-mpi4py %gcc  │")  # no leading gap either
    assert shown == whole


async def test_the_status_line_cut_at_80_columns_says_it_was_cut() -> None:
    whole, shown = await _status_after_a_filter_and_a_spec((80, 24))
    assert len(whole) > 78 and shown.endswith("…") and whole.startswith(shown[:-1])


def _problem_tree(root: Path) -> Path:
    """A tree whose load problems have reasons longer than a line of 80 columns."""
    (root / "develop").mkdir(parents=True)
    (root / "develop" / "broken.md").write_text('---\ntitle: "x"\nmeta: {bad\n---\n')
    deep = root / "develop" / ("a-long-directory-name-" * 3) / "zlib"
    deep.mkdir(parents=True)
    (deep / "specs.md").write_text('---\ntitle: "zlib"\nspec_details: ' + json.dumps([{"hash": 3}]) + "\n---\n")
    return root


async def test_the_problems_screen_marks_a_cut_reason_and_shows_it_whole_below(tmp_path: Path) -> None:
    app = CacheTuiApp([str(_problem_tree(tmp_path))], system_clipboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        problems = app.browser.corpus.report.problems
        broken = next(i for i, p in enumerate(problems) if p.path.endswith("broken.md"))
        reason = problems[broken].reason
        assert len(reason) > 80  # the table cannot show it whole
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, ProblemsScreen)
        for _ in range(broken):
            await pilot.press("down")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        row = next((line for line in lines if "broken.md" in line), "")
        assert "invalid JSON" in row and row.rstrip().endswith("…") and len(row) <= 80  # cut, the cut marked
        paths = [line.split()[1] for line in lines if "spec entry" in line]
        assert paths and all(p.startswith("…") and p.endswith("zlib/specs.md") for p in paths)  # the file name kept
        assert "… cut" in lines[0]  # the title says what … means and where the whole text is
        detail = app.screen.query_one("#problem-detail").render().plain
        assert reason in detail.replace("\n", " ")  # the highlighted problem, whole


async def test_the_column_chooser_says_on_and_off_in_characters_not_only_colour() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("tab", "v")  # from the package list to the table, then its columns
        await pilot.pause()
        assert isinstance(app.screen, ColumnsDialog)
        shown = screen_text(app)
        assert "[x] hash" in shown and "[ ] variants: all of them" in shown  # hidden at first
        await pilot.press("down", "down", "space")  # hash off
        await pilot.pause()
        shown = screen_text(app)
        assert "[ ] hash" in shown and "[x] hash" not in shown
        await pilot.press("escape")
        await pilot.pause()
        assert "hash" not in app.screen.query_one(SpecTable).shown_columns


async def test_the_sort_arrow_shows_on_a_column_too_narrow_for_its_title_and_arrow() -> None:
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("tab")  # from the package list to the table
        table = app.screen.query_one(SpecTable)
        assert app.focused is table
        while table.data.sort_column != "version":
            await pilot.press("s")
            await pilot.pause()
        widths = dict(table.column_widths)
        assert widths["version"] < len("version ▼")  # the case: no room for the whole title and arrow
        titles = table.render_line(1).text
        start = titles.index("vers")
        assert "▼" in titles[start:start + widths["version"]]
        await pilot.press("S")
        await pilot.pause()
        titles = table.render_line(1).text
        assert "▲" in titles[start:start + widths["version"]]


async def test_b_keeps_the_details_where_the_reader_scrolled_them(tmp_path: Path) -> None:
    app = CacheTuiApp([str(v2_mirror(tmp_path / "mirror", DB8))], system_clipboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "libdwarf")
        await pilot.press("enter")  # the table's row into the details
        detail = app.screen.query_one(DetailPane)
        assert app.focused is detail and detail.detail.has_dependency_data
        while detail.scroll_offset.y == 0:
            await pilot.press("j")
        await pilot.press("j")
        await pilot.pause()
        top, cursor = detail.scroll_offset.y, detail.cursor
        assert isinstance(detail.source, DetailRows)
        line = detail.source.rows[cursor][0].plain
        await pilot.press("b")
        await pilot.pause()
        assert detail.detail.with_build
        assert detail.scroll_offset.y == top and detail.cursor == cursor
        assert detail.source.rows[detail.cursor][0].plain == line
        await pilot.press("b")
        await pilot.pause()
        assert not detail.detail.with_build and detail.scroll_offset.y == top and detail.cursor == cursor


@pytest.fixture
def private_mirror(tmp_path: Path) -> Iterator[HostileServer]:
    v2_mirror(tmp_path / "www" / "team", DB8)
    yield from serve_hostile(tmp_path / "www")


async def test_the_copy_menu_trusts_keys_before_installing_and_says_credentials_were_left_out(
        private_mirror: HostileServer) -> None:
    app = CacheTuiApp([private_mirror.with_credentials("private/team")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "libdwarf")
        table = app.screen.query_one(SpecTable)
        spec = app.browser.corpus.spec(table.current_spec)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CopyMenu)
        whats, texts = zip(*app.screen.values)
        url = f"http://127.0.0.1:{private_mirror.port}/private/team"
        assert texts[2:] == (f"spack mirror add team {url}", "spack buildcache keys --install --trust",
                             f"spack install /{spec.hash}")  # in the order they are run
        assert "credentials left out" in whats[2]
        shown = screen_text(app)
        assert "credentials left out" in shown and PASSWORD not in shown
        await pilot.press("3")
        await pilot.pause()
        assert app.clipboard == texts[2]


async def test_the_status_line_counts_one_of_a_thing_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "broken.md").write_text('---\ntitle: "x"\nmeta: {bad\n---\n')
    mirror = v2_mirror(tmp_path / "mirror", DB8)
    app = CacheTuiApp([str(mirror), str(tmp_path / "broken.md")], system_clipboard=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_loaded(pilot)
        status = screen_text(app).splitlines()[0]
        assert "⚠ 1 problem (p)" in status and "problems" not in status
