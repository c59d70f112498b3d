"""Parsing in worker processes (parts built there, merged here) gives exactly what parsing in-process gives."""

from __future__ import annotations

import pickle
import subprocess
import sys
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

import pytest

import cachetui.core.load.sources.site.parallel as parallel
import cachetui.core.load.sources.site.walk as walk
from cachetui.core.load import LoadOptions, load_corpus
from cachetui.core.load.cache import CorpusCache
from cachetui.core.query.query import Query, all_facet_counts
from tests.conftest import listing, spec_entry


def _tree(root: Path, n: int) -> None:
    for i in range(n):
        path = root / "_cache" / ("develop" if i % 3 else "v0.22.0") / f"pkg{i % 40}" / f"specs{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        hashes = [f"{i:05d}".translate(str.maketrans("0123456789", "abcdefghij")) + chr(97 + k) * 27 for k in range(3)]
        path.write_text(listing(f"pkg{i % 40}", "develop", [spec_entry(h, target=f"t{k}") for k, h in enumerate(hashes)]))
    (root / "broken.md").write_text("---\ntitle: [x\n---\n")


def _fingerprint(corpus) -> tuple:  # noqa: ANN001
    report = sorted((p.path, p.reason) for p in corpus.report.problems)
    return corpus.hashes, corpus.packages, corpus.tags, all_facet_counts(corpus, Query()), report


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "CHUNK_FILES", 16)  # several parts from a small tree


def test_two_workers_equal_one(tmp_path: Path) -> None:
    _tree(tmp_path, 3 * 16 + 5)
    assert _fingerprint(load_corpus([tmp_path], LoadOptions(workers=2))) == _fingerprint(load_corpus([tmp_path], LoadOptions(workers=1)))


def test_a_pool_that_cannot_start_falls_back_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, 10)

    def refuse(*args: object, **kwargs: object) -> None:
        raise ValueError("bad value(s) in fds_to_keep")  # what a TUI host said when asked to spawn

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", refuse)
    assert _fingerprint(load_corpus([tmp_path], LoadOptions(workers=2))) == _fingerprint(load_corpus([tmp_path], LoadOptions(workers=1)))


def test_small_trees_stay_in_process() -> None:
    assert parallel.default_workers(parallel.PARALLEL_MIN_FILES - 1) == 1


class _Pending(Future):
    def result(self, timeout: float | None = None) -> object:
        assert self.done(), "waited for a chunk no worker will ever parse"
        return super().result(timeout)


class _NeverStarting:
    """A pool whose worker never starts: every chunk stays pending, so this process must take them all."""

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, *args: object) -> Future:
        self.submitted += 1
        return _Pending()

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_chunks_no_worker_started_are_parsed_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, 3 * 16 + 5)
    pool = _NeverStarting()
    monkeypatch.setattr(parallel, "_start_pool", lambda workers: pool)
    shared = load_corpus([tmp_path], LoadOptions(workers=2))
    assert pool.submitted == 4  # every chunk went to the pool, and came back
    assert _fingerprint(shared) == _fingerprint(load_corpus([tmp_path], LoadOptions(workers=1)))


_POOL_BESIDE_A_CAPTURED_STDERR = """
import sys

class Capture:  # what a TUI puts in place of stderr: Textual's answers -1 for its descriptor
    def write(self, text): return len(text)
    def flush(self): pass
    def fileno(self): return -1

sys.stderr = Capture()
from cachetui.core.load.sources.site import parallel
pool = parallel._start_pool(2)
print("workers" if pool is not None and pool.submit(sum, [1, 2]).result(timeout=120) == 3 else "none")
print("captured again" if isinstance(sys.stderr, Capture) else "not restored")
if pool is not None:
    pool.shutdown()
"""


def test_workers_start_beside_a_stderr_without_a_descriptor_as_in_the_browser(tmp_path: Path) -> None:
    # A fresh interpreter: multiprocessing's resource tracker starts once per process, with the first pool.
    done = subprocess.run([sys.executable, "-c", _POOL_BESIDE_A_CAPTURED_STDERR], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.stdout.split("\n")[:2] == ["workers", "captured again"], done.stderr


def test_a_site_that_looks_large_starts_its_workers_before_its_walk(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, 3 * 16 + 5)  # two tags of up to 40 packages
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 20)
    listed: list[str] = []
    entries = walk._entries
    monkeypatch.setattr(walk, "_entries", lambda directory, *rest: listed.append(directory) or entries(directory, *rest))
    started: list[tuple[int, int]] = []  # (processes, directories the walk had listed by then)
    monkeypatch.setattr(parallel, "_start_pool", lambda workers: started.append((workers, len(listed))))
    corpus = load_corpus([tmp_path], LoadOptions())
    assert started == [(parallel.default_workers(20), 0)] and corpus.n_specs == 3 * (3 * 16 + 5)
    assert walk.expected_documents([str(tmp_path / "_cache" / "develop")]) is None  # not a site: decided as it walks


def test_workers_that_cannot_be_spawned_leave_the_parsing_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, 10)

    class Refusing(ProcessPoolExecutor):
        def submit(self, *args: object, **kwargs: object) -> Future:
            raise OSError("fork: Resource temporarily unavailable")

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", Refusing)
    assert parallel._start_pool(2) is None
    assert _fingerprint(load_corpus([tmp_path], LoadOptions(workers=2))) == _fingerprint(load_corpus([tmp_path], LoadOptions(workers=1)))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_forked_and_spawned_workers_give_what_one_process_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  method: str) -> None:
    _tree(tmp_path, 3 * 16 + 5)
    chosen: list[str] = []
    monkeypatch.setattr(parallel, "start_method", lambda: chosen.append(method) or method)
    shared, alone = (load_corpus([tmp_path], LoadOptions(workers=n)) for n in (2, 1))
    assert _fingerprint(shared) == _fingerprint(alone)
    assert chosen == [method]


def test_workers_are_forked_only_by_a_process_of_one_thread_on_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forking a threaded process can deadlock its child (a lock another thread held stays held there): the app
    loads from a thread, so its workers are spawned; the CLI, one thread, forks them (no Python start, no imports)."""
    monkeypatch.setattr(parallel.sys, "platform", "linux")
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    assert parallel.start_method() == "fork"
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 2)
    assert parallel.start_method() == "spawn"
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 1)
    monkeypatch.setattr(parallel.sys, "platform", "darwin")  # forking there is unsafe with the system's own threads
    assert parallel.start_method() == "spawn"


def test_a_cold_load_starts_its_own_thread_only_once_its_workers_are(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The code digest is worked out in a thread beside a cold load; started before the workers, it would leave a
    one-threaded CLI unable to fork them."""
    _tree(tmp_path / "site", 3 * 16 + 5)
    order: list[str] = []
    start_method, will_write = parallel.start_method, CorpusCache.will_write
    monkeypatch.setattr(parallel, "start_method", lambda: order.append("workers") or start_method())
    monkeypatch.setattr(CorpusCache, "will_write", lambda self: order.append("digest") or will_write(self))
    corpus = load_corpus([tmp_path / "site"], LoadOptions(workers=2), cache=CorpusCache(tmp_path / "cache"))
    assert order == ["workers", "digest"] and corpus.n_specs == 3 * (3 * 16 + 5)


def test_problems_come_in_file_order_whichever_process_read_each_file(tmp_path: Path) -> None:
    """Only the results with something to say cross between processes beside the stamps; the report still lists
    every file's problems in the order of the walk."""
    _tree(tmp_path, 5 * 16)
    for i in range(0, 5 * 16, 7):  # a broken file in every chunk, read here or in a worker
        (tmp_path / "_cache" / "develop" / f"pkg{i % 40}" / f"broken{i}.md").write_text("---\ntitle: [x\n---\n")
    shared, alone = (load_corpus([tmp_path], LoadOptions(workers=n)) for n in (2, 1))
    reasons = [(p.path, p.reason) for p in alone.report.problems]
    assert [(p.path, p.reason) for p in shared.report.problems] == reasons and len(reasons) > 5
    assert shared.report.files_seen == alone.report.files_seen == 5 * 16 + 1 + len(range(0, 5 * 16, 7))


def test_a_chunks_results_keep_every_stamp_and_only_the_results_with_more_to_say() -> None:
    from cachetui.core.load.sources.site.loader import ChunkResults, FileResult
    from cachetui.core.model.problems import Problem

    results = ChunkResults()
    plain, broken, failed = (FileResult(stamp=(1, 2, 3, 4)), FileResult(problems=[Problem("b", "bad")]),
                             FileResult(io_error=True))
    for result in (plain, broken, plain, failed):
        results.add(result)
    again = pickle.loads(pickle.dumps(results))  # noqa: S301 -- its own bytes, as a worker hands them over
    assert again.stamps == [(1, 2, 3, 4), None, (1, 2, 3, 4), None]
    assert sorted(again.notable) == [1, 3]
    assert again.notable[1].problems[0].reason == "bad" and again.notable[3].io_error
