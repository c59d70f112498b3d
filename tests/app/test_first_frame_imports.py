"""The browser's first frame imports only what it draws: dialogs, coverage, export and the parsers wait.

Run in a fresh interpreter (as a user's `cachetui PATH` starts), on a warm cache: what is in
`sys.modules` once the table shows the loaded specs is what the start paid for.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cachetui.core.load import sample_path

# Each used only when its key is pressed (or `--want` or `--plan` names something), or only on a cache miss.
DEFERRED = (
    "cachetui.app.dialogs.help", "cachetui.app.dialogs.problems", "cachetui.app.dialogs.columns_dialog",
    "cachetui.app.dialogs.tag_picker", "cachetui.app.dialogs.copy_menu", "cachetui.app.dialogs.export_dialog",
    "cachetui.app.export_flow", "cachetui.app.widgets.coverage_view", "cachetui.core.query.coverage",
    "cachetui.app.widgets.plan_view", "cachetui.core.query.plan", "cachetui.present.browse.plan_browsing",
    "cachetui.core.model.wanted", "cachetui.core.load.sources.wanted", "cachetui.core.load.sources.environment",
    "cachetui.core.model.build",
    "cachetui.core.load.sources.site.loader", "yaml", "msgspec",
    "textual.widgets._data_table",
)
_FIRST_FRAME = """
import asyncio, json, sys
from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.load import LoadOptions

async def main() -> None:
    app = CacheTuiApp([sys.argv[2]], LoadOptions(use_cache=True), system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.query_one(SpecTable).row_count > 0
        json.dump([app.browser.corpus.cache_status, sorted(sys.modules)], open(sys.argv[1], "w"))

asyncio.run(main())
"""


def _first_frame(found: Path, cwd: Path) -> tuple[str, set[str]]:
    done = subprocess.run([sys.executable, "-c", _FIRST_FRAME, str(found), str(sample_path())],
                          capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    status, modules = json.loads(found.read_text())
    return status, set(modules)


def test_the_first_frame_of_a_warm_start_imports_no_dialog_coverage_or_parser(tmp_path: Path,
                                                                              private_cache_home: Path) -> None:
    status, cold = _first_frame(tmp_path / "cold.json", tmp_path)
    assert status == "miss" and {"yaml", "cachetui.core.model.build"} <= cold  # the list means something
    status, warm = _first_frame(tmp_path / "warm.json", tmp_path)
    assert status == "hit"
    assert sorted(name for name in warm if name.startswith(DEFERRED)) == []
