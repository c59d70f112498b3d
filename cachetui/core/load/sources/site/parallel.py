"""Load files into column parts, in worker processes when there are enough of them to pay for it.

Workers are forked when this process has one thread (the CLI, on Linux): a forked worker has the
parsers imported already and starts parsing at once, where a spawned one first starts Python and
imports them (a few tenths of a CPU second), and no resource-tracker process is started. Anywhere
else they are spawned: the app loads from a thread, and forking a threaded process can deadlock (a
lock another thread held is held forever in the child). Starting workers costs a fraction of a
second, so small trees (the sample, one package) stay in-process. This process is one of the N that
parse: it walks the tree, then parses the chunks no worker has started yet.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from itertools import chain, islice

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

from cachetui.core.load.sources.site.loader import Candidate, ChunkResults, load_file
from cachetui.core.model.build import BuilderPart, CorpusBuilder

PARALLEL_MIN_FILES = 10_000  # measured: at 3,000 files (scale M) spawning costs more than it saves
# On by default since the parse streams in chunks while the walk goes on: on the shared 2-core
# development machine this process and one worker beat one process at L on both trees, and match
# two workers with ~0.5 s less CPU (benchmarks/RESULTS.md measures the default against one process
# side by side). `--workers 1` keeps everything in one process.
PARALLEL_BY_DEFAULT = True
CHUNK_FILES = 1024  # a part per chunk: few enough to merge cheaply, small enough that the last ones end together


def workers_for(expected_files: int | None) -> int | None:
    """How many processes parse a walk expected to find about this many files (None: decided as it goes)."""
    return None if expected_files is None or expected_files < PARALLEL_MIN_FILES else default_workers(expected_files)


def default_workers(n_files: int) -> int:
    """How many processes parse (this one and the workers): one per core, up to 8, from 10,000 files."""
    if not PARALLEL_BY_DEFAULT or n_files < PARALLEL_MIN_FILES:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


Part = tuple[ChunkResults, BuilderPart]
Loaded = tuple[list[Candidate], ChunkResults]


def load_into(builder: CorpusBuilder, candidates: Iterable[Candidate], max_bytes: int, workers: int | None,
              before: Callable[[list[Candidate]], None] = lambda chunk: None,
              started: Callable[[], None] = lambda: None) -> Iterator[Loaded]:
    """Load the candidates' documents into `builder`, a chunk at a time; yield each chunk and its results, in order.

    `candidates` may be a walk still in progress: chunks go to the workers as the walk finds them,
    so walking and parsing overlap. `before` sees each chunk before any of its files is read. `started` is
    called once the workers are (or none will be): a thread of the caller's started there, not before,
    leaves the workers free to be forked.
    The results keep each file's stamp, and problems and inputs where it has them, not its document (that is in
    the builder).
    With `workers` processes (None: decided by how many files there are), chunks are built into
    columns in `workers - 1` other processes and in this one once the walk is done, and merged here.
    """
    chunks = _chunks(candidates)
    if workers is None:
        first = list(islice(chunks, PARALLEL_MIN_FILES // CHUNK_FILES + 1))
        workers = default_workers(sum(map(len, first)))
        chunks = chain(first, chunks)
    pool = _start_pool(workers)
    started()
    if pool is None:
        yield from _in_process(chunks, max_bytes, builder, before)
        return
    try:
        yield from _in_workers(pool, chunks, max_bytes, builder, before)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)  # the workers' exit is not waited for: nothing is left


def _in_workers(pool: ProcessPoolExecutor, chunks: Iterator[list[Candidate]], max_bytes: int, builder: CorpusBuilder,
                before: Callable[[list[Candidate]], None]) -> Iterator[Loaded]:
    pending: deque[tuple[list[Candidate], Future[Part]]] = deque()
    for chunk in chunks:
        before(chunk)
        try:
            pending.append((chunk, pool.submit(load_part, chunk, max_bytes)))
        except (OSError, ValueError, RuntimeError):  # the host refused to spawn: this process does it all
            if pending:
                raise
            yield chunk, _load_chunk(chunk, max_bytes, builder)
            yield from _in_process(chunks, max_bytes, builder, before)
            return
        while pending and pending[0][1].done():  # merge what is ready while the walk goes on
            yield _merged(builder, *pending.popleft())
    yield from _sharing(pool, pending, max_bytes, builder)


def _sharing(pool: ProcessPoolExecutor, pending: deque[tuple[list[Candidate], Future[Part]]], max_bytes: int,
             builder: CorpusBuilder) -> Iterator[Loaded]:
    """The walk is over: this process parses too, taking chunks no worker has started from the back of the queue.

    Parts are still merged in the order of the walk. Parsing here needs no process started and
    nothing sent between processes: on two cores one worker and this process match two workers'
    time with ~0.5 s less CPU on the varied L tree, which counts when the cores are shared.
    The last few chunks are cut small first, so that this process and the workers end together:
    a worker holds two chunks at a time, and at the end this process waited ~0.15 s for them.
    """
    here = CorpusBuilder(distinct=False)  # its parts' vocabularies: this load's own, as each worker's are its own
    taken = 0  # chunks at the back of `pending` parsed here
    cut = False
    while pending:
        while pending and pending[0][1].done():
            yield _merged(builder, *pending.popleft())
        taken = min(taken, len(pending))
        if not cut and sum(1 for _, future in pending if not (future.running() or future.done())) <= TAIL_CHUNKS:
            pending, cut = _cut_small(pool, pending, max_bytes), True
            continue
        back = len(pending) - 1 - taken
        if back >= 0 and pending[back][1].cancel():  # no worker has it: cancelled, so none will
            chunk = pending[back][0]
            pending[back] = (chunk, _done(_part(chunk, max_bytes, here)))
            taken += 1
        elif pending:
            yield _merged(builder, *pending.popleft())


TAIL_CHUNKS = 4  # chunks left when the rest is cut small
TAIL_FILES = 128


def _cut_small(pool: ProcessPoolExecutor, pending: deque[tuple[list[Candidate], Future[Part]]], max_bytes: int
               ) -> deque[tuple[list[Candidate], Future[Part]]]:
    """The chunks no worker has started, sent again in pieces of TAIL_FILES, in the same order."""
    cut: deque[tuple[list[Candidate], Future[Part]]] = deque()
    for chunk, future in pending:
        if len(chunk) <= TAIL_FILES or not future.cancel():
            cut.append((chunk, future))
            continue
        for start in range(0, len(chunk), TAIL_FILES):
            piece = chunk[start : start + TAIL_FILES]
            try:
                cut.append((piece, pool.submit(load_part, piece, max_bytes)))
            except (OSError, ValueError, RuntimeError):  # the pool broke: this process takes the piece
                cut.append((piece, _done(_part(piece, max_bytes, CorpusBuilder(distinct=False)))))
    return cut


def _done(part: Part) -> Future[Part]:
    future: Future[Part] = Future()
    future.set_result(part)
    return future


def _in_process(chunks: Iterator[list[Candidate]], max_bytes: int, builder: CorpusBuilder,
                before: Callable[[list[Candidate]], None]) -> Iterator[Loaded]:
    for chunk in chunks:
        before(chunk)
        yield chunk, _load_chunk(chunk, max_bytes, builder)


def _merged(builder: CorpusBuilder, chunk: list[Candidate], future: Future[Part]) -> Loaded:
    results, part = future.result()
    builder.merge(part)
    return chunk, results


def _chunks(candidates: Iterable[Candidate]) -> Iterator[list[Candidate]]:
    iterator = iter(candidates)
    while chunk := list(islice(iterator, CHUNK_FILES)):
        yield chunk


def _load_chunk(chunk: list[Candidate], max_bytes: int, builder: CorpusBuilder) -> ChunkResults:
    results = ChunkResults()
    for candidate in chunk:
        result = load_file(candidate, max_bytes)
        if result.document is not None:
            builder.add(result.document)
        result.document = None  # it is in the builder now
        results.add(result)
    return results


def load_part(chunk: list[Candidate], max_bytes: int) -> Part:
    """A worker's job: a chunk's documents built into columns, which are small and quick to send and merge."""
    # As in the main process (pipeline._no_cyclic_gc): the objects of a load are acyclic and short-lived,
    # and collecting them cost the workers ~15% of their time.
    gc.disable()
    if not _WORKER:
        _WORKER.append(CorpusBuilder(distinct=False))
    return _part(chunk, max_bytes, _WORKER[0])


def _part(chunk: list[Candidate], max_bytes: int, builder: CorpusBuilder) -> Part:
    results = _load_chunk(chunk, max_bytes, builder)
    return results, builder.part()


# A worker's builder lives across its parts, and so do its vocabularies (see CorpusBuilder.part).
_WORKER: list[CorpusBuilder] = []


def _start_pool(workers: int) -> ProcessPoolExecutor | None:
    """Worker processes, or None to load in this process (one worker asked, or the host refuses to spawn)."""
    if workers <= 1:
        return None
    try:
        with _stderr_with_a_descriptor():
            pool = ProcessPoolExecutor(max_workers=workers - 1, mp_context=multiprocessing.get_context(start_method()))
    except (OSError, ValueError, RuntimeError):
        return None
    _widen_pipes(pool)
    try:
        with _stderr_with_a_descriptor():
            for _ in range(workers - 1):  # a pool starts its processes as work is sent: these start now
                pool.submit(_started)
    except (OSError, ValueError, RuntimeError):  # the host refused to spawn: this process does it all
        pool.shutdown(wait=False, cancel_futures=True)
        return None
    return pool


def start_method() -> str:
    """How workers start: forked in a process of one thread on Linux, spawned anywhere else (see the module's
    docstring). Asked as the pool is made, so a thread that ended by then counts for nothing."""
    return "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"


def _started() -> None:
    """A worker's first job: none. Sent as the pool is made, so that its processes start (and import the
    parsers, a third of a second) while this one walks, rather than when the first chunk is found."""


@contextmanager
def _stderr_with_a_descriptor() -> Iterator[None]:
    """`sys.stderr` as one with a file descriptor, while the pool starts multiprocessing's resource tracker.

    The tracker is handed `sys.stderr.fileno()`; inside the browser, Textual's capture of stderr answers
    -1, the tracker could not start, and a whole site loaded in the app's one thread, beside the UI
    (14 s to the first list at 500,000 specs, in a terminal, where `check` takes 3.6 s). The process's own
    stderr stands in for that moment (nothing of the app's writes to stderr; the tracker writes only if
    semaphores leak, at exit).
    """
    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable or sys.__stderr__ is None:
        yield
        return
    captured, sys.stderr = sys.stderr, sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = captured


PIPE_BYTES = 1 << 20  # Linux's limit for an unprivileged process (/proc/sys/fs/pipe-max-size)


def _widen_pipes(pool: ProcessPoolExecutor) -> None:
    """Pipes that hold a whole part (or chunk), so a worker hands it over without waiting for this process.

    A part is 1-2 MB; through the default 64 kB pipe a worker blocked until this process, busy
    parsing too, had read it all (measured: 0.2-0.4 s of a worker's 2 s idle on the varied L
    tree). Linux only, and through the executor's private queues: anywhere else, nothing changes.
    """
    setsize = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    for queue in (getattr(pool, "_result_queue", None), getattr(pool, "_call_queue", None)):
        reader = getattr(queue, "_reader", None)
        if setsize is None or reader is None:
            continue
        try:
            fcntl.fcntl(reader.fileno(), setsize, PIPE_BYTES)
        except (OSError, ValueError, AttributeError):
            pass
