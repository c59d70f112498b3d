"""The browser on a mirror served over loopback HTTP: progress, dependencies, "used by", jumps, copying."""

from __future__ import annotations

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.core.load.sample import sample_path
from tests.app.helpers import open_package, wait_loaded
from tests.conftest import SEED_FILES
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
    said: list[str] = []  # every word of the load, in order, as the screen's thread gets it
    original = CacheTuiApp._show_progress
    monkeypatch.setattr(CacheTuiApp, "_show_progress",
                        lambda self, done, total, what: (said.append(what), original(self, done, total, what)))
    app = CacheTuiApp([mirror_server.at("develop")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        # Not what the browser showed: a word said before it is mounted is kept only if it is the last one so far
        # (`_placed` shows what the load said last), and on a busy machine the download's comes first.
        await wait_loaded(pilot)
        assert said[:2] == ["opening the sources", "downloading the develop index"]  # said before the download
        assert "reading the develop index" in said
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


@pytest.mark.parametrize("with_listings", [False, True], ids=["a mirror", "a mirror and listings"])
async def test_the_status_line_counts_a_mirror_as_a_mirror_not_among_the_documents(
        tmp_path, with_listings) -> None:  # noqa: ANN001
    mirror = tmp_path / "mirror"
    v3_mirror(mirror, index_bytes(DB8))
    sources = [str(mirror), *([str(sample_path())] if with_listings else [])]
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_loaded(pilot)
        corpus = app.browser.corpus
        mirror_specs = sum(doc.stop - doc.start for doc in corpus.documents if doc.from_mirror)
        assert mirror_specs and len([doc for doc in corpus.documents if doc.from_mirror]) > 1  # a document a package
        summary = app.screen.query_one(StatusLine).render().plain.rsplit("│", 1)[1].strip()
        listings = f"{len(SEED_FILES)} docs · " if with_listings else ""
        assert summary.startswith(f"{listings}1 mirror · {corpus.n_specs} specs")
