"""Push dates looked up after the load (the browser's way): the same dates as at a load, and a cache file only with
them in it."""

from __future__ import annotations

import os
import threading
import types
from pathlib import Path

import numpy as np
import pytest

from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.options import MAX_FILE_BYTES, LoadOptions
from cachetui.core.load.pipeline import load_corpus, load_dating_later
from cachetui.core.load.sources import push_dates
from cachetui.core.model.corpus import Corpus
from tests.test_push_dates import HELD, NO_CACHE, _expected, _pushed, _v2, _v3, _v3_path


def _pushed_facet(corpus: Corpus) -> list[str]:
    return [corpus.value("pushed", int(i)) for i in corpus.single["pushed"]]


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_a_mirror_dated_after_its_load_gets_the_dates_a_load_gives_it(tmp_path: Path, layout: str) -> None:
    root = str((_v3 if layout == "v3" else _v2)(tmp_path / "m"))
    at_load = load_corpus([root], NO_CACHE)
    corpus, later = load_dating_later([root], NO_CACHE)
    assert later is not None
    assert set(_pushed(corpus).values()) == {None} and set(_pushed_facet(corpus)) == {"unknown"}  # not yet
    dated = later.read(corpus)
    assert dated is not None
    assert set(_pushed(corpus).values()) == {None}  # the column is a new array: the corpus is as it was
    later.apply(corpus, dated)
    assert _pushed(corpus) == _pushed(at_load) == _expected("gone")
    assert _pushed_facet(corpus) == _pushed_facet(at_load) and corpus.any_pushed_known()


def test_the_cache_file_marks_what_is_left_to_date_and_a_command_reads_it_again(tmp_path: Path) -> None:
    root = str(_v3(tmp_path / "m"))
    corpus, later = load_dating_later([root], cache=CorpusCache(tmp_path / "cache"))
    assert later is not None and corpus.cache_status == "miss"
    # Written at the load, the mirror marked undated (the browser quits before its dates are in, say):
    snapshot = CorpusCache(tmp_path / "cache").read(CorpusCache(tmp_path / "cache").name_for([root], MAX_FILE_BYTES))
    assert snapshot is not None and list(snapshot.undated) == [later.undated[0].key]
    # a command reads the mirror again, dates and all, rather than answer without them;
    by_command = load_corpus([root], LoadOptions(), cache=CorpusCache(tmp_path / "other"))
    assert _pushed(by_command) == _expected("gone")
    again = load_corpus([root], LoadOptions(), cache=CorpusCache(tmp_path / "cache"))
    assert again.cache_status != "hit" and _pushed(again) == _expected("gone")
    # having read it, the command wrote the file again with the dates: nothing is left to date.
    warm, none_left = load_dating_later([root], cache=CorpusCache(tmp_path / "cache"))
    assert warm.cache_status == "hit" and none_left is None
    assert _pushed(warm) == _expected("gone") and np.array_equal(warm.pushed, again.pushed)


def test_a_browser_that_quit_before_the_dates_starts_warm_and_dates_them_after(tmp_path: Path) -> None:
    root = str(_v3(tmp_path / "m"))
    first, later = load_dating_later([root], cache=CorpusCache(tmp_path / "cache"))
    assert later is not None  # ... and quits: its dates are never read
    second, later = load_dating_later([root], cache=CorpusCache(tmp_path / "cache"))
    assert later is not None and second.cache_status != "miss"  # the index not read again
    assert set(_pushed(second).values()) == {None}
    dated = later.read(second)
    assert dated is not None
    later.apply(second, dated)
    assert _pushed(second) == _expected("gone")
    later.store(second, dated)
    third, none_left = load_dating_later([root], cache=CorpusCache(tmp_path / "cache"))
    assert third.cache_status == "hit" and none_left is None and _pushed(third) == _expected("gone")


def test_a_load_that_is_not_asked_to_date_later_dates_now_and_a_warm_one_never_dates(tmp_path: Path) -> None:
    root = str(_v3(tmp_path / "m"))
    cache = CorpusCache(tmp_path / "cache")
    corpus = load_corpus([root], LoadOptions(), cache=cache)  # the CLI's way: the file is written at the load
    assert _pushed(corpus) == _expected("gone") and list(cache.directory.glob("corpus-*.map"))
    warm, later = load_dating_later([root], cache=CorpusCache(tmp_path / "cache"))
    assert warm.cache_status == "hit" and later is None and _pushed(warm) == _expected("gone")


def test_site_documents_leave_nothing_to_date(tmp_path: Path) -> None:
    from cachetui.core.load import sample_path

    corpus, later = load_dating_later([str(sample_path())], NO_CACHE)
    assert later is None and corpus.n_specs > 0


def test_a_dating_that_may_pass_leaves_its_mirror_out_of_the_cache_file(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """As at a load: dates that could not be read this time are not kept, so the next load reads the mirror again
    rather than say an old failure as current."""
    root = str(_v3(tmp_path / "m"))
    cache = CorpusCache(tmp_path / "cache")
    corpus, later = load_dating_later([root], cache=cache)
    assert later is not None

    def unreadable(store: push_dates.RecordStore, timeout: float, stop: object = None
                   ) -> tuple[dict[str, int], list, bool]:
        return {}, [], True  # nothing dated, for a reason that may pass

    monkeypatch.setattr(push_dates, "_dates_of", unreadable)
    dated = later.read(corpus)
    assert dated is not None
    later.apply(corpus, dated)
    later.store(corpus, dated)
    monkeypatch.undo()
    again = load_corpus([root], LoadOptions(), cache=CorpusCache(tmp_path / "cache"))
    assert again.cache_status != "hit" and _pushed(again) == _expected("gone")


def test_a_record_touched_after_the_load_is_dated_as_it_is_when_read(tmp_path: Path) -> None:
    """The dates are the storage's when they are read, after the load: a record rewritten in between says its
    new time (as a load a moment later would)."""
    root = _v3(tmp_path / "m")
    corpus, later = load_dating_later([str(root)], NO_CACHE)
    assert later is not None
    name = next(name for name in HELD if name != "gone")
    os.utime(_v3_path(root, name), (1_800_000_000, 1_800_000_000))
    dated = later.read(corpus)
    assert dated is not None
    later.apply(corpus, dated)
    assert _pushed(corpus)[name] == 1_800_000_000


def test_a_dating_no_longer_wanted_ends_at_once_without_waiting_for_the_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A browser quitting (or loading again) while a large mirror is walked does not wait for the walk."""
    corpus, later = load_dating_later([str(_v3(tmp_path / "m"))], NO_CACHE)
    assert later is not None
    release, started = threading.Event(), threading.Event()

    def slow(store: push_dates.RecordStore, timeout: float, stop: object = None
             ) -> tuple[dict[str, int], list, bool]:
        started.set()
        release.wait(30)
        return {}, [], False

    monkeypatch.setattr(push_dates, "_dates_of", slow)
    asked = []

    def cancelled() -> bool:
        asked.append(started.is_set())
        return started.is_set()  # the walk under way, then given up

    assert later.read(corpus, cancelled) is None
    assert asked[-1] is True and not release.is_set()  # given up while the walk still ran
    release.set()


def test_a_walk_given_up_is_ended_not_left_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk's process is killed when its dates are no longer wanted: it would otherwise go on beside the next
    load's decoding, or outlive the browser."""
    pid_file = tmp_path / "pid"
    script = tmp_path / "slow_walk.py"
    script.write_text(f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    monkeypatch.setattr(push_dates, "record_walk", types.SimpleNamespace(__file__=str(script)))
    stop = threading.Event()
    done: list[object] = []
    walking = threading.Thread(target=lambda: done.append(push_dates.walked_apart(str(tmp_path), "v3", 30, 10, stop)))
    walking.start()
    for _ in range(600):  # the process started (it writes its pid first thing); then the walk is given up
        if pid_file.exists() and pid_file.read_text():
            break
        walking.join(0.05)
    stop.set()
    walking.join(10)
    assert not walking.is_alive() and done[0].error == "the walk was given up"
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # killed and reaped


def test_what_was_worked_out_over_the_undated_column_is_worked_out_again(tmp_path: Path) -> None:
    """A value looked up in a package's Pushed facet before the dates were in is found after."""
    from cachetui.core.query.filters import resolve_filters
    from cachetui.core.query.resolve import UnknownValue

    corpus, later = load_dating_later([str(_v3(tmp_path / "m"))], NO_CACHE)
    assert later is not None
    name = next(name for name in HELD if name != "gone")
    with pytest.raises(UnknownValue, match="older"):
        resolve_filters(corpus, {"pushed": ["older"]}, name)  # every binary unknown yet: no such value
    dated = later.read(corpus)
    assert dated is not None
    later.apply(corpus, dated)
    assert resolve_filters(corpus, {"pushed": ["older"]}, name) == {"pushed": frozenset({"older"})}
