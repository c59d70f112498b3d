"""The browser driven through its keys, as a user drives it."""

from __future__ import annotations

import base64

import pytest

from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.dialogs.help import HelpScreen
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.dialogs.tag_picker import TagPicker
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.facet_panel import FacetPanel, Kind
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import render_status
from tests.app.helpers import open_package, run_palette, sample_app, toggle_facet, wait_loaded
from tests.conftest import SEED_FILES, read_seed_specs

MPI4PY = next(specs for path in SEED_FILES for title, specs in [read_seed_specs(path)] if title == "py-mpi4py")


def table_specs(app) -> list:  # noqa: ANN001
    table = app.screen.query_one(SpecTable)
    return [app.browser.corpus.spec(int(i)) for i in table.data.indices]


async def test_typing_ranks_packages_and_enter_opens_the_best_match() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *"mpi4pi")
        packages = app.screen.query_one(PackageList)
        assert packages.rows.package(packages.options.cursor) == "py-mpi4py"
        await pilot.press("enter")
        await pilot.pause()
        assert app.browser.spec_query.package == "py-mpi4py"
        assert len(table_specs(app)) == len(MPI4PY) == 91
        assert app.focused is app.screen.query_one(SpecTable)
        assert "91 of 91 specs" in render_status(app.screen.query_one("#status").status).plain


async def test_opening_a_package_and_two_facets_then_y_copies_the_exact_hash_by_osc52() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        written: list[str] = []
        original_write = app._driver.write
        app._driver.write = lambda data: (written.append(data), original_write(data))[1]
        await open_package(pilot, "mpi4")
        await toggle_facet(pilot, "compiler", "gcc@13.2.0")
        await toggle_facet(pilot, "target", "aarch64")
        shown = table_specs(app)
        expected = {s["hash"] for s in MPI4PY if s["compiler"] == "gcc@13.2.0" and s["target"] == "aarch64"}
        assert {s.hash for s in shown} == expected and len(shown) == len(expected) == 15
        app.screen.query_one(SpecTable).focus()
        await pilot.press("j", "j")
        selected = table_specs(app)[2].hash
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == selected and len(selected) == 32
        osc52 = "\x1b]52;c;" + base64.b64encode(selected.encode()).decode() + "\a"
        assert osc52 in written


async def test_facet_counts_follow_the_other_filters_and_x_clears_them() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        panel = app.screen.query_one(FacetPanel)
        assert panel.state.counts["target"]["aarch64"] == 19
        await toggle_facet(pilot, "compiler", "gcc@11.4.0")
        assert "aarch64" not in panel.state.counts["target"]  # no gcc@11.4.0 build for aarch64
        assert panel.state.counts["compiler"]["gcc@13.2.0"] == 30  # own facet ignores its own filter
        await toggle_facet(pilot, "compiler", "gcc@13.2.0")  # OR within the facet
        assert len(table_specs(app)) == 72
        active = next(i for i, e in enumerate(panel.entries) if e.kind is Kind.ACTIVE and e.value == "gcc@11.4.0")
        panel.cursor = active
        await pilot.press("enter")  # removes one filter from "Active filters"
        await pilot.pause()
        assert app.browser.spec_query.active() == {"compiler": frozenset({"gcc@13.2.0"})}
        await pilot.press("x")
        await pilot.pause()
        assert app.browser.spec_query.active() == {} and len(table_specs(app)) == 91


async def test_all_packages_entry_shows_every_spec() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "safetensor")
        assert app.browser.spec_query.package == "py-safetensors"
        await pilot.press("escape")  # back to the package list
        assert app.focused is app.screen.query_one(PackageList).options
        await pilot.press("home", "enter")
        await pilot.pause()
        assert app.browser.spec_query.package is None and len(table_specs(app)) == 362


async def test_tag_picker_chooses_one_tag_or_all() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mldtypes")
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, TagPicker)
        await pilot.press("down", "down", "enter")  # All, develop, develop-2025-04-20
        await pilot.pause()
        assert app.browser.spec_query.filters["tag"] == frozenset({"develop-2025-04-20"})
        assert len(table_specs(app)) == 12
        counts = app.screen.query_one(PackageList).state.counts
        assert counts["py-ml-dtypes"] == 12 and counts.get("py-mpi4py", 0) == 0
        await pilot.press("t", "home", "enter")
        await pilot.pause()
        assert "tag" not in app.browser.spec_query.filters


async def test_copy_menu_offers_hash_short_install_mirror_and_keys() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        spec = table_specs(app)[0]
        expected = [
            spec.hash,
            "/" + spec.hash[:7],
            "spack mirror add spack-build-cache-develop https://binaries.spack.io/develop",  # in the order they run
            "spack buildcache keys --install --trust",
            f"spack install /{spec.hash}",
        ]
        for number, text in enumerate(expected, 1):
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, CopyMenu)
            await pilot.press(str(number))
            await pilot.pause()
            assert app.clipboard == text
        await pilot.press("c", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, CopyMenu) and app.clipboard == expected[-1]


async def test_table_keys_move_sort_and_open_details() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        table = app.screen.query_one(SpecTable)
        await pilot.press("j", "j", "k")
        assert table.cursor == 1
        assert app.screen.query_one(DetailPane).detail.spec.hash == table_specs(app)[1].hash
        await pilot.press("end")
        assert table.cursor == 90
        await pilot.press("pageup")
        assert table.cursor < 90
        await pilot.press("s")  # sort by the first visible column, then on
        await pilot.pause()
        assert table.data.sort_column == "hash"
        hashes = [s.hash for s in table_specs(app)]
        assert hashes == sorted(hashes)
        await pilot.press("S")
        await pilot.pause()
        assert [s.hash for s in table_specs(app)] == sorted(hashes, reverse=True)
        await pilot.press("enter")
        assert app.focused is app.screen.query_one(DetailPane)


async def test_tab_cycles_the_panes_and_slash_searches() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert app.focused.id == "package-options"  # the list, not the search box: keys act at once
        order = []
        for _ in range(6):
            await pilot.press("tab")
            order.append(app.focused.id)
        assert order == ["specs", "detail", "facet-filter", "facet-list", "query-line", "package-options"]
        await pilot.press("shift+tab")
        assert app.focused.id == "query-line"
        await pilot.press("escape")  # leaves the search box for the list
        assert app.focused.id == "package-options"
        await pilot.press("slash")
        await pilot.pause()
        assert app.focused.id == "query-line"


async def test_f_toggles_facets_and_narrow_layout_swaps_panes() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        facets = app.screen.query_one("#facets")
        assert facets.display
        app.screen.query_one(SpecTable).focus()
        await pilot.press("f")
        assert not facets.display
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        facets, packages = app.screen.query_one("#facets"), app.screen.query_one(PackageList)
        assert not facets.display and packages.display
        app.screen.query_one(SpecTable).focus()
        await pilot.press("f")
        assert facets.display and not packages.display
        app.screen.query_one(FacetPanel).focus()
        await pilot.press("escape")  # the package list is hidden here: back goes to the table
        assert app.focused is app.screen.query_one(SpecTable)


async def test_problems_and_help_screens_open_and_close() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(SpecTable).focus()
        await pilot.press("p")
        assert isinstance(app.screen, ProblemsScreen)
        await pilot.press("escape")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one("#help-body").render().plain
        for key in ("Copy hash", "Facets", "Problems", "Quit", "Sort"):
            assert key in help_text
        await pilot.press("escape")
        assert app.screen is app.browser


async def test_command_palette_jumps_to_a_package_and_filters() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await run_palette(pilot, "safetensors", "py-safetensors")
        assert app.browser.spec_query.package == "py-safetensors"
        await run_palette(pilot, "x86_64_v3", "x86_64_v3")
        assert app.browser.spec_query.filters.get("target") == frozenset({"x86_64_v3"})


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_q_and_ctrl_c_quit(key: str) -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(SpecTable).focus()
        await pilot.press(key)
        await pilot.pause()
        assert app._exit or not app.is_running


async def test_an_internal_load_failure_is_a_notification_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("cachetui.core.load.load_dating_later", broken)
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running
        assert any("simulated bug" in str(n.message) for n in app._notifications)
        # Not "Loading…" forever: the status says nothing loaded, and p shows why.
        status = render_status(app.screen.query_one("#status").status).plain
        assert status.startswith("Nothing could be loaded: 1 error (p shows them)")
        assert not app.screen.query_one("#loading").display
        await pilot.press("p")
        assert isinstance(app.screen, ProblemsScreen)
        assert "simulated bug" in app.screen.query_one("#problem-detail").render().plain
