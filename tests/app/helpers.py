"""Driving the app in tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual import events
from textual.command import CommandList
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.facet_panel import FacetPanel, Kind
from cachetui.app.widgets.status_line import StatusLine
from cachetui.core.load.sample import sample_path


def sample_app() -> CacheTuiApp:
    return CacheTuiApp([str(sample_path())], system_clipboard=False)


async def wait_loaded(pilot: Pilot) -> None:
    """The workers done, and the answer they gave shown whole: a corpus's first answer draws its package list first
    and its table a frame later (the status line says "updating…" until then)."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    statuses = pilot.app.browser.query(StatusLine) if isinstance(pilot.app, CacheTuiApp) else []
    for _ in range(200):
        if not any(line.status.busy for line in statuses):
            return
        await pilot.pause()
    raise AssertionError("the answer never showed whole")


async def open_package(pilot: Pilot, typed: str) -> None:
    """Escape to the package list (wherever the focus is), search, open the best match."""
    await pilot.press("escape", "slash", *typed, "enter")
    await pilot.pause()


async def toggle_facet(pilot: Pilot, facet: str, value: str) -> None:
    """Move the facet cursor onto a value and press Enter, as a user would."""
    panel = pilot.app.screen.query_one(FacetPanel)
    panel.focus()
    target = next(i for i, e in enumerate(panel.entries) if (e.kind, e.facet, e.value) == (Kind.VALUE, facet, value))
    while panel.cursor != target:
        await pilot.press("j" if panel.cursor < target else "k")
    await pilot.press("enter")
    await pilot.pause()


async def burst(pilot: Pilot, *keys: str) -> None:
    """Deliver keys back to back, as a terminal does when someone types fast (Pilot waits between keys)."""
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(pilot.app)
        pilot.app._driver.send_message(event)
    await pilot.pause()
    await pilot.pause()


async def wait_until(pilot: Pilot, condition: Callable[[], bool], rounds: int = 200) -> None:
    """Let the app process messages until `condition` holds (bounded, so a bug fails instead of hanging)."""
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause()
    raise AssertionError("condition never held")


async def wait_for(pilot: Pilot, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Like wait_until, for what waits on a timer or a thread: poll the condition until it holds or time is up."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition never held")
        await pilot.pause(0.01)


async def type_query(pilot: Pilot, text: str) -> None:
    """`/`, the text, Enter: the query applies at once (no waiting for typing to pause)."""
    await pilot.press("escape", "slash", "ctrl+u", *text, "enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def run_palette(pilot: Pilot, typed: str, first_hit: str) -> None:
    """Type into the command palette, wait until `first_hit` tops the list, and run it."""
    await pilot.press("ctrl+p", *typed)

    def top_is_expected() -> bool:
        lists = pilot.app.screen.query(CommandList)
        if not lists or lists.first().option_count == 0:
            return False
        return first_hit in str(lists.first().get_option_at_index(0).prompt)

    await wait_until(pilot, top_is_expected)
    await pilot.press("enter")
    await pilot.pause()


async def wait_compared(pilot: Pilot) -> None:
    """Loaded, and the coverage of `--want` worked out (its worker starts once the corpus arrives)."""
    from cachetui.app.widgets.coverage_view import CoverageView

    await wait_loaded(pilot)
    view = pilot.app.screen.query_one(CoverageView)
    await wait_for(pilot, lambda: view.state.coverage is not None)
    await pilot.pause()
