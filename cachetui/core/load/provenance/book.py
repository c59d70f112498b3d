"""Provenance per binary and the download of a closure, read lazily and kept per hash for the run (bounded).

`Provenance(corpus)` is the one way in, for `cachetui verify` and the browser alike. Its methods
block on the network and are safe to call from worker threads: the browser calls them in a
worker, never on its event loop. Answers are kept in `Recent` memos (the last KEPT binaries,
the last KEPT_KEYRINGS caches' keys), never in the warm-start cache: a signature is a fact of
the mirror now, not of the index that was cached.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from cachetui.core.load.options import DEFAULT_TIMEOUT_S
from cachetui.core.load.provenance.keys import published_keys
from cachetui.core.load.provenance.records import Binary, Reading, read_record
from cachetui.core.load.provenance.signature import Keyring, Signature, iso
from cachetui.core.load.sources.record_walk import dated
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.dependencies import RUNTIME, dependency_tree
from cachetui.core.model.recent import Recent
from cachetui.core.model.records import BinaryStore

FETCH_AT_ONCE = 4  # records fetched at a time for a closure (and by `verify`)
KEPT = 4096  # binaries whose provenance is kept for the run
KEPT_KEYRINGS = 64  # caches whose published keys are kept for the run
CLOSURE_LIMIT = 2000  # dependency records walked for one closure


@dataclass(frozen=True)
class BinaryProvenance:
    """Who signed one binary of one source, whether it verifies, and how big its tarball is."""

    spec: int  # its index in the corpus
    hash: str
    package: str
    tag: str
    signature: Signature
    size: int | None  # the tarball's bytes; None when nobody published it (never 0)
    pushed: str | None  # ISO 8601 UTC: what its record says (see records.Reading), else what the load found
    record: str | None  # where its signed record was read or looked for (credentials shown as ***)


@dataclass(frozen=True)
class ClosureDownload:
    """What `spack install /HASH` downloads from the loaded caches: this binary and every link/run dependency
    in its closure that a loaded source holds, each hash once, from the first source named."""

    binaries: tuple[BinaryProvenance, ...]  # this binary first
    size: int | None  # their total bytes; None when any size is unknown (see known_size)
    known_size: int  # the total of the sizes that are known
    sizes_unknown: int  # binaries whose size nobody published
    not_held: int  # records of the closure that no loaded source holds (externals aside: never downloaded)
    partial: bool = False  # the closure has more than CLOSURE_LIMIT records: these counts are of the first ones

    @property
    def count(self) -> int:
        return len(self.binaries)


def closure_download(binaries: Sequence[BinaryProvenance], not_held: int, partial: bool = False) -> ClosureDownload:
    """The total of a download: its binaries, their bytes, how many sizes nobody published. The one rule for it,
    whether the browser's details count one binary's closure or `verify --closure` the closures it lists."""
    known = sum(b.size for b in binaries if b.size is not None)
    unknown = sum(1 for b in binaries if b.size is None)
    return ClosureDownload(tuple(binaries), None if unknown else known, known, unknown, not_held, partial)


class Provenance:
    """Provenance of a corpus's binaries, fetched on demand through the project's transport."""

    def __init__(self, corpus: Corpus, *, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self.corpus = corpus
        self.timeout = timeout
        self._binaries: Recent[tuple[str, str], BinaryProvenance] = Recent(KEPT)
        self._keyrings: Recent[BinaryStore, Keyring] = Recent(KEPT_KEYRINGS)
        self._keys_read = threading.Lock()  # a cache's keys are fetched once, not by every worker at once
        self._key_problems: dict[str, tuple[str, ...]] = {}  # per cache root, what of its keys could not be used
        order = list(corpus.stores)
        self._rank = {path: n for n, path in enumerate(order)}  # the order the sources were named

    def binary(self, spec: int) -> BinaryProvenance:
        """Spec `spec`'s provenance: its source's signed record fetched, verified and read (kept for the run)."""
        corpus = self.corpus
        path = corpus.documents[corpus.document_of[spec]].path
        return self._binaries.get((path, corpus.hashes[spec]), lambda: self._read(spec, path))

    def binaries(self, specs: Sequence[int]) -> list[BinaryProvenance]:
        """Each spec's provenance, FETCH_AT_ONCE records at a time, in the order given."""
        if len(specs) <= 1:
            return [self.binary(spec) for spec in specs]
        from concurrent.futures import ThreadPoolExecutor  # only when fetching: a warm start never needs it

        with ThreadPoolExecutor(max_workers=FETCH_AT_ONCE, thread_name_prefix="provenance") as pool:
            return list(pool.map(self.binary, specs))

    def closure(self, spec: int) -> ClosureDownload:
        """The download of `spack install /HASH` for spec `spec` (see ClosureDownload)."""
        members, not_held, partial = self.closure_members(spec)
        return closure_download(self.binaries(members), not_held, partial)

    def closure_members(self, spec: int) -> tuple[list[int], int, bool]:
        """This spec, then each held link/run dependency once (from the first source named); how many records
        of the closure no loaded source holds; and whether the closure was longer than CLOSURE_LIMIT records."""
        return self.closures_members([spec])

    def closures_members(self, specs: Sequence[int]) -> tuple[list[int], int, bool]:
        """What `spack install /HASH /HASH…` downloads for `specs`: each of their hashes once (the first of `specs`
        that has it), then each held link/run dependency of their closures once (from the first source named);
        how many records of the closures no loaded source holds, each once; and whether a closure was longer than
        CLOSURE_LIMIT records."""
        hashes = self.corpus.hashes
        members: dict[str, int] = {}
        for spec in specs:
            members.setdefault(hashes[spec], spec)
        not_held: set[str] = set()
        partial = False
        for hash_ in list(members):  # each hash's closure walked once
            lines = dependency_tree(self.corpus, members[hash_], RUNTIME, CLOSURE_LIMIT)
            partial = partial or len(lines) >= CLOSURE_LIMIT
            for line in lines:
                found = line.dependency.hash
                if line.repeated or line.external or found in members or found in not_held:
                    continue
                held = self.corpus.occurrences(found)
                if held:
                    members[found] = min(held, key=self._source_rank)
                else:
                    not_held.add(found)
        return list(members.values()), len(not_held), partial

    def _source_rank(self, spec: int) -> tuple[int, int]:
        path = self.corpus.documents[self.corpus.document_of[spec]].path
        return self._rank.get(path, len(self._rank)), spec

    def _read(self, spec: int, path: str) -> BinaryProvenance:
        view = self.corpus.spec(spec)
        store = self.corpus.stores.get(path)
        if store is None:
            document = self.corpus.documents[self.corpus.document_of[spec]]
            reason = "this load does not say where its mirror keeps signed records" if document.from_mirror \
                else "from site documents: no signed record to read"
            reading = Reading(Signature.unchecked(reason))
        else:
            binary = Binary(view.package, view.version, view.hash, view.platform, view.os, view.target, view.compiler)
            reading = read_record(binary, store.root, store.layout, lambda: self.keyring(store), self.timeout)
        return BinaryProvenance(spec, view.hash, view.package, view.tag, reading.signature, reading.size,
                                reading.pushed or self._loaded_pushed(spec), reading.record)

    def _loaded_pushed(self, spec: int) -> str | None:
        """When the load found spec `spec` pushed (a bucket's listing, say), for a record that could not say."""
        when = self.corpus.pushed_of(spec)
        when = None if when is None else dated(when)  # a cache file's column is bounded below only
        return None if when is None else iso(dt.datetime.fromtimestamp(when, dt.timezone.utc))

    def keyring(self, store: BinaryStore) -> Keyring:
        """The keys a cache publishes, read once per run (bounded)."""
        with self._keys_read:
            return self._keyrings.get(store, lambda: self._read_keys(store))

    def key_problems(self) -> list[tuple[str, str]]:
        """Each cache whose keys were read, with each published key it could not use: (its root, one line)."""
        with self._keys_read:
            return [(root, line) for root, lines in self._key_problems.items() for line in lines]

    def _read_keys(self, store: BinaryStore) -> Keyring:
        keyring = published_keys(store.root, store.layout, self.timeout)
        if keyring.unreadable:
            self._key_problems[store.root] = keyring.unreadable
        return keyring
