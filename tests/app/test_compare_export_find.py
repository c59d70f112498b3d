"""Compare mode (d), export (e) and the `spack find` view (l) in the browser."""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import pytest
from textual.worker import WorkerState

from cachetui.app import answers as answers_module
from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.choice_dialog import ChoiceDialog
from cachetui.app.dialogs.export_dialog import ExportDialog
from cachetui.app.widgets.facet_panel import FacetPanel
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine, render_status
from cachetui.cli.main import main
from cachetui.present.browse import answer as answer_module
from tests.app.helpers import wait_for, wait_loaded
from tests.test_diff import NEW, OLD, _independent, _snapshots


@pytest.fixture
def snapshots(tmp_path: Path) -> Path:
    return _snapshots(tmp_path / "site")


def _app(root: Path) -> CacheTuiApp:
    return CacheTuiApp([str(root)], system_clipboard=False)


def _table(app: CacheTuiApp) -> SpecTable:
    return app.screen.query_one(SpecTable)


async def _choose(pilot, value: str) -> None:  # noqa: ANN001 - a Pilot
    """Pick `value` in the open choice dialog, with the keys a user would press."""
    dialog = pilot.app.screen
    assert isinstance(dialog, ChoiceDialog)
    position = dialog.values.index(value)
    await pilot.press(*["down"] * position, "enter")
    await pilot.pause()


async def _compare(pilot, old: str, new: str) -> None:  # noqa: ANN001
    await pilot.press("escape", "d")
    await _choose(pilot, old)
    await _choose(pilot, new)
    await wait_loaded(pilot)


async def test_compare_mode_marks_rows_and_counts_as_an_independent_count(snapshots: Path) -> None:
    before, after = _independent(snapshots, OLD), _independent(snapshots, NEW)
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await _compare(pilot, OLD, NEW)
        table, corpus = _table(app), app.browser.corpus
        marks = {corpus.hashes[int(i)]: table.data.comparison.mark_of(int(i)) for i in table.data.indices}
        for package in set(before) | set(after):
            old = before.get(package, {"hashes": set()})["hashes"]
            new = after.get(package, {"hashes": set()})["hashes"]
            assert {h for h in new - old} == {h for h in new if marks[h] == "added"}
            assert {h for h in old - new} == {h for h in old if marks.get(h) == "removed"}
            assert {h for h in old & new} == {h for h in new if marks[h] == "kept"}
            rows = app.screen.query_one(PackageList).rows
            shown = rows.text([m.name for m in rows.matches].index(package) + 1, 40).plain
            assert shown.split()[-2:] == [f"+{len(new - old)}", f"−{len(old - new)}"]
        kept = sum(len(before[p]["hashes"] & after.get(p, {"hashes": set()})["hashes"]) for p in before)
        assert len(table.data.indices) == len(marks) == 5 + 75 + kept  # a kept binary shows once
        status = render_status(app.screen.query_one(StatusLine).status).plain
        assert f"comparing {OLD} → {NEW}: +5 −75 ={kept}" in status
        await pilot.press("d")  # again: back to the whole corpus
        await wait_loaded(pilot)
        assert table.data.comparison is None and "comparing" not in render_status(
            app.screen.query_one(StatusLine).status).plain


async def test_the_find_view_prints_what_query_format_spack_prints(snapshots: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(snapshots), "--package", "py-mpi4py", "--format", "spack", "--no-cache"]) == 0
    printed = capsys.readouterr().out.splitlines()[1:]
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.browser.open_package("py-mpi4py")
        await pilot.press("l")
        await wait_loaded(pilot)
        table = _table(app)
        assert [table.row_text(row, 120).plain for row in range(table.row_count)] == printed
        assert not table.selectable(0) and table.current_spec is not None  # headers never hold the cursor
        await pilot.press("l")
        await wait_loaded(pilot)
        assert table.data.find is None


async def test_export_writes_the_table_as_shown_and_asks_before_replacing(snapshots: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "hdf.csv"
    target.parent.mkdir()
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.browser.open_package("py-safetensors")
        app.browser.sort_by("version")
        await wait_loaded(pilot)
        shown = [app.browser.corpus.hashes[int(i)] for i in _table(app).data.indices]
        await pilot.press("e")
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("ctrl+u", *str(target), "enter")
        await wait_for(pilot, target.exists)
        rows = list(csv.reader(target.open()))
        assert rows[0][:3] == ["package", "tag", "hash"] and [r[2] for r in rows[1:]] == shown
        assert all(not cell.startswith(("+", "-", "=", "@")) for row in rows for cell in row)  # no formulas
        before = target.read_bytes()
        await pilot.press("e", "ctrl+u", *str(target), "enter")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceDialog)  # it exists: asked, not replaced
        await _choose(pilot, False)
        assert target.read_bytes() == before and sorted(p.name for p in target.parent.iterdir()) == ["hdf.csv"]


async def test_export_never_writes_into_an_input(snapshots: Path) -> None:
    inside = snapshots / "_cache" / "export.json"
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("e", "ctrl+u", *str(inside), "enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog) and not inside.exists()
        problem = str(app.screen.query_one("#export-path-problem").render())
        assert "inside an input" in problem


async def test_export_as_json_has_the_query_columns(snapshots: Path, tmp_path: Path) -> None:
    target = tmp_path / "all.json"
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("e", "ctrl+u", *str(target), "enter")
        await wait_for(pilot, target.exists)
        records = json.loads(target.read_text())
        assert len(records) == _table(app).row_count
        assert set(records[0]) >= {"package", "hash", "version", "compiler", "variants", "dependencies"}


async def test_compare_mode_counts_facets_over_the_rows_it_shows(snapshots: Path) -> None:
    before, after = _independent(snapshots, OLD), _independent(snapshots, NEW)
    removed = sum(len(before[p]["hashes"] - after.get(p, {"hashes": set()})["hashes"]) for p in before)
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await _compare(pilot, OLD, NEW)
        counts = app.browser.facet_counts
        assert counts["tag"] == {NEW: sum(len(e["hashes"]) for e in after.values()), OLD: removed}
        assert sum(counts["platform"].values()) == len(_table(app).data.indices)


async def test_a_tag_filter_comes_back_when_comparing_stops(snapshots: Path) -> None:
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.browser.toggle_filter("tag", NEW)
        await _compare(pilot, OLD, NEW)
        table = _table(app)
        shown_tags = {app.browser.corpus.spec(int(i)).tag for i in table.data.indices}
        assert shown_tags == {OLD, NEW}  # the two tags compared are the scope
        assert "tag" not in app.screen.query_one(FacetPanel).state.selected  # no filter shown that does nothing
        app.browser.toggle_filter("tag", OLD)  # refused while comparing, with a word why
        await wait_loaded(pilot)
        assert {app.browser.corpus.spec(int(i)).tag for i in table.data.indices} == {OLD, NEW}
        await pilot.press("d")
        await wait_loaded(pilot)
        assert app.browser.spec_query.filters["tag"] == frozenset({NEW})


async def test_export_replaces_a_file_only_when_asked(snapshots: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "t.csv"
    target.parent.mkdir()
    target.write_text("mine\n")
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("e", "ctrl+u", *str(target), "enter")
        await pilot.pause()
        await _choose(pilot, True)
        await wait_for(pilot, lambda: target.read_text() != "mine\n")
        assert len(target.read_text().splitlines()) == len(_table(app).data.indices) + 1
        assert [p.name for p in target.parent.iterdir()] == ["t.csv"]  # no temporary file left behind


async def test_export_without_hard_links_still_never_clobbers(snapshots: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """vfat and some network file systems refuse link(): the name is reserved with O_EXCL instead."""
    import errno
    import os

    def no_links(*_: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "x.json"
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("e", "ctrl+u", *str(target), "enter")
        await wait_for(pilot, lambda: target.exists() and target.stat().st_size > 0)
        assert len(json.loads(target.read_text())) == len(_table(app).data.indices)


async def test_the_comparison_the_cursor_rests_on_is_worked_out_while_the_dialog_is_open(
        snapshots: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a whole site the first answer of a comparison takes a few tenths of a second: the newer tag the cursor
    rests on is answered while the user looks, so Enter shows it at once, and it is not worked out again."""
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)  # answers in workers, as on a whole site
    pairs: list[tuple[frozenset[str], bool]] = []  # the tags of each comparison's rows worked out; dialog open?
    real = answer_module.results_for

    def counted(corpus, query, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if kwargs.get("comparison") is not None:
            pairs.append((query.filters["tag"], isinstance(app.screen, ChoiceDialog)))
        return real(corpus, query, *args, **kwargs)

    monkeypatch.setattr(answer_module, "results_for", counted)
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("escape", "d")
        await _choose(pilot, OLD)
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog)
        await pilot.press(*["down"] * dialog.values.index(NEW))
        await wait_for(pilot, lambda: (frozenset({OLD, NEW}), True) in pairs)  # while the dialog is open
        await pilot.press("enter")
        await wait_loaded(pilot)
        await wait_for(pilot, lambda: _table(app).data is not None and _table(app).data.comparison is not None)
        assert [p for p in pairs if p[0] == frozenset({OLD, NEW})] == [(frozenset({OLD, NEW}), True)]  # once
        assert f"comparing {OLD} → {NEW}" in render_status(app.screen.query_one(StatusLine).status).plain


async def test_a_comparison_dialog_cancelled_leaves_nothing_to_work_out(snapshots: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("escape", "d")
        await _choose(pilot, OLD)
        answers = app.browser._answers
        await wait_for(pilot, lambda: not answers._worker_running)
        await pilot.press("escape")  # the newer tag's dialog cancelled
        await pilot.pause()
        assert answers._wanted is None and not isinstance(app.screen, ChoiceDialog)


async def test_a_comparison_chosen_while_it_is_being_worked_out_waits_for_it(
        snapshots: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Enter before the prepared answer is ready: the answer waits for it rather than work it out twice at once."""
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)
    started, release = threading.Event(), threading.Event()
    pairs: list[frozenset[str]] = []
    real = answer_module.results_for

    def held(corpus, query, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if kwargs.get("comparison") is not None:
            pairs.append(query.filters["tag"])
            started.set()
            assert release.wait(timeout=30)
        return real(corpus, query, *args, **kwargs)

    monkeypatch.setattr(answer_module, "results_for", held)
    app = _app(snapshots)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("escape", "d")
        await _choose(pilot, OLD)
        await wait_for(pilot, started.is_set)  # the first newer tag offered, being worked out
        await pilot.press("enter")  # chosen meanwhile
        await wait_for(pilot, lambda: any(w.name == "results" and w.state == WorkerState.RUNNING
                                          for w in app.workers))  # the answer asked for, beside it
        release.set()
        await wait_for(pilot, lambda: _table(app).data is not None and _table(app).data.comparison is not None)
        assert len(pairs) == 1  # worked out once, by the preparation
