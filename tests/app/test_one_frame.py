"""A key's answer is ready for the frame that follows it: no message round trip, no screen layout.

How long a frame takes is measured by `make bench` (benchmarks/pty_keys.py), never here; these
tests pin the behaviour that makes one frame enough.
"""

from __future__ import annotations

import threading

import pytest

import cachetui.app.answers as browser_module
from cachetui.app.widgets.detail_pane import DetailPane, detail_lines, wrap
from cachetui.app.widgets.facet_panel import FacetPanel, Kind
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from tests.app.helpers import burst, open_package, sample_app, toggle_facet, wait_for, wait_loaded


def _shown_spec(app: object) -> int | None:
    detail = app.screen.query_one(DetailPane).detail  # type: ignore[attr-defined]
    return None if detail is None else detail.spec.index


async def test_the_details_change_with_the_cursor_not_a_message_later() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        table = app.screen.query_one(SpecTable)
        table.cursor = 7  # as a key does; nothing is awaited before the check
        assert _shown_spec(app) == table.current_spec == int(table.data.indices[7])


async def test_the_details_match_the_row_after_a_burst_of_keys() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        table = app.screen.query_one(SpecTable)
        await burst(pilot, *"j" * 30, "pagedown", *"k" * 3)  # holding j, then a page and back a little
        assert table.cursor > 30
        assert _shown_spec(app) == table.current_spec
        spec = app.browser.corpus.spec(table.current_spec)
        first = app.screen.query_one(DetailPane).render_line(0).text
        assert spec.hash in first  # what is drawn, not only what is held


async def test_moving_the_cursor_never_lays_out_the_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("tab")  # the table of all packages: details of different lengths
        await pilot.pause()
        layouts: list[bool] = []
        original = app.screen._refresh_layout
        monkeypatch.setattr(app.screen, "_refresh_layout", lambda *a, **k: (layouts.append(True), original(*a, **k)))
        detail = app.screen.query_one(DetailPane)
        heights = set()
        for _ in range(40):
            await pilot.press("j")
            heights.add(detail.virtual_size.height)
        await pilot.press("pagedown", "end", "home")
        assert len(heights) > 1  # what used to lay out the screen, a frame late
        assert layouts == []


async def test_a_facet_shows_as_chosen_before_its_answer_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser_module, "INLINE_SPECS", 0)  # answers in a worker, as on a whole site
    release = threading.Event()
    original = browser_module.answer

    def slow_answer(*args: object, **kwargs: object) -> object:
        release.wait(10)
        return original(*args, **kwargs)

    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        # Answered in a worker (INLINE_SPECS = 0): the rows arrive with a message after the worker has ended.
        await wait_for(pilot, lambda: table.data is not None)
        before = len(table.data.indices)
        monkeypatch.setattr(browser_module, "answer", slow_answer)
        try:
            await toggle_facet(pilot, "os", "ubuntu20.04")
            panel = app.screen.query_one(FacetPanel)
            assert (Kind.ACTIVE, "os", "ubuntu20.04") in {(e.kind, e.facet, e.value) for e in panel.entries}
            assert app.screen.query_one(StatusLine).status.busy
            assert len(table.data.indices) == before  # the rows wait for the answer
        finally:
            release.set()
        await wait_for(pilot, lambda: not app.screen.query_one(StatusLine).status.busy)
        assert len(table.data.indices) < before


async def test_a_package_search_filters_the_list_as_the_line_changes() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        bar, packages = app.screen.query_one(QueryBar), app.screen.query_one(PackageList)
        bar.input.value = "mpi"  # as the key typing it does; no message has been handled yet
        assert packages.state.search == "mpi"
        bar.show("zlib")  # set by the app, not typed: the list keeps its search
        assert packages.state.search == "mpi"


async def test_page_down_finds_its_rows_already_painted() -> None:
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("tab", "pagedown")  # the table of all packages; the cursor to the page's foot
        await pilot.pause()  # the frame is out: the pages around it are painted now
        table = app.screen.query_one(SpecTable)
        painted_before = {key[0] for key in table._lines.keys()}  # row keys of the painted rows
        top = table.scroll_offset.y
        await pilot.press("pagedown")
        assert table.scroll_offset.y > top + 5  # a new page of rows
        shown = range(int(table.scroll_offset.y), int(table.scroll_offset.y) + table.size.height - table.HEADER_LINES)
        assert all(table.row_key(row) in painted_before for row in shown)


async def test_a_cursor_move_repaints_only_the_detail_lines_that_differ(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next spec's details mostly read as this one's: only the lines that differ are repainted (each of
    them), and the pane then reads exactly as the next spec's details drawn afresh."""
    whole: list[int] = []
    repainted: set[int] = set()
    real_changed, real_row = DetailPane.rows_changed, DetailPane._refresh_row

    def counted(self: DetailPane, *args: object, **kwargs: object) -> None:
        whole.append(1)
        real_changed(self, *args, **kwargs)  # type: ignore[arg-type]

    def row(self: DetailPane, row: int) -> None:
        repainted.add(row)
        real_row(self, row)

    monkeypatch.setattr(DetailPane, "rows_changed", counted)
    monkeypatch.setattr(DetailPane, "_refresh_row", row)
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        pane = app.screen.query_one(DetailPane)
        table = app.screen.query_one(SpecTable)
        reworded = 0
        for at in range(1, len(table.data.indices)):
            before = len(whole)
            was = [text.plain for text, _ in wrap(detail_lines(pane.detail), pane.content_width, app.console)]
            repainted.clear()
            await pilot.press("down")
            await pilot.pause()
            assert _shown_spec(app) == int(table.data.indices[at])
            fresh = wrap(detail_lines(pane.detail), pane.content_width, app.console)
            if len(whole) == before:  # not repainted whole: each line that differs, and only those
                reworded += 1
                differ = {i for i, (old, (new, _)) in enumerate(zip(was, fresh)) if old != new.plain}
                assert differ <= repainted and len(repainted) < len(fresh)
            top = int(pane.scroll_offset.y)
            for y in range(min(pane.size.height, len(fresh) - top)):
                assert pane.render_line(y).text.rstrip() == fresh[top + y][0].plain.rstrip()
        assert reworded  # the package's specs have details of one length
