"""The browser's first frame imports only what it draws: dialogs, coverage, export and the parsers wait; started as
the app alone and as a user starts it (`cachetui PATH`, through main(), on a pseudo-terminal).

Run in a fresh interpreter (as a user's `cachetui PATH` starts), on a warm cache: what is in
`sys.modules` once the table shows the loaded specs is what the start paid for.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cachetui.core.load import LoadOptions, load_corpus, sample_path

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
        for _ in range(200):  # the first answer's table comes a frame after its package list
            await pilot.pause()
            if app.screen.query_one(SpecTable).row_count:
                break
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


# As a user starts it: `cachetui PATH` through main(), on a real terminal (a pseudo-terminal here), Textual's own
# driver and all. The first answer shown (the table filled) is when the modules are counted; then the app leaves.
_THROUGH_MAIN = """
import json, sys
from cachetui.app.screens.browser import BrowserScreen
from cachetui.cli.main import main

deliver = BrowserScreen._deliver

def counted(self, *args):
    deliver(self, *args)
    if self.corpus is not None and self.query_one("SpecTable").row_count:
        json.dump([self.corpus.cache_status, sorted(sys.modules)], open(sys.argv[1], "w"))
        self.app.exit()

BrowserScreen._deliver = counted
sys.exit(main([sys.argv[2]]))
"""


def _through_main(found: Path, cwd: Path) -> tuple[str, set[str]]:
    found_status, modules = _in_a_terminal(_THROUGH_MAIN, found, cwd)
    return found_status, set(modules)


def _in_a_terminal(script: str, found: Path, cwd: Path) -> list:
    """`script` run as `cachetui` runs, on a pseudo-terminal (120x40), until the app leaves; what it wrote to `found`."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a user's terminal, 120x40
        os.environ.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
        os.chdir(cwd)
        os.execv(sys.executable, [sys.executable, "-c", script, str(found), str(sample_path())])
    output = b""
    while True:  # the terminal read until the app leaves (its queries unanswered: Textual does not wait on them)
        ready, _, _ = select.select([fd], [], [], 60)
        assert ready, "the app did not leave within 60 s"
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    assert found.is_file(), output[-2000:]
    return json.loads(found.read_text())


@pytest.mark.parametrize("started", [_first_frame, _through_main], ids=["run_test", "through-main"])
def test_the_first_frame_of_a_warm_start_imports_no_dialog_coverage_or_parser(
        started: Callable[[Path, Path], tuple[str, set[str]]], tmp_path: Path, private_cache_home: Path) -> None:
    status, cold = started(tmp_path / "cold.json", tmp_path)
    assert status == "miss" and {"msgspec", "cachetui.core.model.build"} <= cold  # the list means something
    status, warm = started(tmp_path / "warm.json", tmp_path)
    assert status == "hit"
    assert sorted(name for name in warm if name.startswith(DEFERRED)) == []


# The glance of a warm start (the last reading's package list) is its first frame: drawn before the browser, the loader
# or numpy is imported, and before the settings' keymap views or the package search's ranking are worked out; the
# command line recognises site documents without the readers of mirrors, registries or Spack's configuration.
NOT_AT_THE_GLANCE = (
    "numpy", "rapidfuzz", "msgspec", "yaml", "cachetui.app.screens.browser", "cachetui.app.widgets.spec_table",
    "cachetui.app.commands", "cachetui.core.load.pipeline", "cachetui.core.load.cache", "cachetui.core.model.corpus",
    "cachetui.core.query.query", "cachetui.present.format", "cachetui.present.browse.answer",
    "cachetui.core.load.sources.indexes", "cachetui.core.load.sources.mirror", "cachetui.core.load.sources.oci",
    "cachetui.core.load.sources.spack_config",
)
_GLANCE_THROUGH_MAIN = """
import json, sys
from cachetui.app.screens.glance import GlanceScreen
from cachetui.cli.main import main

mounted = GlanceScreen.on_mount

def counted(self):
    mounted(self)

    def drawn():
        json.dump([list(self.glance.packages), sorted(sys.modules)], open(sys.argv[1], "w"))
        self.app.exit()

    self.call_after_refresh(drawn)

GlanceScreen.on_mount = counted
sys.exit(main([sys.argv[2]]))
"""


def test_the_glance_of_a_warm_start_is_drawn_before_the_browser_or_numpy_is_imported(
        tmp_path: Path, private_cache_home: Path) -> None:
    corpus = load_corpus([str(sample_path())], LoadOptions(use_cache=True))  # the last reading, kept
    packages, modules = _in_a_terminal(_GLANCE_THROUGH_MAIN, tmp_path / "glance.json", tmp_path)
    assert packages == list(corpus.packages)  # the glance of these sources, as they were read
    assert sorted(name for name in modules if name in NOT_AT_THE_GLANCE or name.startswith(
        tuple(f"{package}." for package in NOT_AT_THE_GLANCE))) == []


# The cyclic collector waits for the first frame (a full collection then walks every object the imports made, in the
# frame's time) and runs again once the first frame is out and the load, which pauses it too, is done: in a terminal
# and in a served session alike.
_COLLECTOR_WATCHED = """
import gc, json, os, sys
from cachetui.app.screens.browser import BrowserScreen
from cachetui.app.screens.glance import GlanceScreen

seen = {}
deliver = BrowserScreen._deliver

def first_mounted(mounted):  # a warm start's glance, or the browser itself (a served session has no glance)
    def on_mount(self):
        seen.setdefault("at the first screen's mount", [gc.isenabled(), gc.get_freeze_count()])
        mounted(self)
    return on_mount

def counted(self, *args):
    deliver(self, *args)
    if self.corpus is not None and self.query_one("SpecTable").row_count:
        seen["the table filled"] = [gc.isenabled(), gc.get_freeze_count()]
        json.dump(seen, open(sys.argv[1], "w"))
        self.app.exit()

GlanceScreen.on_mount = first_mounted(GlanceScreen.on_mount)
BrowserScreen.on_mount = first_mounted(BrowserScreen.on_mount)
BrowserScreen._deliver = counted
"""
_AS_CACHETUI = """
from cachetui.cli.main import main
sys.exit(main([sys.argv[2]]))
"""
_AS_A_SERVED_SESSION = """
from cachetui.core.load import LoadOptions
from cachetui.present.serve.served import ServeConfig
os.environ.update(ServeConfig([sys.argv[2]], LoadOptions(use_cache=True)).to_environment())
from cachetui.app.served import main
sys.exit(main())
"""


@pytest.mark.parametrize("entry", [_AS_CACHETUI, _AS_A_SERVED_SESSION], ids=["cachetui", "served-session"])
def test_the_collector_waits_for_the_first_frame_and_runs_once_the_corpus_is_shown(
        entry: str, tmp_path: Path, private_cache_home: Path) -> None:
    load_corpus([str(sample_path())], LoadOptions(use_cache=True))  # kept: a terminal shows its glance first
    seen = _in_a_terminal(_COLLECTOR_WATCHED + entry, tmp_path / "collector.json", tmp_path)
    enabled, frozen = seen["at the first screen's mount"]
    assert not enabled and frozen > 10_000  # paused, and what the imports made is out of its reach
    enabled, _ = seen["the table filled"]
    assert enabled
