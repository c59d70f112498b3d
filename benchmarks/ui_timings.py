"""Drive the real app with Pilot and time what users feel: keystrokes, facet toggles, page-down."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.query.query import Query, facet_counts

QUERIES = ["hdf5", "py-torch", "mpich", "zlib", "kokkos", "petsc"]
TOGGLED_FACETS = ("compiler", "target", "os", "stack", "variant", "version", "platform")
PAGE_DOWNS = 60


WALL: dict[str, list[float]] = {}  # Pilot wall times, Pilot's own waiting included, by measure


async def _timed(pilot: Pilot, action, measure: str) -> float:  # noqa: ANN001
    """CPU time the app spends from the action to the composed frame (the app is otherwise idle).

    Pilot's `pause()` itself waits ~45 ms of wall time for idleness; CPU time leaves that out
    and keeps the app's own work: event handling, the core query, rendering the frame.
    """
    cpu, wall = time.process_time(), time.perf_counter()
    await action()
    await pilot.pause()
    WALL.setdefault(measure, []).append(time.perf_counter() - wall)
    return time.process_time() - cpu


async def _keystrokes(pilot: Pilot) -> list[float]:
    line = pilot.app.screen.query_one(QueryBar)
    line.input.focus()
    samples = []
    for query in QUERIES:
        line.input.value = ""
        await pilot.pause()
        for char in query:
            samples.append(await _timed(pilot, lambda c=char: pilot.press(c), "key"))
        samples.append(await _timed(pilot, lambda: pilot.press("backspace"), "key"))
    return samples


async def _noop(pilot: Pilot) -> list[float]:
    """The floor: a key nothing is bound to."""
    return [await _timed(pilot, lambda: pilot.press("f12"), "noop") for _ in range(20)]


async def _toggles(pilot: Pilot, package: str | None, measure: str) -> list[float]:
    browser = pilot.app.browser
    browser.open_package(package)
    await pilot.pause()
    samples = []
    for facet in TOGGLED_FACETS:
        counts = facet_counts(browser.corpus, Query(package, {}), facet)
        for value in sorted(counts, key=counts.get, reverse=True)[:2]:
            samples.append(await _timed(pilot, lambda f=facet, v=value: _toggle(browser, f, v), measure))
            samples.append(await _timed(pilot, lambda f=facet, v=value: _toggle(browser, f, v), measure))
    return samples


async def _toggle(browser, facet: str, value: str) -> None:  # noqa: ANN001
    browser.toggle_filter(facet, value)


async def _page_downs(pilot: Pilot) -> list[float]:
    pilot.app.browser.open_package(None)
    await pilot.pause()
    pilot.app.screen.query_one(SpecTable).focus()
    return [await _timed(pilot, lambda: pilot.press("pagedown"), "page") for _ in range(PAGE_DOWNS)]


async def drive(root: Path) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as cache_home:
        import os

        os.environ["XDG_CACHE_HOME"] = cache_home
        app = CacheTuiApp([str(root)], system_clipboard=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            corpus = app.browser.corpus
            biggest = max(range(len(corpus.packages)), key=lambda p: -(lambda r: r[0] - r[1])(corpus.package_ranges[p]))
            WALL.clear()
            return {
                "noop": await _noop(pilot),
                "key": await _keystrokes(pilot),
                "facet_pkg": await _toggles(pilot, corpus.packages[biggest], "facet_pkg"),
                "facet_all": await _toggles(pilot, None, "facet_all"),
                "page": await _page_downs(pilot),
            }
