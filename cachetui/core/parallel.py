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

from cachetui.core.loader import Candidate, FileResult, load_file

PARALLEL_MIN_FILES = 2000
PARALLEL_BY_DEFAULT = True  # measured in benchmarks/RESULTS.md: pays at M and L on 2 cores
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
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for results in pool.map(_load_chunk, chunks, [max_bytes] * len(chunks)):
            yield from results
