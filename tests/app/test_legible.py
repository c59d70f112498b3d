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
from cachetui.app.screens.columns_dialog import ColumnsDialog
from cachetui.app.screens.copy_menu import CopyMenu
from cachetui.app.screens.problems import ProblemsScreen
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


async def test_the_status_line_counts_one_of_a_thing_in_the_singular(tmp_path: Path) -> None:
    (tmp_path / "broken.md").write_text('---\ntitle: "x"\nmeta: {bad\n---\n')
    mirror = v2_mirror(tmp_path / "mirror", DB8)
    app = CacheTuiApp([str(mirror), str(tmp_path / "broken.md")], system_clipboard=False, use_cache=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_loaded(pilot)
        status = screen_text(app).splitlines()[0]
        assert "⚠ 1 problem (p)" in status and "problems" not in status
