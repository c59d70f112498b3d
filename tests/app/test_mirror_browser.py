"""The browser on a mirror served over loopback HTTP: progress, dependencies, "used by", jumps, copying."""

from __future__ import annotations

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.screens.browser import BrowserScreen
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import open_package, wait_loaded
from tests.mirrors import DB8, MirrorServer, index_bytes, v3_mirror

LIBDWARF_M1 = "u5uz3dcch5if4eve4sef67o2rf2lbfgh"
LIBELF_M1 = "jr3yipyxyjulcdvckwwwjrrumis7glpa"


def _detail_text(app: CacheTuiApp) -> list[str]:
    rows = app.screen.query_one(DetailPane).source
    assert isinstance(rows, DetailRows)
    return [text.plain for text, _ in rows.rows]


async def _select(pilot, hash_: str) -> None:  # noqa: ANN001
    table = pilot.app.screen.query_one(SpecTable)
    table.focus()
    table.select_spec(pilot.app.browser.corpus.occurrences(hash_)[0])
    await pilot.pause()


async def test_a_mirror_opens_with_progress_and_shows_dependencies(
    mirror_server: MirrorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    v3_mirror(mirror_server.root / "develop", index_bytes(DB8))
    shown: list[str] = []
    original = BrowserScreen.show_progress
    monkeypatch.setattr(BrowserScreen, "show_progress",
                        lambda self, done, total, what: (shown.append(what), original(self, done, total, what)))
    app = CacheTuiApp([mirror_server.at("develop")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert shown[:1] == ["downloading the develop index"] and "reading the develop index" in shown
        await open_package(pilot, "dwarf")  # fuzzy
        assert app.browser.spec_query.package == "libdwarf"
        await _select(pilot, LIBDWARF_M1)
        text = "\n".join(_detail_text(app))
        assert "libelf@0.8.13 /jr3yipy" in text and "gcc-runtime@10.2.1 /izgzpze" in text
        assert "compiler-wrapper" not in text  # a build-only edge: hidden until asked for
        app.screen.query_one(DetailPane).focus()
        await pilot.press("b")
        await pilot.pause()
        assert "compiler-wrapper@1.0 /qeehcxy" in "\n".join(_detail_text(app))
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == LIBDWARF_M1


async def test_used_by_lists_the_dependents_and_enter_jumps(mirror_server: MirrorServer) -> None:
    v3_mirror(mirror_server.root / "develop", index_bytes(DB8))
    app = CacheTuiApp([mirror_server.at("develop")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "libelf")
        await _select(pilot, LIBELF_M1)
        lines = _detail_text(app)
        users = lines[lines.index(next(line for line in lines if line.startswith("used by"))) + 1:]
        assert [u.split()[0] for u in users] == ["libdwarf@20130729"]  # the m1 libdwarf links it
        pane = app.screen.query_one(DetailPane)
        pane.focus()
        pane.cursor = len(lines) - 1
        await pilot.press("enter")  # jump to libdwarf
        await pilot.pause()
        table = app.screen.query_one(SpecTable)
        assert app.browser.spec_query.package == "libdwarf"
        assert app.browser.corpus.hashes[table.current_spec] == LIBDWARF_M1
        await pilot.press("backspace")  # and back
        await pilot.pause()
        assert app.browser.corpus.hashes[table.current_spec] == LIBELF_M1


async def test_a_missing_mirror_says_so_and_does_not_hang(mirror_server: MirrorServer) -> None:
    app = CacheTuiApp([mirror_server.at("nothing")], system_clipboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        status = app.screen.query_one("#status").render()
        assert "Nothing could be loaded: 1 error (p shows them)" in str(status)
