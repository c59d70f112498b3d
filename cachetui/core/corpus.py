"""One call from paths to a ready Corpus; what the app, the CLI and the benchmarks use."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from cachetui.core.build import CorpusBuilder
from cachetui.core.loader import DEFAULT_MAX_BYTES, Progress, find_candidates, iter_documents
from cachetui.core.model import Corpus
from cachetui.core.parallel import default_workers, load_files
from cachetui.core.problems import LoadReport


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """A load allocates millions of acyclic objects; collecting them mid-load is wasted work."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_corpus(
    paths: Sequence[str | os.PathLike[str]],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
    workers: int | None = None,
) -> Corpus:
    """Load every document under `paths` into a Corpus (its `report` holds every problem).

    Documents stream straight into the builder, so only a few are held as Python objects at a
    time. `workers` processes parse the files (default: one per core for large trees).
    """
    report = LoadReport()
    with _no_cyclic_gc():
        candidates = find_candidates(paths, report)
        workers = default_workers(len(candidates)) if workers is None else workers
        results = load_files(candidates, max_bytes, workers)
        builder = CorpusBuilder()
        for document in iter_documents(candidates, report, progress=progress, results=results):
            builder.add(document)
        return builder.finish(report)
