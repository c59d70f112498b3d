"""The browser's state stays one state: the query line, the package list and the table agree, and
the focus is where the user's next keys belong, whether answers come at once or from a worker."""

from __future__ import annotations

from pathlib import Path

import pytest

import cachetui.app.answers as browser_module
from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import open_package, sample_app, toggle_facet, wait_for, wait_loaded
from tests.conftest import SEED_FILES, read_seed_specs
from tests.mirrors import DB8, v2_mirror
from tests.spec_tree import write_tree

LIBDWARF_M1 = "u5uz3dcch5if4eve4sef67o2rf2lbfgh"  # links libelf jr3yipy (m1), which has a core2 sibling


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path)


def _app(root: Path) -> CacheTuiApp:
    return CacheTuiApp([str(root)], system_clipboard=False)


@pytest.mark.parametrize("text", ["hdf5 +mip", "hdf5 target=nosuchtarget", "hfd5 +mpi", "/zzzzzz",
                                  "hdf5 ^zlib"])
async def test_enter_on_a_refused_query_keeps_the_focus_in_the_line_when_a_worker_answers(
        tree: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    # Over INLINE_SPECS specs answers come from a worker; the threshold is all that decides it.
    monkeypatch.setattr(browser_module, "INLINE_SPECS", 0)
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *text, "enter")
        bar = app.screen.query_one(QueryBar)
        await wait_for(pilot, lambda: bar.problem is not None)
        await wait_loaded(pilot)
        assert app.focused is bar.input
        await pilot.press("q")  # a letter typed now fixes the query: it never quits
        await pilot.pause()
        assert app.is_running and bar.text == text + "q"


async def test_enter_on_an_answered_query_moves_to_the_table_when_a_worker_answers(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_module, "INLINE_SPECS", 0)
    app = _app(tree)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *"hdf5 +mpi", "enter")
        table = app.screen.query_one(SpecTable)
        await wait_for(pilot, lambda: app.focused is table)
        assert app.browser.applied_query.spec is not None and table.row_count == 10


def _state(app: CacheTuiApp) -> dict[str, object]:
    """What the user sees of the browser's state: the line, the package list and the table."""
    packages, table = app.screen.query_one(PackageList), app.screen.query_one(SpecTable)
    rows = packages.rows
    assert rows is not None and table.current_spec is not None
    corpus = app.browser.corpus
    return {
        "line": app.screen.query_one(QueryBar).text,
        "listed": [rows.package(row) for row in range(1, len(rows))],
        "list cursor": rows.package(packages.options.cursor),
        "table package": {corpus.spec(int(i)).package for i in table.data.indices},
        "table rows": len(table.data.indices),
        "selected": corpus.hashes[table.current_spec],
    }


async def _jump_to_dependency(pilot, name: str) -> None:  # noqa: ANN001
    """From the table's selected row: Enter to the details, down to the dependency `name`, Enter."""
    await pilot.press("enter")
    pane = pilot.app.screen.query_one(DetailPane)
    assert pilot.app.focused is pane
    while not pane.row_text(pane.cursor, pane.content_width).plain.lstrip().startswith(name + "@"):
        assert pane.cursor < pane.row_count - 1, f"no dependency {name} in the details"
        await pilot.press("down")
    await pilot.press("enter")
    await wait_loaded(pilot)


async def _select(pilot, hash_: str) -> None:  # noqa: ANN001
    """Move the table's cursor down to the row of `hash_`."""
    table = pilot.app.screen.query_one(SpecTable)
    while pilot.app.browser.corpus.hashes[table.current_spec] != hash_:
        assert table.cursor < table.row_count - 1
        await pilot.press("down")


@pytest.mark.parametrize(("typed", "dependency"), [("libdw", "libelf"), ("libdw", "gcc-runtime"),
                                                  ("libdwarf target=m1", "libelf"), ("target=m1", "libelf")])
async def test_backspace_after_a_jump_restores_the_line_the_list_and_the_table_together(
        tmp_path: Path, typed: str, dependency: str) -> None:
    app = _app(v2_mirror(tmp_path / "develop", DB8))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *typed, "enter")  # a package search opens libdwarf; a spec query answers
        await wait_loaded(pilot)
        if typed == "target=m1":
            await pilot.press("escape", "down", "down", "down", "enter")  # libdwarf in the list of matches
            await wait_loaded(pilot)
        await _select(pilot, LIBDWARF_M1)
        before = _state(app)
        assert before["table package"] == {"libdwarf"} and before["list cursor"] == "libdwarf"

        await _jump_to_dependency(pilot, dependency)
        after = _state(app)
        assert after["table package"] == {dependency} and after["list cursor"] == dependency  # the list follows
        assert dependency in after["listed"]  # a package search that did not find it is cleared
        if dependency == "libelf":
            assert after["selected"].startswith("jr3yipy")
        if typed == "libdwarf target=m1":  # the query would hide libelf: cleared, and the line and list say so
            assert after["line"] == "" and after["table rows"] == 2
            assert after["listed"] == ["compiler-wrapper", "gcc-runtime", "libdwarf", "libelf"]

        await pilot.press("backspace")
        await wait_loaded(pilot)
        assert _state(app) == before


def _listed(app: CacheTuiApp) -> dict[str, int]:
    """The package list's rows below "All packages": name -> the count it shows."""
    rows = app.screen.query_one(PackageList).rows
    assert rows is not None
    return {name: int(rows.text(row, 40).plain.split()[-1]) for row in range(1, len(rows))
            for name in [rows.package(row)] if name is not None}


def _seed_counts(compiler: str) -> dict[str, int]:
    """Per package of the bundled sample, its binaries built with `compiler` (read without the loader)."""
    counts: dict[str, int] = {}
    for path in SEED_FILES:
        title, specs = read_seed_specs(path)
        found = sum(spec["compiler"].replace("@=", "@") == compiler for spec in specs)
        if found:
            counts[title] = counts.get(title, 0) + found
    return counts


async def test_under_a_facet_filter_the_package_list_holds_only_the_packages_with_matches() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        everything = _listed(app)
        await toggle_facet(pilot, "compiler", "gcc@11.1.0")
        assert _listed(app) == _seed_counts("gcc@11.1.0") == {"py-mpi4py": 5, "py-pdm-backend": 7}
        await pilot.press("escape", "slash", *"safetensors")  # a package search finds any package, its count 0
        await pilot.pause()
        assert _listed(app) == {"py-safetensors": 0}
        await pilot.press("ctrl+u")  # no search: the packages with matches again
        await pilot.pause()
        assert _listed(app) == {"py-mpi4py": 5, "py-pdm-backend": 7}
        await pilot.press("escape", "x")  # x clears the filter: every package again
        await wait_loaded(pilot)
        await pilot.press("slash", "ctrl+u", "escape")
        await pilot.pause()
        assert _listed(app) == everything


async def test_the_package_open_stays_listed_when_a_filter_leaves_it_no_match() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")  # only in tag develop
        await pilot.press("slash", "ctrl+u", "escape")  # the search is done: the list holds every package
        await pilot.press("t", "down", "down", "enter")  # All, develop, develop-2025-04-20
        await wait_loaded(pilot)
        packages = app.screen.query_one(PackageList)
        assert _listed(app) == {"py-ml-dtypes": 12, "py-mpi4py": 0}
        assert packages.rows.package(packages.options.cursor) == "py-mpi4py"  # where the table is
