"""Painted rows a list forgets are freed, even when the list was made before the corpus froze."""

from __future__ import annotations

import gc

from textual.strip import Strip

from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import sample_app, wait_loaded


async def test_rows_painted_and_forgotten_are_freed_after_a_freeze() -> None:
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("tab")
        await pilot.pause()
        table = app.screen.query_one(SpecTable)
        gc.freeze()  # as a load does, once the corpus is built: the table and its caches are frozen too
        try:
            await pilot.press("pagedown", "pagedown")
            await pilot.pause()
            top = int(table.scroll_offset.y)
            on_screen = range(top, top + table.size.height)  # also held by Textual's own line cache
            # Strips take no weak references: they are told apart by id while nothing paints.
            ahead = [key for key in table._lines.keys() if key[0] not in on_screen]
            painted = {id(table._lines.get(key, Strip.blank)) for key in ahead}
            assert len(painted) > 10  # the pages painted ahead, above and below
            table.forget_rows()  # as a new answer does
            gc.collect()
            assert not painted & {id(o) for o in gc.get_objects() if isinstance(o, Strip)}
        finally:
            gc.unfreeze()
