"""The browser's state stays one state: the query line, the package list and the table agree, and
the focus is where the user's next keys belong, whether answers come at once or from a worker."""

from __future__ import annotations

from pathlib import Path

import pytest

import cachetui.app.screens.browser as browser_module
from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import wait_for, wait_loaded
from tests.spec_tree import write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


def _app(root: Path) -> CacheTuiApp:
    return CacheTuiApp([str(root)], system_clipboard=False, use_cache=False)


@pytest.mark.parametrize("text", ["hdf5 +mip", "hdf5 target=nosuchtarget", "hfd5 +mpi", "/zzzzzz",
                                  "hdf5 ^zlib"])
async def test_enter_on_a_refused_query_keeps_the_focus_in_the_line_when_a_worker_answers(
        tree: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    # Over INLINE_SPECS specs answers come from a worker; the threshold is all that decides it.
    monkeypatch.setattr(browser_module, "INLINE_SPECS", 0)
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *text, "enter")
        bar = app.screen.query_one(QueryBar)
        await wait_for(pilot, lambda: bar.problem is not None)
        await wait_loaded(pilot)
        assert app.focused is bar.input
        await pilot.press("q")  # a letter typed now fixes the query: it never quits
        await pilot.pause()
        assert app.is_running and bar.text == text + "q"


async def test_enter_on_an_answered_query_moves_to_the_table_when_a_worker_answers(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_module, "INLINE_SPECS", 0)
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *"hdf5 +mpi", "enter")
        table = app.screen.query_one(SpecTable)
        await wait_for(pilot, lambda: app.focused is table)
        assert app.browser.applied_query.spec is not None and table.row_count == 10
