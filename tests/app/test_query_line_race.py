"""Keys typed straight after `/` and Ctrl+U, with no pause, all reach the query line in order."""

from __future__ import annotations

from pathlib import Path

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.query_bar import QueryBar
from tests.app.helpers import burst, type_query, wait_for, wait_loaded
from tests.spec_tree import write_tree


async def test_keys_typed_without_a_pause_after_slash_and_ctrl_u_are_all_kept(tmp_path: Path) -> None:
    app = CacheTuiApp([str(write_tree(tmp_path))], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 +mpi")  # answered: the line to clear holds a spec query
        await pilot.press("escape")
        await burst(pilot, "slash", "ctrl+u", *"zlib +pic")
        bar = app.screen.query_one(QueryBar)
        assert bar.text == "zlib +pic"  # Ctrl+U cleared the old line, not the first letters typed after it
        await wait_for(pilot, lambda: str(app.browser.applied_query.spec) == "zlib +pic")
        assert bar.text == "zlib +pic" and bar.problem is None
