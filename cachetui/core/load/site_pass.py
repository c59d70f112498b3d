"""The site documents of one load: walked (or the last walk's listing reused), and parsed unless unchanged.

Apart from the pipeline (which strings every kind of source together) because a site is the one
source read file by file: what a warm start reuses, what it stats, and what it keeps for the next
one are decided here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING

from cachetui.core.load.progress import DOCUMENTS, Progress
from cachetui.core.load.snapshot import Listing, Snapshot
from cachetui.core.load.sources.site.walk import (
    Candidate,
    expected_documents,
    find_candidates,
    iter_candidates,
    stamp,
)
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.problems import LoadReport, Problem

if TYPE_CHECKING:  # imported where a miss uses them: a warm start imports no parser and no builder
    from cachetui.core.load.sources.site.loader import FileResult
    from cachetui.core.model.build import CorpusBuilder


_PATH = attrgetter("path")


class SitePass:
    """The site documents of one load: walked (or the cached listing reused), parsed unless unchanged.

    A cold load (nothing cached) does not walk first: the walk feeds the parsers as it goes.
    """

    def __init__(self, roots: list[str], snapshot: Snapshot | None, report: LoadReport) -> None:
        self.snapshot = snapshot
        self.report = report
        self.results: dict[str, FileResult] = {}  # the files whose results have more to say than their stamps
        self.walked = snapshot is not None
        self.unchanged = False
        self.roots = roots
        if snapshot is None:
            self.listing = Listing([], {}, {})  # filled as the walk goes (load_into)
            self._reused: set[str] | None = set()
            self._walk_report = LoadReport()  # the walk's own problems, kept apart for the cache
            self._walk = iter_candidates(roots, self._walk_report, self.listing.directories)
            return
        if snapshot.unchanged():  # the usual warm start: no Python object per file
            self.listing, self.unchanged, self._reused = snapshot.listing, True, None  # every file (reused)
            report.extend(snapshot.walk_problems)
            self.walk_problems = list(report.problems)
            return
        if snapshot.listing.directories_as_they_were():
            candidates, directories = snapshot.candidates, snapshot.directories
            report.extend(snapshot.walk_problems)
            stamps = snapshot.listing.current_stamps()  # before reading: never newer
        else:
            directories = {}
            candidates = find_candidates(roots, report, directories) if roots else []
            stamps = {c.path: stamp(c.path) for c in candidates}
        self.walk_problems = list(report.problems)
        self.listing = Listing(candidates, directories, stamps)
        # Only which files are unchanged: their documents are rebuilt from the cached corpus if, and only
        # if, something else changed (when nothing did, the cached corpus is used as it is).
        self._reused = snapshot.reusable_among(stamps)

    @property
    def reused(self) -> set[str]:
        """The files whose cached results still hold (when nothing changed, all: listed only if asked)."""
        if self._reused is None:
            self._reused = set(self.listing.stamps)
        return self._reused

    def all_reused(self) -> bool:
        snapshot = self.snapshot
        return self.unchanged or (snapshot is not None and self.listing.directories is snapshot.directories
                                  and len(self.reused) == len(self.listing.candidates))

    def _reused_results(self) -> Iterator[tuple[str, FileResult]]:
        """Each unchanged file's result, one at a time (files are reused only from a snapshot)."""
        snapshot = self.snapshot
        if snapshot is not None:
            for path in self.reused:
                yield path, _reused_result(snapshot, path)

    def load_into(self, builder: CorpusBuilder, max_bytes: int, workers: int | None, progress: Progress | None,
                  started: Callable[[], None] = lambda: None) -> None:
        """Unchanged files from the cached corpus, the rest parsed (in parts); problems reported in file order.

        `started`: called once the parsers' processes are (see `parallel.load_into`)."""
        from cachetui.core.load.sources.site.parallel import load_into, workers_for

        for path, result in self._reused_results():
            if result.document is not None:
                builder.add(result.document)
            if result.notable:
                self.results[path] = _summary(result)
        to_parse = self._walked() if not self.walked else \
            [c for c in self.listing.candidates if c.path not in self.reused]
        if workers is None and not self.walked:  # a cold walk: its parsers may start before it does
            workers = workers_for(expected_documents(self.roots))
        done = len(self.reused)
        for chunk, results in load_into(builder, to_parse, max_bytes, workers, self._before_reading, started):
            self.results.update((chunk[i].path, result) for i, result in results.notable.items())
            if self.snapshot is None:  # cold: each file's stamp as its reader took it
                self.listing.stamps.update(zip(map(_PATH, chunk), results.stamps))
            done += len(chunk)
            if progress is not None:
                progress(done, len(self.listing.candidates) if self.walked else None, DOCUMENTS)
        self.report.files_seen += len(self.listing.candidates)
        if self.results:  # their problems, in file order
            found = self.results
            for candidate in self.listing.candidates:
                said = found.get(candidate.path)
                if said is not None:
                    self.report.extend(said.problems)

    def _walked(self) -> Iterator[Candidate]:
        yield from self._walk
        self.walk_problems = list(self._walk_report.problems)
        self.report.extend(self.walk_problems)
        self.walked = True

    def _before_reading(self, chunk: list[Candidate]) -> None:
        if self.snapshot is None:
            self.listing.candidates.extend(chunk)

    def to_snapshot(self, corpus: Corpus, groups: dict, group_problems: dict[str, list[Problem]],
                    undated: dict[str, list[str]] | None = None) -> Snapshot:
        results = self.results
        return Snapshot(
            self.listing,
            {path: r.inputs for path, r in results.items() if r.inputs}, corpus, self.walk_problems,
            {path: r.problems for path, r in results.items() if r.problems},
            {path for path, r in results.items() if r.io_error},
            groups=groups, group_problems=group_problems, undated=undated or {},
        )


def _summary(result: FileResult) -> FileResult:
    """What the cache keeps of a file's result: not its document (that is in the corpus)."""
    from cachetui.core.load.sources.site.loader import FileResult

    return FileResult(None, result.problems, result.inputs, result.io_error, result.stamp)


def _reused_result(snapshot: Snapshot, path: str) -> FileResult:
    """An unchanged file's result, its document rebuilt from the cached corpus."""
    from cachetui.core.load.sources.site.loader import FileResult

    problems = list(snapshot.file_problems.get(path, []))
    inputs = snapshot.inputs.get(path, {})
    documents = snapshot.documents_from(path)
    if not documents:
        return FileResult(problems=problems, inputs=inputs)
    (document,) = documents
    document.problems = problems
    return FileResult(document=document, problems=problems, inputs=inputs)
