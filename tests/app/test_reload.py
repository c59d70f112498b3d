"""ctrl+r reads the sources again in place: the question, facets and the cursor's binary kept, what changed said;
what is new since the last look is said and can be chosen."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cachetui.app.answers import Arrived
from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.core.load import LoadOptions
from cachetui.core.load.sample import sample_path
from cachetui.present.browse import browsing as go
from cachetui.present.browse.answer import RecentAnswers, answer
from tests.mirrors import DB8, index_bytes, v3_mirror
from tests.app.helpers import open_package, toggle_facet, wait_for, wait_loaded

DOCUMENT = "000_69d538efd75078e4.txt"  # py-ml-dtypes in the sample
GONE, CAME = "24fngvd4f3yz7zj63yh4i2wjhfyscqp3", "zzfngvd4f3yz7zj63yh4i2wjhfyscqp3"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    shutil.copytree(sample_path(), tmp_path / "site")
    return tmp_path / "site"


def _app(site: Path) -> CacheTuiApp:
    return CacheTuiApp([str(site)], LoadOptions(use_cache=True), system_clipboard=False)


def _news(app: CacheTuiApp) -> str:
    return app.screen.query_one(StatusLine).status.news or ""


async def test_ctrl_r_keeps_the_question_and_the_cursor_and_says_what_changed(site: Path) -> None:
    app = _app(site)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        assert _news(app) == ""  # never looked at before: nothing is called new, nothing is said
        await open_package(pilot, "py-ml-dtypes")
        await toggle_facet(pilot, "platform", "linux")
        table = app.screen.query_one(SpecTable)
        table.focus()
        await pilot.press("j", "j", "j")
        corpus = app.screen.corpus
        assert corpus is not None and table.current_spec is not None
        kept = corpus.hashes[table.current_spec]
        assert kept != GONE
        document = site / DOCUMENT
        document.write_text(document.read_text().replace(GONE, CAME))  # rebuilt under the running browser

        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: _news(app).startswith("reloaded"))
        await wait_loaded(pilot)
        after = app.screen.corpus
        assert after is not corpus and after is not None
        assert _news(app).startswith("reloaded: +1 −1 binaries · 1 new since ")
        assert app.screen.spec_query.package == "py-ml-dtypes"
        assert app.screen.spec_query.active() == {"platform": frozenset({"linux"})}
        assert table.current_spec is not None and after.hashes[table.current_spec] == kept
        shown = {after.hashes[i] for i in table.data.indices} if table.data is not None else set()
        assert CAME in shown and GONE not in shown

        await toggle_facet(pilot, "since", "new")  # what is new since the last look, chosen as any facet value
        await wait_loaded(pilot)
        assert table.data is not None and [after.hashes[i] for i in table.data.indices] == [CAME]


async def test_the_next_session_says_what_is_new_since_this_one(site: Path) -> None:
    async with _app(site).run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
    document = site / DOCUMENT
    document.write_text(document.read_text().replace(GONE, CAME))
    app = _app(site)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        assert _news(app).startswith("1 new since ")
        corpus = app.screen.corpus
        assert corpus is not None
        assert [corpus.hashes[i] for i in np.flatnonzero(corpus.new)] == [CAME]
    app = _app(site)
    async with app.run_test(size=(160, 50)) as pilot:  # looked at since: nothing new any more
        await wait_loaded(pilot)
        assert _news(app).startswith("nothing new since ")


async def test_without_the_warm_cache_nothing_is_called_new(site: Path) -> None:
    async with _app(site).run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
    document = site / DOCUMENT
    document.write_text(document.read_text().replace(GONE, CAME))
    app = CacheTuiApp([str(site)], LoadOptions(use_cache=False), system_clipboard=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        assert _news(app) == "" and app.screen.corpus is not None and not app.screen.corpus.new.any()
        await pilot.press("ctrl+r")  # a reload still says what changed (here: nothing)
        await wait_for(pilot, lambda: _news(app).startswith("reloaded"))
        assert _news(app) == "reloaded: no binary changed"


async def test_an_answer_over_the_corpus_before_a_reload_is_never_shown(site: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's answer still queued when the reloaded corpus lands names the old corpus's specs."""
    app = _app(site)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        screen = app.browser
        before = screen.corpus
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: _news(app).startswith("reloaded"))
        await wait_loaded(pilot)
        assert screen.corpus is not before and before is not None and screen.corpus is not None
        delivered: list[object] = []
        monkeypatch.setattr(screen, "_deliver", lambda q, s, view, found: delivered.append(found))
        question = (screen.spec_query, screen.browsing.sort, screen.browsing.view)
        stale = answer(before, question[0], question[1], RecentAnswers(), question[2])
        screen.post_message(Arrived(*question, stale, before))
        await pilot.pause()
        assert delivered == []
        fresh = answer(screen.corpus, question[0], question[1], RecentAnswers(), question[2])
        screen.post_message(Arrived(*question, fresh, screen.corpus))
        await pilot.pause()
        assert delivered == [fresh]


async def test_a_reload_that_loses_a_compared_tag_stops_comparing(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in ("one", "two"):
        v3_mirror(tmp_path / name, index_bytes(DB8))
    app = CacheTuiApp([str(tmp_path / "one"), str(tmp_path / "two")], LoadOptions(use_cache=True),
                      system_clipboard=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_loaded(pilot)
        screen = app.browser
        screen._go(go.viewed(screen.browsing, replace(screen.browsing.view, compare=("one", "two"))))
        await wait_loaded(pilot)
        assert screen.browsing.view.compare == ("one", "two")
        shutil.rmtree(tmp_path / "two")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: _news(app).startswith("reloaded"))
        await wait_loaded(pilot)
        assert screen.browsing.view.compare is None and screen.corpus is not None
        assert screen.corpus.tags == ["one"]
        assert _news(app).startswith("reloaded: no binary changed")  # both held the same binaries: none gone
        table = screen.query_one(SpecTable)
        assert table.data is not None and len(table.data.indices) == screen.corpus.n_specs
