"""The `/` line speaks Spack: spec queries, hash jumps, "runs on", and what differs between rows."""

from __future__ import annotations

from pathlib import Path

import pytest

import cachetui.app.answers as answers_module
import cachetui.app.screens.browser as browser_module
from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine, render_status
from cachetui.core.query.query import Query
from cachetui.core.spack.targets import Host
from cachetui.present.browse.answer import RecentAnswers, answer
from cachetui.present.spec_table.table_layout import COLUMNS
from tests.app.helpers import type_query, wait_for, wait_loaded
from tests.conftest import listing, spec_entry
from tests.spec_tree import BINARIES, hash_of, write_tree
from tests.test_spec_queries import EXPECTED


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


def _app(tree: Path) -> CacheTuiApp:
    return CacheTuiApp([str(tree)], system_clipboard=False)


def _labels(app: CacheTuiApp) -> set[str]:
    table = app.screen.query_one(SpecTable)
    by_hash = {hash_of(label): label for label in BINARIES}
    return {by_hash[app.browser.corpus.hashes[int(i)]] for i in table.data.indices}


def _status(app: CacheTuiApp) -> str:
    return render_status(app.screen.query_one(StatusLine).status).plain


def _problem(app: CacheTuiApp) -> str | None:
    return app.screen.query_one(QueryBar).problem


@pytest.mark.parametrize("text", ["hdf5@1.14: +mpi target=x86_64_v3 %gcc", "+mpi ~cuda", "cuda_arch=80",
                                  "kokkos@=4.3.01", "%oneapi", "@:1.0"])
async def test_a_spec_query_narrows_the_table_as_the_cli_does(tree: Path, text: str) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, text)
        assert _labels(app) == EXPECTED[text] and _problem(app) is None
        assert f"{len(EXPECTED[text])} of " in _status(app)
        assert app.focused is app.screen.query_one(SpecTable)  # Enter went to the results


async def test_the_status_line_shows_the_query_as_understood(tree: Path) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 -cuda ++mpi cuda_arch==80")
        status = _status(app)
        assert "spec: hdf5 ~cuda +mpi cuda_arch=80" in status and "0 of 11 specs" in status
        await type_query(pilot, "hdf5 -cuda ++mpi")
        assert "spec: hdf5 ~cuda +mpi" in _status(app) and "5 of 11 specs" in _status(app)


async def test_the_package_list_holds_the_packages_with_matches(tree: Path) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "+cuda")
        packages = app.screen.query_one(PackageList)
        listed = [packages.rows.package(row) for row in range(1, len(packages.rows))]
        assert listed == ["hdf5", "kokkos"] and packages.state.counts == {"hdf5": 1, "kokkos": 3}
        await type_query(pilot, "")  # back to a package search: every package again
        assert len(packages.rows) == 1 + len({b[0] for b in BINARIES.values()})


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("hdf5 %", "column 6: '%' must be followed by a compiler"),
        ("hfd5 +mpi", "unknown package 'hfd5'; did you mean: hdf5?"),
        ("hdf5 +mip", "did you mean: mpi"),
        ("/zzzzzz", "no binary's hash starts with zzzzzz"),
        ("hdf5 ^zlib", "site documents record none"),
    ],
)
async def test_a_query_that_cannot_be_answered_says_why_and_keeps_the_last_answer(tree: Path, text: str,
                                                                                 says: str) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "zlib")  # a package search: Enter opens zlib
        before = _labels(app)
        await type_query(pilot, text)
        assert says in (_problem(app) or "")
        assert _labels(app) == before and app.browser.spec_query.spec is None  # not an empty table
        assert "zlib  │  5 of 5 specs" in _status(app)  # the status still describes the table
        assert app.focused is app.screen.query_one(QueryBar).input  # stay where the fix is typed


async def test_a_unique_hash_prefix_opens_that_binary_and_y_copies_it(tree: Path) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "/kexa")
        table = app.screen.query_one(SpecTable)
        assert app.browser.spec_query.package == "kokkos" and _labels(app) == {"kexact"}
        assert app.browser.corpus.hashes[table.current_spec] == hash_of("kexact")
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == hash_of("kexact")


async def test_an_ambiguous_hash_prefix_lists_the_candidates(tree: Path) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "zlib")
        await type_query(pilot, "/pfxaaa")  # across every package, whatever was open
        assert app.browser.spec_query.package is None and _labels(app) == {"pfxaaab", "pfxaaac"}


async def test_the_query_follows_typing_once_it_pauses(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    original = browser_module.BrowserScreen._use_text
    monkeypatch.setattr(browser_module.BrowserScreen, "_use_text",
                        lambda self, text: (asked.append(text), original(self, text))[1])
    monkeypatch.setattr(QueryBar, "DEBOUNCE_S", 1.0)  # longer than any pause between two keys, even on a busy CI
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *"kokkos +cuda")  # no Enter
        await wait_for(pilot, lambda: app.browser.spec_query.spec is not None)
        assert _labels(app) == {"kexact", "kboth", "kninety"}
        # "kokkos" went through as a package search, then the spec once, not at every character
        assert asked[-1] == "kokkos +cuda" and not any("+" in text for text in asked[:-1])


async def test_runs_on_this_machine_toggles_and_names_it(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_module, "host", lambda: Host("linux", "neoverse_v2"))
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert "runs on this neoverse_v2" in _status(app)
        assert _labels(app) == {"hvtwo", "hnone", "haarch"}  # not neoverse_v1, not x86_64, not darwin's m1
        await pilot.press("r")
        await pilot.pause()
        assert "runs on" not in _status(app) and len(_labels(app)) == len(BINARIES)


async def test_differs_tells_apart_rows_that_look_alike(tmp_path: Path) -> None:
    specs = [spec_entry(c * 32, variants=["+mpi", "build_type=Release", f"{sign}shared", "cuda_arch:=80"])
             for c, sign in (("a", "+"), ("b", "~"))]
    path = tmp_path / "_cache" / "develop" / "hdf5" / "specs.md"
    path.parent.mkdir(parents=True)
    path.write_text(listing("hdf5", "develop", specs))
    app = _app(tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5")
        table = app.screen.query_one(SpecTable)
        lines = [table.render_line(y).text for y in range(4)]
        assert lines[0].startswith(
            "common: hdf5@1.2.3 %gcc@13.2.0 arch=linux-ubuntu24.04-x86_64_v3 +mpi build_type=Release cuda_arch:=80 "
            "(tag develop)")
        titles = lines[1].split()
        assert "differs" in titles and "version" not in titles  # alike in every row: said once above
        differs = lines[1].index("differs")
        assert [line[differs:differs + 8].strip() for line in lines[2:]] == ["+shared", "~shared"]


async def test_columns_can_be_chosen(tree: Path) -> None:
    app = _app(tree)
    async with app.run_test(size=(240, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5")
        table = app.screen.query_one(SpecTable)
        assert "variants" not in table.render_line(1).text.split()
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ColumnsDialog)
        for _ in range([c.key for c in COLUMNS].index("variants")):
            await pilot.press("down")
        await pilot.press("space", "escape")
        await pilot.pause()
        assert "variants" in table.render_line(1).text.split()


async def test_big_corpora_answer_off_the_ui_thread_and_only_the_latest_answer_lands(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        screen = app.browser
        delivered: list[object] = []
        original = screen._deliver
        monkeypatch.setattr(screen, "_deliver",
                            lambda q, s, view, found: (delivered.append(q), original(q, s, view, found)))
        await pilot.press("escape", "slash", *"zlib", "enter")  # a package, then a spec at once
        await type_query(pilot, "zlib +pic")
        await wait_for(pilot, lambda: app.screen.query_one(SpecTable).data is not None and _labels(app) ==
                       {"zancient", "zzero", "ztwo", "zthree"})
        assert "updating" not in _status(app)
        assert delivered[-1] == screen.spec_query


async def test_an_answer_queued_behind_a_newer_one_is_dropped_unread(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        screen = app.browser
        delivered: list[object] = []
        monkeypatch.setattr(screen, "_deliver", lambda q, s, view, found: delivered.append(q))
        older, newer = Query("zlib"), Query("hdf5")
        found = answer(screen.corpus, newer, screen.browsing.sort, RecentAnswers(),
                                      screen.browsing.view)
        # Two workers' answers both waiting in the screen's queue, as when keys outrun the workers.
        screen.post_message(answers_module.Arrived(older, screen.browsing.sort, screen.browsing.view, found,
                                                   screen.corpus))
        screen.post_message(answers_module.Arrived(newer, screen.browsing.sort, screen.browsing.view, found,
                                                   screen.corpus))
        await pilot.pause()
        assert delivered == [newer]
