"""A screen that the keys opening it close again, as the user bound them (F2 opens help, F2 closes it)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen

from cachetui.app.actions import bound_keys


async def closed_by_opening_key(screen: Screen[Any], event: events.Key, opened_by: str, close: str) -> None:
    """From `screen.on_key`: a key bound to `opened_by` (a browser binding id) runs `close` on the screen.

    Its own rows close it on their default keys too (`?` for help); a key the user moved the opening
    binding to has no row there, so it is caught here, before the bindings (a key stopped here reaches none).
    """
    if event.key in bound_keys(screen.app, opened_by):
        event.stop()
        event.prevent_default()
        await screen.run_action(close)
