"""The first frame after a corpus arrives draws what a user reads first, the package list with its counts and the
status line, without waiting for the first answer (the table's plan, the facets' counts and the details over every
spec come with it, a frame or more later)."""

from __future__ import annotations

import threading

import pytest

from cachetui.app import answers as answers_module
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.present.spec_table import table_plan
from tests.app.helpers import sample_app, wait_for, wait_loaded


async def test_the_package_list_and_its_counts_show_before_the_first_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)  # every answer from a worker, as on a whole site
    held, asked = threading.Event(), threading.Event()
    real = answers_module.answer

    def held_answer(*args: object, **kwargs: object) -> object:
        asked.set()
        assert held.wait(timeout=30)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(answers_module, "answer", held_answer)
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, asked.is_set)
        packages = app.screen.query_one(PackageList)
        status = app.screen.query_one(StatusLine).status
        corpus = app.screen.corpus
        assert corpus is not None
        assert sum(packages.state.counts.values()) == corpus.n_specs and len(packages.state.counts) == len(corpus.packages)
        assert (status.loading, status.busy, status.shown) == (False, True, corpus.n_specs)  # said to be updating
        assert app.screen.query_one(SpecTable).data is None  # the table comes with the answer
        first = dict(packages.state.counts)
        held.set()
        await wait_loaded(pilot)
        await wait_for(pilot, lambda: app.screen.query_one(SpecTable).data is not None)
        assert dict(packages.state.counts) == first  # the answer's counts are the ones drawn first
        assert not app.screen.query_one(StatusLine).status.busy


async def test_a_workers_answer_is_measured_for_the_table_in_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's measure of the rows (a tenth to a third of a second at 500k specs) is worked out beside the
    answer, in its worker: the frame that shows the rows only lays them out."""
    monkeypatch.setattr(answers_module, "INLINE_SPECS", 0)  # every answer from a worker, as on a whole site
    measured_on: list[bool] = []
    real = table_plan.measure

    def recorded(*args: object, **kwargs: object) -> object:
        measured_on.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(table_plan, "measure", recorded)
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        await wait_for(pilot, lambda: table.data is not None)
        await pilot.press("slash", *"zlib", "enter")  # another answer, another measure
        await wait_loaded(pilot)
        rows = table.data
        assert rows is not None and table.hidden in rows.measured
        assert measured_on and not any(measured_on)  # every measure in a worker, none on the screen's thread
