"""Parse files in worker processes when there are enough of them to pay for it.

Workers are spawned, not forked: the app loads from a thread, and forking a
threaded process can deadlock. Spawning costs a fraction of a second, so small
trees (the sample, one package) stay in-process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from cachetui.core.sources.site.loader import Candidate, FileResult, load_file

PARALLEL_MIN_FILES = 10_000  # measured: at 3,000 files (scale M) spawning costs more than it saves
# Off by default: on the shared 2-core development machine, one process or two workers won
# by turns from run to run (benchmarks/RESULTS.md measures both). `--workers N` opts in.
PARALLEL_BY_DEFAULT = False
CHUNK_FILES = 64


def default_workers(n_files: int) -> int:
    if not PARALLEL_BY_DEFAULT or n_files < PARALLEL_MIN_FILES:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


def _load_chunk(chunk: list[Candidate], max_bytes: int) -> list[FileResult]:
    return [load_file(candidate, max_bytes) for candidate in chunk]


def load_files(candidates: Sequence[Candidate], max_bytes: int, workers: int) -> Iterator[FileResult]:
    """FileResults in candidate order, from `workers` processes (1: in this process)."""
    if workers <= 1:
        for candidate in candidates:
            yield load_file(candidate, max_bytes)
        return
    chunks = [list(candidates[i : i + CHUNK_FILES]) for i in range(0, len(candidates), CHUNK_FILES)]
    pool, mapped = _start_pool(chunks, max_bytes, workers)
    try:
        for results in mapped:
            yield from results
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _start_pool(
    chunks: list[list[Candidate]], max_bytes: int, workers: int
) -> tuple[ProcessPoolExecutor | None, Iterator[list[FileResult]]]:
    """Start workers and hand them every chunk; fall back to this process if they cannot start.

    Workers start before any result is used, so falling back loses nothing. Some hosts
    refuse to spawn: inside a TUI whose standard streams are not real files, for one.
    """
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        return pool, pool.map(_load_chunk, chunks, [max_bytes] * len(chunks))
    except (OSError, ValueError, RuntimeError):
        return None, (_load_chunk(chunk, max_bytes) for chunk in chunks)
