"""A load that ends as the app closes lets the process leave: it shows nothing more and waits for no browser.

Seen as a hang at exit: a warm start's load, still reading when the app closed, asked for the browser to be placed and
waited for it on a loop that would never place it, and the process, which waits for its threads, never left.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from textual import work

from cachetui.app.app import CacheTuiApp
from cachetui.app.screens.glance import GlanceScreen
from cachetui.core import load as load_module
from cachetui.core.load import LoadOptions, load_corpus, sample_path


async def test_waiting_for_the_browser_ends_when_the_app_closes(private_cache_home: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cached = LoadOptions(use_cache=True)
    load_corpus([str(sample_path())], cached)  # the last reading, kept: the glance comes first
    held = threading.Event()
    real_load = load_module.load_dating_later

    def held_load(*args: object, **kwargs: object) -> object:
        held.wait()
        return real_load(*args, **kwargs)  # type: ignore[arg-type]

    @work(thread=True, group="browser import", exit_on_error=False)
    def held_import(app: CacheTuiApp) -> None:
        held.wait()

    # Neither the load nor the browser's import places the browser while the app runs.
    monkeypatch.setattr(load_module, "load_dating_later", held_load)
    monkeypatch.setattr(CacheTuiApp, "_import_browser", held_import)
    app = CacheTuiApp([str(sample_path())], cached, system_clipboard=False)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            while not isinstance(app.screen, GlanceScreen):
                await pilot.pause()
        # The load asks once it has read the sources, here after the app closed: the browser is never placed.
        assert await asyncio.wait_for(app._browser_wanted(), timeout=10) is False  # nothing more is shown
    finally:
        held.set()
