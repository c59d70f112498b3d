"""The browser on a tree of broken and hostile documents."""

from __future__ import annotations

import os
from pathlib import Path

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.present.inert import inert
from tests.app.helpers import open_package, toggle_facet, wait_loaded
from tests.hostile import HOSTILE, HOSTILE_HASH, HOSTILE_PACKAGE, write_hostile_tree
from tests.test_hostile import unsafe_chars


def screen_text(app: CacheTuiApp) -> str:
    """Every character the compositor would send for the current screen."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def tree_state(root: Path) -> dict[str, tuple[bytes, int]]:
    state = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                state[path] = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
    return state


async def test_hostile_text_is_inert_everywhere_and_the_tree_is_untouched(tmp_path: Path) -> None:
    write_hostile_tree(tmp_path)
    before = tree_state(tmp_path)
    app = CacheTuiApp([str(tmp_path)], system_clipboard=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        assert app.browser.corpus.packages[0] == HOSTILE_PACKAGE
        await open_package(pilot, "evil")
        assert app.browser.spec_query.package == HOSTILE_PACKAGE
        await toggle_facet(pilot, "os", HOSTILE["osc52"])
        app.screen.query_one(SpecTable).focus()
        shown = screen_text(app)
        assert unsafe_chars(shown) == set()
        assert "[bold red]loud[/]" in shown  # markup shown literally, not applied
        assert inert(HOSTILE_HASH) in shown  # the full hash, visibly escaped, in the detail pane
        assert inert(HOSTILE["osc52"])[:20] in shown
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == inert(HOSTILE_HASH)  # exactly what is displayed
        assert unsafe_chars(screen_text(app)) == set()  # the notification too
        await pilot.press("p")
        assert isinstance(app.screen, ProblemsScreen)
        shown = screen_text(app)
        assert unsafe_chars(shown) == set()
        for name in ("empty", "unterminated", "invalid_json_meta", "alias_bomb", "python_tag"):
            assert f"/{name}/specs.md" in shown
        assert inert("name" + HOSTILE["osc0"]) in shown  # a hostile file *name*, shown inert
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        assert unsafe_chars(screen_text(app)) == set()
    assert tree_state(tmp_path) == before
