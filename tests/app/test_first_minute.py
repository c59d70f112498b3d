"""The first minute of a new user: keys act at once, focus is visible, nothing hidden takes keys."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widget import Widget

import cachetui.core.query.search as search
from cachetui.app.app import CacheTuiApp
from cachetui.app.commands import ActionCommands, FacetCommands, PackageCommands
from cachetui.app.dialogs.help import HelpScreen
from cachetui.app.widgets.facet_panel import MAX_VALUES, FacetPanel, Kind
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.query.query import Query
from tests.app.helpers import burst, open_package, run_palette, sample_app, toggle_facet, wait_loaded, wait_until
from tests.conftest import listing, spec_entry

SIZES = [(120, 40), (80, 24)]
PANES = ("#packages", "#specs", "#detail", "#facets")


def _displayed(widget: Widget) -> bool:
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))


def _hash(i: int) -> str:
    return f"{i:032b}".replace("0", "a").replace("1", "b")


def _wide_tree(root: Path) -> Path:
    """A `cuda` package, and a package with ~cuda and more targets than a facet shows at once."""
    specs = [spec_entry(_hash(i), target=f"target{i:02}", variants=["~cuda", "+mpi"]) for i in range(MAX_VALUES + 5)]
    for package, entries in (("hdf5", specs), ("cuda", [spec_entry(_hash(999), variants=["+hdf5"])])):
        path = root / "_cache" / "develop" / package / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(package, "develop", entries))
    return root


@pytest.mark.parametrize("size", SIZES)
async def test_q_right_after_start_quits(size: tuple[int, int]) -> None:
    app = sample_app()
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert app._exit or not app.is_running


async def test_help_right_after_start_lists_the_movement_keys() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.query_one("#help-body").render().plain
        for keys in ("↑, k", "↓, j", "home, g", "end, G", "pgup", "pgdn"):
            assert keys in text, keys
        for other_pane in ("Specs", "Details", "Facets"):  # every pane's keys, from its live bindings
            assert f"\n{other_pane}\n" in text


@pytest.mark.parametrize("size", SIZES)
async def test_the_focused_pane_is_unmistakable(size: tuple[int, int]) -> None:
    app = sample_app()
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        for _ in range(5):
            focused = [s for s in PANES if app.focused in app.screen.query_one(s).walk_children(with_self=True)]
            for selector in PANES:
                pane = app.screen.query_one(selector)
                if not _displayed(pane):
                    continue
                edge, _ = pane.styles.border_top
                assert (edge == "heavy") == (selector in focused), (selector, focused)
            await pilot.press("tab")
            await pilot.pause()


async def test_slash_on_narrow_screens_never_types_into_a_hidden_box() -> None:
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(SpecTable).focus()
        await pilot.press("f")  # facets take the package list's place
        await pilot.pause()
        assert not _displayed(app.screen.query_one(PackageList))
        await pilot.press("slash", *"mpi")
        await pilot.pause()
        search_box = app.screen.query_one(QueryBar).input
        assert app.focused is search_box and _displayed(search_box) and search_box.value == "mpi"
        assert _displayed(app.screen.query_one(PackageList))  # where the matches show


@pytest.mark.parametrize("size", SIZES)
async def test_keys_typed_fast_after_slash_land_in_the_search_box(size: tuple[int, int]) -> None:
    app = sample_app()
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(SpecTable).focus()
        await pilot.press("f")
        await burst(pilot, "slash", "h", "d", "f", "5")
        assert app.screen.query_one(QueryBar).text == "hdf5"


async def test_no_hidden_widget_keeps_the_focus_when_panes_swap() -> None:
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        for key in ("f", "tab", "f", "tab", "tab", "f", "escape", "f"):
            await pilot.press(key)
            await pilot.pause()
            assert app.focused is not None and _displayed(app.focused), key


async def test_footer_offers_only_keys_that_can_act() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        active = app.screen.active_bindings
        assert "y" in active and "c" in active and "x" not in active  # specs shown, no filter yet
        await toggle_facet(pilot, "tag", "develop-2025-04-20")
        await open_package(pilot, "mpi4py")  # not in that snapshot: nothing to copy
        assert len(app.screen.query_one(SpecTable).data.indices) == 0
        active = app.screen.active_bindings
        assert "x" in active and "y" not in active and "c" not in active


async def _palette_scores(app: CacheTuiApp, typed: str) -> dict[str, float]:
    """Every palette hit for `typed`, by its text, with the score the palette sorts by."""
    scores = {}
    for provider in (PackageCommands, FacetCommands, ActionCommands):
        async for hit in provider(app.screen).search(typed):
            scores[hit.text or str(hit.match_display)] = hit.score
    return scores


async def test_palette_ranks_an_exact_facet_value_above_a_fuzzy_package(tmp_path: Path) -> None:
    app = CacheTuiApp([str(_wide_tree(tmp_path))], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        scores = await _palette_scores(app, "~cuda")
        assert scores["variant=~cuda"] > max(score for text, score in scores.items() if text != "variant=~cuda")
        scores = await _palette_scores(app, "hdf5")  # and an exact package above any facet or action
        assert scores["hdf5"] == max(scores.values())
        await run_palette(pilot, "~cuda", "~cuda")
        assert app.browser.spec_query.filters.get("variant") == frozenset({"~cuda"})
        assert app.browser.spec_query.package is None  # the package `cuda` was not opened


async def test_typing_in_the_facets_pane_reaches_every_value(tmp_path: Path) -> None:
    app = CacheTuiApp([str(_wide_tree(tmp_path))], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        panel = app.screen.query_one(FacetPanel)
        targets = [e.value for e in panel.entries if e.kind is Kind.VALUE and e.facet == "target"]
        assert len(targets) == MAX_VALUES and any(e.kind is Kind.MORE for e in panel.entries)
        assert not any(e.facet == "stack" and e.value == "root" for e in panel.entries)  # root narrows nothing
        panel.focus()
        await pilot.press("slash", *"target44")
        await pilot.pause()
        values = [(e.facet, e.value) for e in panel.entries if e.kind is Kind.VALUE]
        assert values == [("target", "target44")]  # beyond the first 40, found by typing
        await pilot.press("enter")  # back to the list, on the one value
        await pilot.press("enter")
        await pilot.pause()
        assert app.browser.spec_query.filters["target"] == frozenset({"target44"})


async def test_more_row_shows_the_rest_of_a_facet(tmp_path: Path) -> None:
    app = CacheTuiApp([str(_wide_tree(tmp_path))], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        panel = app.screen.query_one(FacetPanel)
        panel.focus()
        panel.cursor = next(i for i, e in enumerate(panel.entries) if e.kind is Kind.MORE and e.facet == "target")
        await pilot.press("enter")
        await pilot.pause()
        targets = [e.value for e in panel.entries if e.kind is Kind.VALUE and e.facet == "target"]
        assert len(targets) == len(app.browser.facet_counts["target"]) > MAX_VALUES


@pytest.mark.parametrize("size", SIZES)
async def test_all_packages_rows_name_their_package(size: tuple[int, int]) -> None:
    app = sample_app()
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        assert list(table.shown_columns)[:2] == ["package", "hash"]
        first = table.row_text(0, table.content_width).plain
        spec = app.browser.corpus.spec(int(table.data.indices[0]))
        assert first.startswith(spec.package)
        await open_package(pilot, "mpi4py")
        assert "package" not in list(table.shown_columns)  # one package: the column would repeat


async def test_the_local_clipboard_helper_never_blocks_the_ui(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    started = threading.Event()

    def slow_helper(text: str) -> bool:
        started.set()
        release.wait(timeout=30)
        return True

    monkeypatch.setattr("cachetui.app.app.copy_to_local_clipboard", slow_helper)
    app = CacheTuiApp([str(sample_app().paths[0])])  # with the local clipboard
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.screen.query_one(SpecTable).focus()
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard and any("Copied full hash" in str(n.title) for n in app._notifications)
        await wait_until(pilot, started.is_set)
        assert any(w.group == "clipboard" and w.is_running for w in app.workers)  # still running, UI free
        release.set()
        await app.workers.wait_for_complete()


def test_the_local_clipboard_helper_does_not_hold_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    from cachetui.app import clipboard

    calls = []
    monkeypatch.setattr(clipboard, "local_command", lambda: ["xclip", "-selection", "clipboard"])
    monkeypatch.setattr(clipboard.subprocess, "run", lambda *a, **k: calls.append(k))
    assert clipboard.copy_to_local_clipboard("abc")
    (kwargs,) = calls
    assert kwargs["stdout"] is clipboard.subprocess.DEVNULL and kwargs["stderr"] is clipboard.subprocess.DEVNULL
    assert "capture_output" not in kwargs


async def test_package_search_reuses_its_spellings_between_keystrokes(monkeypatch: pytest.MonkeyPatch) -> None:
    built = []

    class Counting(search._Choices):
        def __init__(self, names):  # noqa: ANN001
            built.append(names)
            super().__init__(names)

    monkeypatch.setattr(search, "_Choices", Counting)
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("slash", *"mpi4p")
        await pilot.pause()
        assert len(built) == 1


async def test_moving_the_cursor_keeps_the_other_rows_cached() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        table.focus()
        await pilot.pause()
        cached = set(table._lines.keys())
        assert len(cached) > 10
        await pilot.press("j")
        await pilot.pause()
        assert cached - {k for k in cached if k[0] in (0, 1)} <= set(table._lines.keys())


def test_queries_are_hashable_values() -> None:
    a = Query("hdf5", {"variant": frozenset({"+mpi"}), "target": frozenset()})
    b = Query("hdf5", {"variant": frozenset({"+mpi"})})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a.toggled("variant", "+mpi") == Query("hdf5")
