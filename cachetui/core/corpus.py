"""One call from paths to a ready Corpus; what the app, the CLI and the benchmarks use."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from cachetui.core.build import CorpusBuilder
from cachetui.core.cache import CorpusCache, Snapshot, listing_unchanged
from cachetui.core.loader import (
    DEFAULT_MAX_BYTES,
    Candidate,
    FileResult,
    Progress,
    Signature,
    find_candidates,
    iter_documents,
    require_paths,
    signature,
)
from cachetui.core.model import Corpus
from cachetui.core.parallel import default_workers, load_files
from cachetui.core.problems import LoadReport
from cachetui.core.records import ParsedDocument


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """A load allocates millions of acyclic objects; collecting them mid-load is wasted work.

    Afterwards the survivors are frozen out of the collector: they live as long as the
    corpus, and scanning them on every full collection showed up as 100 ms hiccups in the UI.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def load_corpus(
    paths: Sequence[str | os.PathLike[str]],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: Progress | None = None,
    workers: int | None = None,
    cache: CorpusCache | None = None,
) -> Corpus:
    """Load every document under `paths` into a Corpus (its `report` holds every problem).

    Documents stream straight into the builder, so only a few are held as Python objects at a
    time. `workers` processes parse the files (default: one per core for large trees). With a
    `cache`, unchanged files are not parsed again (see cachetui.core.cache).
    """
    roots = [str(p) for p in paths]
    require_paths(roots)
    with _no_cyclic_gc():
        if cache is None:
            report = LoadReport()
            candidates = find_candidates(roots, report)
            return _build(candidates, report, {}, max_bytes, progress, workers).corpus
        return _load_with_cache(roots, cache, max_bytes, progress, workers)


def _load_with_cache(
    roots: list[str], cache: CorpusCache, max_bytes: int, progress: Progress | None, workers: int | None
) -> Corpus:
    name = cache.name_for(roots, max_bytes)
    snapshot = cache.read(name)
    report = LoadReport()
    if snapshot is not None and listing_unchanged(snapshot):
        candidates, directories = snapshot.candidates, snapshot.directories
        report.extend(snapshot.walk_problems)
    else:
        directories = {}
        candidates = find_candidates(roots, report, directories)
    walk_problems = list(report.problems)
    signatures = {c.path: signature(c.path) for c in candidates}  # taken before reading: never newer than the data
    reused = _reusable(snapshot, signatures) if snapshot is not None else {}
    if snapshot is not None and len(reused) == len(candidates) and directories is snapshot.directories:
        snapshot.corpus.cache_status = "hit"
        return snapshot.corpus
    build = _build(candidates, report, reused, max_bytes, progress, workers)
    parsed = len(candidates) - len(reused)
    if cache.refused is not None:
        build.corpus.cache_status = f"off: {cache.refused}"
    else:
        build.corpus.cache_status = "miss" if snapshot is None else f"partial: {parsed} of {len(candidates)} files parsed"
    inputs = {path: result.inputs for path, result in build.results.items() if result.inputs}
    retry = {path for path, result in build.results.items() if result.io_error}
    problems = {path: result.problems for path, result in build.results.items() if result.problems}
    cache.write(name, Snapshot(candidates, directories, signatures, inputs, build.corpus, walk_problems, problems, retry))
    return build.corpus


@dataclass
class _Built:
    corpus: Corpus
    results: dict[str, FileResult]  # per candidate path, without the document (that lives in the corpus)


def _build(
    candidates: list[Candidate],
    report: LoadReport,
    reused: dict[str, FileResult],
    max_bytes: int,
    progress: Progress | None,
    workers: int | None,
) -> _Built:
    """Parse what is not reused, stream everything into the builder; keep each file's result summary."""
    to_parse = [c for c in candidates if c.path not in reused]
    workers = default_workers(len(to_parse)) if workers is None else workers
    parsed = load_files(to_parse, max_bytes, workers)
    results = (reused[c.path] if c.path in reused else next(parsed) for c in candidates)
    summaries: dict[str, FileResult] = {}

    def remembered(results: Iterator[FileResult]) -> Iterator[FileResult]:
        for candidate, result in zip(candidates, results):
            summaries[candidate.path] = FileResult(None, result.problems, result.skipped, result.inputs, result.io_error)
            yield result

    builder = CorpusBuilder()
    for document in iter_documents(candidates, report, progress=progress, results=remembered(results)):
        builder.add(document)
    return _Built(builder.finish(report), summaries)


def _reusable(snapshot: Snapshot, signatures: dict[str, Signature | None]) -> dict[str, FileResult]:
    """Results for files whose signature (and whose inputs' signatures) are unchanged, from the cached corpus."""
    corpus = snapshot.corpus
    by_path = {doc.path: d for d, doc in enumerate(corpus.documents)}
    reused: dict[str, FileResult] = {}
    for path, sig in signatures.items():
        if not snapshot.reusable(path, sig):
            continue
        problems = list(snapshot.file_problems.get(path, []))
        inputs = snapshot.inputs.get(path, {})
        d = by_path.get(path)
        if d is None:
            reused[path] = FileResult(problems=problems, skipped=not problems, inputs=inputs)
            continue
        doc = corpus.documents[d]
        document = ParsedDocument(doc.path, doc.package, doc.tag, doc.title, doc.generation,
                                  corpus.document_columns(d), problems)
        reused[path] = FileResult(document=document, problems=problems, inputs=inputs)
    return reused
