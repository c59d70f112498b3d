"""One call from what the user typed to a ready Corpus; what the app, the CLI and the benchmarks use.

Inputs are recognised by `cachetui.core.load.sources`: site documents are walked and parsed file
by file (`site_pass`); mirrors and indexes of indexes become index groups (one per tag), located with a
small request each and read in full only when their checksums changed. With a cache, the
last corpus is reused wherever its inputs are unchanged (see cachetui.core.load.cache).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cachetui.core.load.cache import CACHE_REBUILT, CorpusCache
from cachetui.core.load.glance import forget_glance, glance_name, glance_of, write_glance
from cachetui.core.load.later_dates import CacheWrite, LaterDates, Undated
from cachetui.core.load.no_cyclic_gc import no_cyclic_gc
from cachetui.core.load.options import LoadOptions
from cachetui.core.load.progress import INDEXING, OPENING, WAITING, Progress
from cachetui.core.load.site_pass import SitePass
from cachetui.core.load.snapshot import Snapshot
from cachetui.core.load.sources import IndexOfIndexes, MaybeIndexOfIndexes, SiteDocuments
from cachetui.core.load.sources.index_store import IndexStore
from cachetui.core.load.sources.indexes import (
    IndexGroup,
    Located,
    index_of_indexes,
    index_of_indexes_or,
    labelled,
    load_group,
    locate,
    record_stores,
    root_location,
)
from cachetui.core.load.sources.locator import store_root
from cachetui.core.load.sources.mirror import Net
from cachetui.core.load.sources.spack_config import SpackMirrors, configured_groups
from cachetui.core.load.typed_inputs import require_inputs
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.moment import at_load
from cachetui.core.model.problems import LoadReport, PathNotFound, Problem, Severity
from cachetui.core.model.records import BinaryStore, MirrorOrigin

if TYPE_CHECKING:  # imported where a miss uses them: a warm start imports no parser and no builder
    from cachetui.core.load.sources import Source
    from cachetui.core.model.build import CorpusBuilder

__all__ = ["CACHE_REBUILT", "LoadOptions", "PathNotFound", "load_corpus", "load_dating_later"]


def load_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    options: LoadOptions = LoadOptions(),  # noqa: B008 -- frozen: one shared default is safe
    *,
    progress: Progress | None = None,
    cache: CorpusCache | None = None,
) -> Corpus:
    """Load every input (documents, mirrors, indexes of indexes) into a Corpus; its `report` holds every problem.

    Documents stream straight into the builder, so only a few are held as Python objects at a
    time. `options.workers` processes parse the files. With a warm cache (`cache`, else the user's
    when `options.use_cache`), unchanged files and indexes are not read again, and indexes are
    verified once and kept. `progress` hears how far the load is (it is this call's, not a choice).
    """
    return _load(inputs, options, progress, cache, dates_later=False)[0]


def load_dating_later(
    inputs: Sequence[str | os.PathLike[str]],
    options: LoadOptions = LoadOptions(),  # noqa: B008 -- frozen: one shared default is safe
    *,
    progress: Progress | None = None,
    cache: CorpusCache | None = None,
) -> tuple[Corpus, LaterDates | None]:
    """`load_corpus`, but the push dates of a mirror read now (not from the warm cache) are not looked up beside
    its reading: the corpus comes back without them, with what looks them up after (`later_dates`; None when
    nothing is left to date). The load writes the warm cache file with those mirrors marked as left to date
    (`Snapshot.undated`); `LaterDates.store` writes it again with their dates."""
    return _load(inputs, options, progress, cache, dates_later=True)


def _load(inputs: Sequence[str | os.PathLike[str]], options: LoadOptions, progress: Progress | None,
          cache: CorpusCache | None, dates_later: bool) -> tuple[Corpus, LaterDates | None]:
    if progress is not None:  # said before anything is looked at: finding a mirror's index may take a while
        progress(0, None, OPENING)
    if cache is None and options.use_cache:
        cache = CorpusCache()
    sources, problems = require_inputs(inputs)
    net = Net(timeout=options.timeout, progress=progress, store=IndexStore(cache.directory) if cache else None)
    with no_cyclic_gc():
        load = _Load(sources, [str(i) for i in inputs], cache, options.max_file_bytes, progress, options.workers,
                     net, LoadReport(problems=problems), dates_later=dates_later)
        corpus = load.run()
    return corpus, load.later


@dataclass
class _Load:
    sources: list[Source]
    inputs: list[str]
    cache: CorpusCache | None
    max_bytes: int
    progress: Progress | None
    workers: int | None
    net: Net
    report: LoadReport = field(default_factory=LoadReport)
    dates_later: bool = False  # a mirror read now is dated after the load (`load_dating_later`)
    undated: list[Undated] = field(default_factory=list)
    later: LaterDates | None = None
    cache_written: bool = False

    def run(self) -> Corpus:
        if self.cache is None:
            return self._run(None)
        # One process at a time reads these sources and writes their file: another at once waits, then reuses it.
        name = self.cache.name_for(self.inputs, self.max_bytes)
        with self.cache.locked(name, self._waiting):
            corpus = self._run(name)
        # What the next start of the browser draws first, while it checks the sources again (`glance`): kept beside
        # a cache file, never in place of one; a reading that could not be cached leaves none (it is not the last).
        glance = glance_name(self.inputs, self.max_bytes)
        if corpus.cache_status == "hit" or self.cache_written:
            write_glance(self.cache.directory, glance, glance_of(corpus))
        else:
            forget_glance(self.cache.directory, glance)
        return corpus

    def _waiting(self) -> None:
        if self.progress is not None:
            self.progress(0, None, WAITING)

    def _run(self, name: str | None) -> Corpus:
        cache = self.cache
        snapshot = None
        if cache is not None and name is not None:
            snapshot = cache.read(name)
            if cache.damaged is not None:  # said once: the file is rebuilt by this load
                self.report.add(Problem(cache.damaged, CACHE_REBUILT, Severity.WARNING))
        site = SitePass([s.path for s in self.sources if isinstance(s, SiteDocuments)], snapshot, self.report)
        groups = [locate(g, self.net) for g in self._groups()]
        if snapshot is not None and site.all_reused() and _groups_reused(groups, snapshot) and not snapshot.undated:
            return self._hit(snapshot, site, groups)
        from cachetui.core.model.build import CorpusBuilder

        builder = CorpusBuilder()
        # The code's digest is worked out beside a cold load (it keys the file written at its end), in a thread
        # started once the parsers are: a process of one thread forks them.
        beside = cache.will_write if cache is not None and name is not None and snapshot is None else _nothing
        site.load_into(builder, self.max_bytes, self.workers, self.progress, beside)
        cacheable = self._add_groups(builder, groups, snapshot)
        self.report.extend(self.net.problems)
        status = _status(cache, snapshot, site, groups)
        if self.progress is not None:
            self.progress(0, None, INDEXING)
        if cache is None or name is None:
            corpus = _finished(builder.finish(self.report), status, groups)
        else:
            # Written as the corpus is finished (a cold load's tail on two cores), the groups left to date marked:
            # should the browser quit before their dates are in, its next start is warm and dates them then.
            with cache.writing(name) as file:
                corpus = _finished(builder.finish(self.report, file.put), status, groups)
                file.complete(_snapshot(site, corpus, cacheable, {u.key: sorted(u.paths) for u in self.undated}))
            self.cache_written = file.written
        if self.undated:  # dated after the load, then the file written again with the dates (`LaterDates.store`)
            write = _cache_write(cache, name, site, cacheable) if cache is not None and name is not None else None
            self.later = LaterDates(tuple(self.undated), self.net.timeout, write)
        return corpus

    def _groups(self) -> list[IndexGroup]:
        """Every index group, once: the same location read as the same tag twice is one group."""
        groups: dict[str, IndexGroup] = {}
        loaded_as: dict[str, str] = {}  # the mirror of a whole-tag index -> the tag it is loaded as
        for source in self.sources:
            if isinstance(source, IndexGroup):
                found = [source]
            elif isinstance(source, IndexOfIndexes):
                found, problems = index_of_indexes(source.location, source.only, self.net)
                self.report.extend(problems)
            elif isinstance(source, MaybeIndexOfIndexes):
                found, problems = index_of_indexes_or(source.location, source.only, source.otherwise, self.net)
                self.report.extend(problems)
            elif isinstance(source, SpackMirrors):
                found, problems = configured_groups(source, self.net)
                self.report.extend(problems)
            else:
                found = []
            for group in found:
                roots = [root_location(member.key) for member in group.members if member.label is None]
                earlier = next((loaded_as[root] for root in roots if root in loaded_as), None)
                if earlier is None and group.key in groups:
                    continue
                if earlier is not None:  # by URL and again through an index of indexes: every binary twice
                    self.report.add(Problem(group.origin, f"the same mirror as tag {earlier!r}: named twice, "
                                                          f"loaded once as {earlier!r}", Severity.WARNING))
                    continue
                loaded_as.update(dict.fromkeys(roots, group.tag))
                groups[group.key] = group
        return list(groups.values())

    def _add_groups(self, builder: CorpusBuilder, groups: list[Located], snapshot: Snapshot | None
                    ) -> dict[str, tuple[tuple, list[Problem]]]:
        """Each group's documents into the builder: from the cached corpus when its checksums are unchanged.

        Returns what may be cached: the fingerprint and problems of each group read in full.
        """
        cacheable: dict[str, tuple[tuple, list[Problem]]] = {}
        for located in groups:
            self.report.indexes_read += sum(1 for ref in located.refs if ref is not None)
            key = located.group.key
            # A group kept undated is reused by a load that dates later (and dated after it), read again by one that
            # dates now.
            if snapshot is not None and located.complete and snapshot.groups.get(key) == located.fingerprint \
                    and (self.dates_later or key not in snapshot.undated):
                documents, problems = snapshot.documents_from(located.group.origin, located.group.tag), \
                    snapshot.group_problems.get(key, [])
                ok = True
                if key in snapshot.undated:
                    self.undated.append(Undated(key, tuple(record_stores(located)), frozenset(snapshot.undated[key])))
            else:
                loaded = load_group(located, self.net, look_up_dates=not self.dates_later)
                documents, problems, ok = loaded.documents, loaded.problems, loaded.ok
                if loaded.undated:
                    self.undated.append(Undated(key, tuple(loaded.undated), frozenset(d.path for d in documents)))
            for document in documents:
                builder.add(document)
            self.report.extend(problems)
            if ok:
                cacheable[key] = (located.fingerprint, problems)
        return cacheable

    def _hit(self, snapshot: Snapshot, site: SitePass, groups: list[Located]) -> Corpus:
        """Everything unchanged: the cached corpus, with this load's own walk, network and index-of-indexes
        problems (never old ones), and the problems of the files and indexes it was built from."""
        corpus = snapshot.corpus
        problems = [*self.report.problems, *(p for ps in snapshot.file_problems.values() for p in ps),
                    *(p for ps in snapshot.group_problems.values() for p in ps), *self.net.problems]
        indexes = sum(1 for located in groups for ref in located.refs if ref is not None)
        corpus.report = LoadReport(files_seen=site.listing.files, indexes_read=indexes, problems=problems)
        return _finished(corpus, "hit", groups)


def _snapshot(site: SitePass, corpus: Corpus, cacheable: dict[str, tuple[tuple, list[Problem]]],
              undated: dict[str, list[str]]) -> Snapshot:
    """What the cache file keeps besides the corpus: each cacheable group's fingerprint and problems, and which of
    them are left to date (only those it keeps)."""
    return site.to_snapshot(corpus, {key: fingerprint for key, (fingerprint, _) in cacheable.items()},
                            {key: problems for key, (_, problems) in cacheable.items()},
                            {key: paths for key, paths in undated.items() if key in cacheable})


def _cache_write(cache: CorpusCache, name: str, site: SitePass,
                 cacheable: dict[str, tuple[tuple, list[Problem]]]) -> CacheWrite:
    """What writes the cache file once the corpus is dated: as a load writes it, under the same lock; a group whose
    dates failed for a reason that may pass is left out of it (read again by the next load, as at a load)."""
    def write(corpus: Corpus, dating: dict[str, list[Problem]], failed: set[str]) -> None:
        dated = {key: (fingerprint, [*problems, *dating.get(key, [])])
                 for key, (fingerprint, problems) in cacheable.items() if key not in failed}
        with cache.locked(name), cache.writing(name) as file:
            file.complete(_snapshot(site, corpus, dated, {}))

    return write


def _nothing() -> None:
    pass


def _finished(corpus: Corpus, status: str, groups: list[Located]) -> Corpus:
    """The corpus with what this load says of it: its cache status, where each mirror's documents came from, and
    the facets of the moment of the load (a warm cache's would be of the load that wrote it)."""
    corpus.cache_status = status
    corpus.origins, corpus.offline = _origins(groups), _offline(groups)
    corpus.stores = binary_stores(groups)
    return at_load(corpus)


def _origins(groups: list[Located]) -> dict[str, MirrorOrigin]:
    """Each mirror's documents (by the path they carry) -> where the mirror was loaded from."""
    origins = {}
    for located in groups:
        provenance = located.group.provenance
        if provenance is not None:
            for ref in located.refs:
                origins[labelled(located.group.origin, ref)] = provenance
    return origins


def binary_stores(groups: list[Located]) -> dict[str, BinaryStore]:
    """Each mirror's documents (by the path they carry) -> where its binaries' signed records are, in the order
    the sources were named: the whole-tag index's mirror, else its first stack's."""
    stores: dict[str, BinaryStore] = {}
    for located in groups:
        found = [(member, ref) for member, ref in zip(located.group.members, located.refs) if ref is not None]
        found.sort(key=lambda pair: pair[0].label is not None)  # the whole tag's own index first
        for member, ref in found:
            stores.setdefault(labelled(located.group.origin, ref), BinaryStore(store_root(member.key), ref.layout))
    return stores


def _offline(groups: list[Located]) -> dict[str, str]:
    """Each offline copy's documents (by the path they carry) -> its label, so every output can say so."""
    return {labelled(located.group.origin, ref): ref.offline
            for located in groups for ref in located.refs if ref is not None and ref.offline}


def _groups_reused(groups: list[Located], snapshot: Snapshot) -> bool:
    current = {g.group.key: g.fingerprint for g in groups}
    return all(g.complete for g in groups) and current == snapshot.groups


def _status(cache: CorpusCache | None, snapshot: Snapshot | None, site: SitePass, groups: list[Located]) -> str:
    if cache is None:
        return "off"
    if cache.refused is not None:
        return f"off: {cache.refused}"
    if snapshot is None:
        return "miss"
    parts = []
    files = len(site.listing.candidates)
    if files:
        parts.append(f"{files - len(site.reused)} of {files} files parsed")
    if groups:
        read = sum(1 for g in groups if not (g.complete and snapshot.groups.get(g.group.key) == g.fingerprint))
        parts.append(f"{read} of {len(groups)} index groups read")
    return "partial: " + ", ".join(parts) if parts else "miss"
