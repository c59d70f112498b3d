"""What one load saw (`Snapshot`): the files and directories it walked (`Listing`) and the corpus it built.

Its own module, below both the cache (which reads and writes snapshots) and the cache file's layout
(which says where each part of one goes), so that neither imports the other back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cachetui.core.load.sources.site.walk import Candidate, DirStamp, Stamp, directory_stamp, stamp
from cachetui.core.model.as_records import documents_as_records
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.problems import Problem
from cachetui.core.model.records import ParsedDocument


@dataclass
class Listing:
    """The files and directories one load walked, with the stamp of each as it was read (None: unknown)."""

    candidates: list[Candidate]
    directories: dict[str, DirStamp | None]  # None: could not be listed, walk again
    stamps: dict[str, Stamp | None]  # every candidate

    @property
    def files(self) -> int:
        return len(self.candidates)

    def unchanged(self) -> bool:
        """Whether every directory and file is known to have its stamp still, compared in bulk; False says
        only that the caller compares file by file (a listing built by a load is not compared in bulk)."""
        return False

    def directories_as_they_were(self) -> bool:
        """Every directory walked is still there with the same stamp: the walk would find the same files."""
        return all(then is not None and directory_stamp(d) == then for d, then in self.directories.items())

    def current_stamps(self) -> dict[str, Stamp | None]:
        """Each file's stamp now (taken before any is read, so never newer than what is read)."""
        return {c.path: stamp(c.path) for c in self.candidates}


@dataclass
class Snapshot:
    """What one load saw, stored with the corpus it built."""

    listing: Listing  # the files and directories walked, with their stamps
    inputs: dict[str, dict[str, Stamp | None]]  # candidate -> other files its result was built from
    corpus: Corpus
    walk_problems: list[Problem] = field(default_factory=list)  # symlink loops, unreadable directories
    file_problems: dict[str, list[Problem]] = field(default_factory=dict)  # each file's own problems
    retry: set[str] = field(default_factory=set)  # candidates whose result came from an I/O failure
    groups: dict[str, tuple] = field(default_factory=dict)  # index group key -> checksums it was read in full at
    group_problems: dict[str, list[Problem]] = field(default_factory=dict)  # each group's own problems
    # Groups kept without their push dates (a browser that quit before reading them): key -> their documents' paths.
    # The browser dates them after its next start; a command reads them again, dates and all.
    undated: dict[str, list[str]] = field(default_factory=dict)

    @property
    def candidates(self) -> list[Candidate]:
        return self.listing.candidates

    @property
    def directories(self) -> dict[str, DirStamp | None]:
        return self.listing.directories

    @property
    def stamps(self) -> dict[str, Stamp | None]:
        return self.listing.stamps

    def unchanged(self) -> bool:
        """Every file and directory as it was, and no result shaped by an I/O failure or read from other files:
        the usual warm start, its stats compared in bulk."""
        return not self.retry and not self.inputs and self.listing.unchanged()

    def documents_from(self, origin: str, tag: str | None = None) -> list[ParsedDocument]:
        """The cached corpus's documents from one file, or one index group (origin and tag), as records again."""
        corpus = self.corpus
        def documents_by_origin() -> dict[str, list[int]]:
            found: dict[str, list[int]] = {}
            for d, doc in enumerate(corpus.documents):
                found.setdefault(doc.path, []).append(d)
            return found

        by_origin = corpus.memoised("by-origin", documents_by_origin)
        chosen = [d for d in by_origin.get(origin, []) if tag is None or corpus.documents[d].tag == tag]
        return documents_as_records(corpus, chosen)

    def reusable_among(self, current: dict[str, Stamp | None]) -> set[str]:
        """The paths in `current` (path -> stamp now) whose cached results still hold."""
        if current == self.stamps and not self.retry and not self.inputs and None not in current.values():
            return set(current)  # the usual warm start, compared in C: every file as it was
        return {path for path, now in current.items() if self.reusable(path, now)}

    def reusable(self, path: str, current: Stamp | None) -> bool:
        """Whether `path`'s cached result still holds: same file, same inputs, no I/O failure."""
        if current is None or path in self.retry or self.stamps.get(path) != current:
            return False
        return all(stamp(p) == then for p, then in self.inputs.get(path, {}).items())
