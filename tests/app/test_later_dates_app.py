"""The browser shows a mirror read cold before its push dates, says it is reading them, then puts them in."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.status_line import StatusLine
from cachetui.core.load import LoadOptions
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.later_dates import Dated, LaterDates
from cachetui.core.load.options import MAX_FILE_BYTES
from cachetui.core.load.snapshot import Snapshot
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query, all_facet_counts
from cachetui.present.browse.news import DATING
from tests.app.helpers import wait_for, wait_loaded
from tests.test_push_dates import HELD, _expected, _pushed, _v3


def _news(app: CacheTuiApp) -> str:
    return app.screen.query_one(StatusLine).status.news or ""


def _kept(root: Path) -> Snapshot:
    cache = CorpusCache()
    snapshot = cache.read(cache.name_for([str(root)], MAX_FILE_BYTES))
    assert snapshot is not None
    return snapshot


def _pushed_counts(corpus: Corpus) -> dict[str, int]:
    return all_facet_counts(corpus, Query())["pushed"]


async def test_the_dates_come_after_the_first_frame_and_the_cache_file_with_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = _v3(tmp_path / "m")
    walking, go_on = threading.Event(), threading.Event()
    keys: list[str] = []
    read = LaterDates.read

    def held_read(self: LaterDates, corpus: Corpus, cancelled: Callable[[], bool]) -> Dated | None:
        keys.extend(group.key for group in self.undated)
        walking.set()  # the walk, held until the test has looked
        go_on.wait(30)
        return read(self, corpus, cancelled)

    monkeypatch.setattr(LaterDates, "read", held_read)
    app = CacheTuiApp([str(root)], LoadOptions(use_cache=True), system_clipboard=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_for(pilot, lambda: walking.is_set() and DATING in _news(app))
        corpus = app.screen.corpus
        (key,) = keys
        assert corpus is not None and corpus.n_specs == len(HELD)  # shown, before its dates
        assert set(_pushed(corpus).values()) == {None} and _pushed_counts(corpus) == {"unknown": len(HELD)}
        assert list(_kept(root).undated) == [key]  # cached, marked as left to date
        go_on.set()
        await wait_loaded(pilot)
        assert app.screen.corpus is corpus and _pushed(corpus) == _expected("gone")
        assert DATING not in _news(app)
        assert _pushed_counts(corpus) == {"older": len(HELD) - 1, "unknown": 1}
        assert _kept(root).undated == {}  # cached again, dated

    warm = CacheTuiApp([str(root)], LoadOptions(use_cache=True), system_clipboard=False)
    async with warm.run_test(size=(160, 50)) as pilot:  # the next start: the dates from the cache, none to read
        await wait_loaded(pilot)
        corpus = warm.screen.corpus
        assert corpus is not None and corpus.cache_status == "hit" and _pushed(corpus) == _expected("gone")
        assert DATING not in _news(warm)
