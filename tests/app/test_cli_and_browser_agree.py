"""The browser and the CLI give one answer and one message for the same question."""

from __future__ import annotations

import json

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.cli.main import main
from cachetui.core.query.query import match
from tests import dag_mirror
from tests.app.helpers import open_package, type_query, wait_for, wait_loaded
from tests.spec_tree import write_tree

# Twenty questions, asked of site documents and a mirror loaded together. Each is typed in the
# browser's query line, one after another in one session, and asked of `cachetui query --spec`.
QUERIES = [
    "hdf5@1.14: +mpi target=x86_64_v3 %gcc",  # a name scopes this query only: the next ones look everywhere
    "+mpi ~cuda",
    "cuda_arch=80",
    "kokkos@=4.3.01",
    "%oneapi",
    "@:1.0",
    "hdf5 %gcc@13",
    "target=aarch64:",
    "zlib target=:x86_64_v2",
    "/pfxaaa",
    "^curl",
    "^[deptypes=link] zlib",
    "curl ^perl",
    "hdf5 %gcc@14",  # no gcc 14 for hdf5
    "HDF5 +mpi",  # no such package: hdf5 is near
    "/zzzzzz",
    "hdf5 +cuda %gcc",  # each part exists, not together
    "hdf5 foo=bar",
    "%gcc@99",
    "hdf5 %gcc +mpi",  # Spack 1.x: +mpi is gcc's
]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("trust-browser")
    return [str(write_tree(root / "site")), str(dag_mirror.write_mirror(root / "mirror"))]


def _cli(capsys: pytest.CaptureFixture[str], sources: list[str], text: str) -> tuple[set[tuple[str, str]], str]:
    main(["query", *sources, "--no-cache", "--format", "json", "--spec", text])
    out, err = capsys.readouterr()  # a usage error (exit 2) prints no list: it is no answer
    return {(row["hash"], row["tag"]) for row in json.loads(out or "[]")}, err.strip().removeprefix("cachetui: ")


def _shown(app: CacheTuiApp) -> set[tuple[str, str]]:
    corpus, table = app.browser.corpus, app.screen.query_one(SpecTable)
    return {(corpus.hashes[int(i)], corpus.spec(int(i)).tag) for i in table.data.indices}


async def test_twenty_questions_get_the_same_answers_and_messages_in_the_cli_and_the_browser(
        capsys: pytest.CaptureFixture[str], sources: list[str]) -> None:
    expected = [_cli(capsys, sources, text) for text in QUERIES]
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        bar = app.screen.query_one(QueryBar)
        corpus = app.browser.corpus
        for text, (answer, message) in zip(QUERIES, expected):
            await type_query(pilot, text)
            said = bar.problem or bar.note or ""
            assert said == message, text
            if bar.problem is None:
                assert _shown(app) == answer, text
            else:  # the table keeps the last answer it had (whatever was typed before), never going empty
                kept = {(corpus.hashes[i], corpus.spec(i).tag) for i in match(corpus, app.browser.applied_query)}
                assert answer == set() and _shown(app) == kept != set(), text
    answered = sum(1 for answer, _ in expected if answer)
    assert answered >= 12 and len(QUERIES) == 20


async def test_a_package_named_by_one_query_does_not_scope_the_next(capsys: pytest.CaptureFixture[str],
                                                                   sources: list[str]) -> None:
    everywhere, _ = _cli(capsys, sources, "cuda_arch=80")
    in_kokkos, _ = _cli(capsys, sources, "kokkos cuda_arch=80")  # before the app runs: it takes over stdout
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 +mpi")
        await type_query(pilot, "cuda_arch=80")
        assert _shown(app) == everywhere and len({h for h, _ in everywhere}) > 1
        await open_package(pilot, "kokkos")  # opened from the list: that scopes a query without a name
        await type_query(pilot, "cuda_arch=80")
        assert _shown(app) == in_kokkos != everywhere


async def test_a_new_answer_opens_at_its_first_row(sources: list[str]) -> None:
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(120, 24)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        table.focus()
        await pilot.press("G")  # the last row: the view scrolls down
        await pilot.pause()
        assert table.scroll_offset.y > 0
        await pilot.press("r")  # another answer
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert table.cursor == 0 and table.scroll_offset.y == 0


async def test_the_column_chooser_repaints_every_row_at_once(sources: list[str]) -> None:
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5")  # a spec query naming a package: many rows
        table = app.screen.query_one(SpecTable)
        rows_before = [table.render_line(y).text for y in range(3, 8)]
        assert any("ubuntu22.04" in row for row in rows_before)
        app.screen.hidden_columns = app.screen.hidden_columns | {"os"}
        await pilot.pause()
        rows_after = [table.render_line(y).text for y in range(3, 8)]
        assert not any("ubuntu22.04" in row for row in rows_after) and rows_after != rows_before
        assert ColumnsDialog  # the dialog sets the same attribute (tests/app/test_spec_query_browser.py)


async def test_the_empty_table_hint_names_x_only_when_it_acts(sources: list[str]) -> None:
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "hdf5 +cuda %gcc")
        table = app.screen.query_one(SpecTable)
        assert table.row_count == 0 and "x clears" not in table.render_line(0).text
        assert app.screen.check_action("route", ("browser.clear",)) is False  # `x` is handed on by its row's id
        assert "x" not in app.screen.active_bindings


async def test_the_copy_menu_names_the_mirror_a_binary_was_loaded_from(sources: list[str]) -> None:
    site, mirror = sources
    app = CacheTuiApp([site, f"mysite={mirror}"], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "git")
        await wait_for(pilot, lambda: app.screen.query_one(SpecTable).current_spec is not None)
        await pilot.press("c")
        await pilot.pause()
        menu = app.screen
        assert isinstance(menu, CopyMenu)
        lines = [text for _, text in menu.values]
        assert f"spack mirror add mysite {mirror}" in lines
        await pilot.press("escape")
        await type_query(pilot, "kokkos@=4.3.01")
        await pilot.press("c")
        await pilot.pause()
        lines = [text for _, text in app.screen.values]
        assert "spack mirror add spack-build-cache-develop https://binaries.spack.io/develop" in lines
