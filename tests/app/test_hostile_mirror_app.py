"""The browser on a hostile mirror beside a good one: values that try to break lines, and a password.

Served from 127.0.0.1 (tests/hostile_server.py): nothing reaches the internet.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.copy_menu import CopyMenu, spec_copy_choices
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import open_package, wait_loaded
from tests.app.test_hostile_app import screen_text
from tests.hostile_server import EVIL_HASH, PASSWORD, USER, HostileServer, evil_index, serve_hostile
from tests.mirrors import DB7, DB8, index_bytes, v2_mirror, v3_mirror
from tests.test_hostile import unsafe_chars


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[HostileServer]:
    root = tmp_path / "www"
    root.mkdir()
    v3_mirror(root / "develop", evil_index(index_bytes(DB8)))
    v2_mirror(root / "good", DB7)
    yield from serve_hostile(root)


async def test_hostile_values_and_a_password_never_reach_the_screen(hostile: HostileServer) -> None:
    sources = [hostile.at("good"), hostile.with_credentials("private/develop"), hostile.with_credentials("private/gone")]
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        corpus = app.browser.corpus
        assert corpus.n_specs == 2 + 6  # the good mirror, and every record of the hostile one
        await open_package(pilot, "libdwarf")
        table = app.screen.query_one(SpecTable)
        table.focus()
        table.select_spec(corpus.occurrences(EVIL_HASH)[0])
        await pilot.pause()
        shown = screen_text(app)
        assert unsafe_chars(shown) == set() and PASSWORD not in shown
        assert "test-ubuntu\\x0a22.04\\x1b]0;PWNED\\x07-m1" in shown  # the arch: whole, on one line
        assert not any(line.lstrip("▏ ").startswith("22.04") for line in shown.splitlines())
        rows = app.screen.query_one(DetailPane).source
        assert isinstance(rows, DetailRows)
        lines = [text.plain for text, _ in rows.rows]
        evil = [line for line in lines if "evil" in line]
        assert len(evil) == 1 and "x\\x0a+cuda\\x0ahash" in evil[0]  # one variant, on one line
        assert not any(line.split()[:2] == ["on", "cuda"] for line in lines if line.strip())
        assert not any(line.lstrip().startswith("hash ") and "abcdefgh" in line for line in lines)
        assert any(f"{USER}:***@127.0.0.1" in line for line in lines)  # the source, its password redacted
        await pilot.press("l")  # the `spack find` view
        await pilot.pause()
        shown = screen_text(app)
        assert unsafe_chars(shown) == set() and "\\x0a+cuda" in shown
        await pilot.press("l", "c")
        await pilot.pause()
        assert isinstance(app.screen, CopyMenu)
        shown = screen_text(app)
        assert unsafe_chars(shown) == set() and PASSWORD not in shown
        assert all(PASSWORD not in text and "127.0.0.1" not in text for _, text in spec_copy_choices(corpus.spec(
            corpus.occurrences(EVIL_HASH)[0])))
        await pilot.press("escape", "p")
        await pilot.pause()
        assert isinstance(app.screen, ProblemsScreen)
        shown = screen_text(app)
        assert PASSWORD not in shown and f"{USER}:***@127.0.0.1" in shown and unsafe_chars(shown) == set()
