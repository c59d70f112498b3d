"""Regenerate the SVG screenshots in screenshots/ from the bundled sample: `make screenshots`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.facet_panel import FacetPanel, Kind
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.sample import sample_path

OUT = Path(__file__).resolve().parent.parent / "screenshots"
Step = Callable[[Pilot], Awaitable[None]]


async def _open_mpi4py(pilot: Pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("slash", *"mpi4", "enter")
    await pilot.pause()


async def _filter(pilot: Pilot) -> None:
    await _open_mpi4py(pilot)
    panel = pilot.app.screen.query_one(FacetPanel)
    for facet, value in (("compiler", "gcc@13.2.0"), ("target", "aarch64")):
        panel.cursor = next(i for i, e in enumerate(panel.entries) if (e.kind, e.facet, e.value) == (Kind.VALUE, facet, value))
        panel.action_select()
        await pilot.pause()
    pilot.app.screen.query_one(SpecTable).focus()
    await pilot.press("j")
    await pilot.pause()


async def _press(pilot: Pilot, *keys: str) -> None:
    await _open_mpi4py(pilot)
    await pilot.press(*keys)
    await pilot.pause()


async def _dependencies(pilot: Pilot) -> None:
    """A mirror's spec: its dependency tree with build edges, and what uses it."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("slash", *"libelf", "enter")
    await pilot.pause()
    table = pilot.app.screen.query_one(SpecTable)
    corpus = pilot.app.browser.corpus
    table.cursor = next(row for row, i in enumerate(table.data.indices) if corpus.spec(int(i)).target == "m1")
    await pilot.press("enter", "b", "G")
    await pilot.pause()


SHOTS: dict[str, tuple[tuple[int, int], Step]] = {
    "browser-120x40": ((120, 40), _filter),
    "browser-80x24": ((80, 24), _open_mpi4py),
    "facets-80x24": ((80, 24), lambda p: _press(p, "f")),
    "copy-menu": ((120, 40), lambda p: _press(p, "c")),
    "tag-picker": ((120, 40), lambda p: _press(p, "t")),
    "help": ((120, 40), lambda p: _press(p, "question_mark")),
    "mirror-dependencies": ((120, 40), _dependencies),
}
# What each screenshot opens: the bundled sample, or a real Spack index (a test fixture) as mirror `develop`.
INPUTS = {"mirror-dependencies": ["develop=tests/fixtures/mirrors/db-v8/v2_layout/unsigned"]}


async def shoot(name: str, size: tuple[int, int], step: Step) -> None:
    app = CacheTuiApp(INPUTS.get(name, [str(sample_path())]), system_clipboard=False, use_cache=False)
    async with app.run_test(size=size) as pilot:
        await step(pilot)
        app.save_screenshot(str(OUT / f"{name}.svg"))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, (size, step) in SHOTS.items():
        asyncio.run(shoot(name, size, step))
        print(f"screenshots/{name}.svg")


if __name__ == "__main__":
    main()
