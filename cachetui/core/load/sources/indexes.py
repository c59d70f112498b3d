"""Index groups: one tag's indexes (the whole tag, and its stacks), read and merged into documents.

A mirror is a group of one index. A ref of the index of indexes is a group of several: the
`root` label (or `build_cache` in older files: `tags.is_whole_tag`) is the whole tag, every other label a stack,
and a spec's stacks are the labels whose index lists it. A group is loaded, cached and
reused as a whole: its fingerprint is the checksums of all its indexes.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from cachetui.core.load.progress import INDEXING, Progress, downloading, reading
from cachetui.core.load.sources.locator import Named, layout_root, named, store_root
from cachetui.core.load.sources.mirror import (
    IndexBytes,
    IndexRef,
    MirrorError,
    Net,
    OfflineCopy,
    age,
    copy_may_stand_in,
    finder,
    offline_fallback,
    read_index,
)
from cachetui.core.load.sources.push_dates import PendingDates, RecordStore, fill
from cachetui.core.load.sources.redact import redact, remember
from cachetui.core.load.sources.transport import MAX_DOWNLOAD_BYTES as MAX_BLOB_BYTES
from cachetui.core.load.sources.transport import FetchError, exists, is_url, join, local_path, public_url
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.records import DepBlock, MirrorOrigin, ParsedDocument, SpecColumns, UnheldRecords
from cachetui.core.spack.tags import is_whole_tag


@dataclass(frozen=True)
class Member:
    """One index of a group: a stack's (label) or the whole tag's (None)."""

    label: str | None
    key: str  # the location the index store knows it by
    locate: Callable[[Net], IndexRef]
    # Downloaded copies kept elsewhere (Spack's own cache), offered when the mirror cannot be reached.
    copies: Callable[[], list[OfflineCopy]] | None = None


@dataclass
class IndexGroup:
    origin: str  # shown as the documents' source
    tag: str
    members: list[Member]
    provenance: MirrorOrigin | None = None  # what `spack mirror add` needs; None for the public cache
    named: bool = False  # its tag was given (NAME=SOURCE), not taken from its location
    # The s3:// location the user named it by: its bucket's listing dates the binaries (read over https all the same).
    listing: str | None = None

    @property
    def key(self) -> str:
        """Its identity in the warm-start cache: one location can be read as several tags."""
        return f"{self.tag}={self.origin}"


@dataclass
class Located:
    """A group whose indexes were found: their refs (None where one could not be) and the fingerprint."""

    group: IndexGroup
    refs: list[IndexRef | None]
    problems: list[Problem] = field(default_factory=list)

    @property
    def fingerprint(self) -> tuple[tuple[str | None, str | None], ...]:
        return tuple((m.label, r.checksum if r else None) for m, r in zip(self.group.members, self.refs))

    @property
    def complete(self) -> bool:
        """Every index found with a checksum, none of them an offline copy: only then may the result be cached
        and reused (a copy is labelled with its date, and must not come back as current once online)."""
        return all(r is not None and r.checksum and not r.offline for r in self.refs)


def root_location(location: str) -> str:
    """The mirror a location belongs to, spelled one way: no index file, no trailing slash, s3 as https."""
    try:
        location = public_url(location)
    except FetchError:
        pass
    root = layout_root(location)
    path = local_path(root)
    return os.path.realpath(path) if path is not None else root


def group_tag(location: str) -> str:
    """A mirror's tag: the last component of its root (`…/develop` -> develop)."""
    root = layout_root(location)
    last = urllib.parse.urlsplit(root).path if is_url(root) else root
    return os.path.basename(last.rstrip("/")) or "mirror"


# -- finding each index's checksum -----------------------------------------------------------------------


def locate(group: IndexGroup, net: Net) -> Located:
    """Find every index of the group (small requests); an unreachable one falls back to its stored copy."""
    located = Located(group, [])
    for member in group.members:
        located.refs.append(_locate_member(member, net, located.problems))
    return located


def _locate_member(member: Member, net: Net, problems: list[Problem]) -> IndexRef | None:
    try:
        return member.locate(net)
    except MirrorError as exc:
        problems.append(Problem(exc.location, exc.reason))
    except FetchError as exc:
        fallback = offline_fallback(member.key, net, exc, member.copies)
        if fallback is not None:
            return fallback
        problems.append(Problem(exc.url, exc.reason))
    return None


# -- reading and merging ---------------------------------------------------------------------------------


@dataclass
class LoadedGroup:
    documents: list[ParsedDocument]
    problems: list[Problem]
    ok: bool  # every index found, read, verified and parsed: only then may the result be cached
    undated: list[RecordStore] = field(default_factory=list)  # where its push dates are, when not looked up yet


def load_group(located: Located, net: Net, look_up_dates: bool = True) -> LoadedGroup:
    """The group's specs, one document per package, with each spec's stacks from the stack indexes, and when each
    was pushed where its storage says (looked up beside the reading: see `push_dates`). `look_up_dates` False: not
    looked up; `undated` says where they are, for the caller to look them up after (`later_dates`)."""
    stores = record_stores(located)
    pending = PendingDates(stores if look_up_dates else [], net.timeout)
    reading = _Reading(located.group, net, list(located.problems))
    group = located.group
    roots = [(m, r) for m, r in zip(group.members, located.refs) if r is not None and m.label is None]
    stacks = [(m, r) for m, r in zip(group.members, located.refs) if r is not None and m.label is not None]
    documents: dict[str, ParsedDocument] = {}
    unheld: dict[tuple[int, int], UnheldRecords] = {}  # two sources' unheld records merged once, not per package
    for member, ref in roots:
        read = reading.read(member, ref, documents=True)
        if read is not None:
            _merge(documents, read.documents, unheld)
    membership: dict[str, set[str]] = {}
    for member, ref in stacks:  # with no whole-tag index, the stacks' own records are the specs
        read = reading.read(member, ref, documents=not roots, membership=True)
        if read is not None:
            _merge(documents, read.documents, unheld)
            membership[member.label or ""] = read.membership
    _attach_stacks(list(documents.values()), membership)
    dates = pending.result()
    fill(documents.values(), dates)
    reading.problems.extend(dates.problems)
    # Dates that could not be read this time (a listing that failed, a walk that could not finish) are not kept:
    # the next load reads the group again rather than say the old failure as current.
    ok = located.complete and not reading.failed and not dates.passing
    return LoadedGroup(sorted(documents.values(), key=lambda d: d.package), reading.problems, ok,
                       [] if look_up_dates else stores)


def record_stores(located: Located) -> list[RecordStore]:
    """Where the group's record files are dated: the whole tag's mirror (its stacks' binaries are the tag's too,
    and filed there), else each stack's; on disk, or listed when the user named the mirror by its s3:// location.
    Nothing else (HTTP, OCI, an offline copy) is looked at: its binaries' dates stay unknown."""
    found = [(m, r) for m, r in zip(located.group.members, located.refs)
             if r is not None and not r.offline and r.layout in ("v3", "v2")]
    chosen = [pair for pair in found if pair[0].label is None] or found
    stores: list[RecordStore] = []
    for member, ref in chosen:
        path = local_path(store_root(member.key))
        if path is not None:
            stores.append(RecordStore(os.path.realpath(path), ref.layout, index_bytes=_index_bytes(ref)))
    listing = located.group.listing
    if listing is not None and chosen:
        stores.append(RecordStore(listing, chosen[0][1].layout, listed=True))
    return list(dict.fromkeys(stores))  # a root named by two indexes is walked once


def _index_bytes(ref: IndexRef) -> int | None:
    """The stored size of a local index: what its manifest says, else its file's (one stat a mirror)."""
    if ref.length is not None:
        return ref.length
    path = local_path(ref.location)
    try:
        return os.stat(path).st_size if path is not None else None
    except OSError:
        return None  # what is wrong with it is said when it is read


@dataclass
class _Read:
    documents: list[ParsedDocument]
    membership: set[str]  # the hashes it holds in the build cache


@dataclass
class _Reading:
    """Reads a group's indexes, recording each problem and whether any read failed."""

    group: IndexGroup
    net: Net
    problems: list[Problem]
    failed: bool = False

    def read(self, member: Member, ref: IndexRef, *, documents: bool, membership: bool = False) -> _Read | None:
        """The index's documents, its membership, or both; None when it cannot be read. Its bytes are read while
        their checksum is worked out (`IndexBytes`): when they turn out not to be what the mirror published,
        what was read from them, problems included, is dropped, and the mismatch is the one problem."""
        fetched = self.fetch(member, ref)
        if fetched is None:
            return None
        reading = _Reading(self.group, self.net, [])  # what these bytes say: kept apart until they are confirmed
        read = _Read(reading.parse(member, ref, fetched.data) if documents else [],
                     reading.membership(member, fetched.data) if membership else set())
        try:
            fetched.confirm()
        except MirrorError as exc:
            self._fail(Problem(exc.location, exc.reason))
            return None
        self.problems += reading.problems
        self.failed |= reading.failed
        return read

    def fetch(self, member: Member, ref: IndexRef) -> IndexBytes | None:
        try:
            return read_index(ref, self.net, member.key, downloading(_index_name(self.group, member)))
        except MirrorError as exc:
            self._fail(Problem(exc.location, exc.reason))
        except FetchError as exc:
            self._fail(Problem(exc.url, exc.reason))
        return None

    def parse(self, member: Member, ref: IndexRef, data: bytes) -> list[ParsedDocument]:
        progress, said = self.net.progress, reading(_index_name(self.group, member))
        report = None
        if progress is not None:
            progress(0, None, said)
            report = partial(_records_read, progress, said)
        origin = labelled(self.group.origin, ref)
        from cachetui.core.load.sources.spack_db import IndexFormatError, read_database  # on a miss only: a warm
        # start never decodes an index, so it never imports the reader (and msgspec)
        try:
            content = read_database(data, origin, self.group.tag, "mirror index", report)
        except IndexFormatError as exc:
            self._fail(Problem(ref.location, f"{exc} ({ref.said})"))
            return []
        except Exception as exc:  # noqa: BLE001 - a reader's bug must cost this index, not every other source
            self._fail(Problem(ref.location, f"could not be read: {_bug(exc)} ({ref.said})"))
            return []
        self.problems.extend(content.problems)
        layout = "OCI registry" if ref.layout == "oci" else f"layout {ref.layout}"
        for doc in content.documents:
            doc.generation = f"mirror index ({layout}, database v{content.version}" + \
                (f"; {ref.offline})" if ref.offline else ")")
        return content.documents

    def membership(self, member: Member, data: bytes) -> set[str]:
        from cachetui.core.load.sources.spack_db import IndexFormatError, read_membership  # as in parse
        try:
            return read_membership(data)
        except IndexFormatError as exc:
            self._fail(Problem(member.key, str(exc)))
        except Exception as exc:  # noqa: BLE001 - as in parse
            self._fail(Problem(member.key, f"could not be read: {_bug(exc)}"))
        return set()

    def _fail(self, problem: Problem) -> None:
        self.problems.append(problem)
        self.failed = True


def labelled(origin: str, ref: IndexRef | None) -> str:
    """Where documents say they came from: an offline copy says so, with its date, wherever that shows."""
    return f"{origin} ({ref.offline})" if ref is not None and ref.offline else origin


def _bug(exc: Exception) -> str:
    """An unexpected failure in one line: it is cachetui's fault, whatever the index held."""
    return f"internal error {type(exc).__name__} (a bug in cachetui; please report it)"


def _index_name(group: IndexGroup, member: Member) -> str:
    return f"the {group.tag} index" + (f" of {member.label}" if member.label else "")


def _merge(documents: dict[str, ParsedDocument], new: list[ParsedDocument],
           unheld: dict[tuple[int, int], UnheldRecords]) -> None:
    """Add specs by package; a hash already present (from another index of the tag) is kept once."""
    for doc in new:
        if doc.package not in documents:
            documents[doc.package] = doc
            continue
        into = documents[doc.package]
        seen = set(into.columns.hashes)
        rows = [row for row in range(len(doc.columns)) if doc.columns.hashes[row] not in seen]
        if rows:
            into.columns = _with_rows(into.columns, doc.columns, rows, unheld)


def _with_rows(into: SpecColumns, source: SpecColumns, rows: list[int],
               merged: dict[tuple[int, int], UnheldRecords]) -> SpecColumns:
    """`into` and then the given rows of `source` (their dependency edges too)."""
    deps = None
    if into.deps is not None or source.deps is not None:
        kept = into.deps.rows() if into.deps is not None else [()] * len(into)
        added = source.deps.rows() if source.deps is not None else [()] * len(source)
        found = [b.table.unheld for b in (into.deps, source.deps) if b is not None and b.table.unheld is not None]
        unheld = next(iter(found), None)
        if len(found) == 2:
            key = (id(found[0]), id(found[1]))
            unheld = merged.get(key) or merged.setdefault(key, found[0].merged(found[1]))
        deps = DepBlock.from_rows(kept + [added[row] for row in rows], unheld)
    return into.with_rows(source, rows, deps)


def _attach_stacks(documents: list[ParsedDocument], membership: dict[str, set[str]]) -> None:
    labels = sorted(membership)
    if not labels:  # a mirror of no stacks: a hundred thousand empty tuples are one
        for doc in documents:
            doc.columns.stacks = [()] * len(doc.columns.hashes)
        return
    for doc in documents:
        columns = doc.columns
        columns.stacks = [tuple(label for label in labels if h in membership[label]) for h in columns.hashes]


# -- the index of indexes ----------------------------------------------------------------------------------


INDEX_OF_INDEXES_MAX = 16 * 2**20  # the public one is about 100 KB: a larger file is never taken for one


def index_of_indexes(location: str, only: frozenset[str], net: Net) -> tuple[list[IndexGroup], list[Problem]]:
    """Fetch an index of indexes (offline: its stored copy, with its age) and read its groups."""
    data, problems = _fetched(location, net, lambda _: True)
    if data is None:
        return [], problems
    groups, more = read_index_of_indexes(data, location, only)
    return groups, [*problems, *more]


def index_of_indexes_or(location: str, only: frozenset[str], otherwise: IndexGroup, net: Net
                        ) -> tuple[list[IndexGroup], list[Problem]]:
    """A file whose name does not say what it is: an index of indexes when its content is one, else `otherwise`.

    An `index.json` with its `index.json.hash` beside it is a mirror's index, and is not looked into.
    """  # see locator.content_decides for the names that come here
    try:
        if named(location) is Named.V2_INDEX and exists(location + ".hash", timeout=net.timeout):
            return [otherwise], []
    except FetchError:
        return [otherwise], []  # unreachable: reading it as what its name says tells so
    data, problems = _fetched(location, net, is_index_of_indexes, INDEX_OF_INDEXES_MAX)
    if data is None or not is_index_of_indexes(data):
        return [otherwise], []  # read as what its name says, which says what is wrong with it
    groups, more = read_index_of_indexes(data, location, only)
    return groups, [*problems, *more]


def is_index_of_indexes(data: bytes) -> bool:
    """Whether `data` is an index of indexes, `{tag: [{label, url}, …]}`, whatever its file is called.

    A Spack database (`{"database": …}`) or an index manifest (`{"data": [{"mediaType": …}]}`) is not.
    """
    if len(data) > INDEX_OF_INDEXES_MAX or b'"label"' not in data or b'"url"' not in data:
        return False  # without parsing: a mirror's index is large and names neither
    try:
        refs = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(refs, dict) and any(isinstance(entry, dict) and "label" in entry and "url" in entry
                                          for entries in refs.values() if isinstance(entries, list)
                                          for entry in entries)


def _fetched(location: str, net: Net, keep: Callable[[bytes], bool], max_bytes: int = MAX_BLOB_BYTES
             ) -> tuple[bytes | None, list[Problem]]:
    """The bytes at `location`, stored when `keep` says so; when it cannot be reached, the copy stored last
    (that `keep` still takes), with a warning saying how old it is."""
    try:
        data = net.fetch(location, what=downloading("the index of indexes"), max_bytes=max_bytes)
    except FetchError as exc:
        stored = net.store.latest(location) if net.store is not None and copy_may_stand_in(exc) else None
        if stored is None or not keep(stored.data):
            return None, [Problem(exc.url, exc.reason)]
        return stored.data, [Problem(location, f"cannot reach it ({exc.reason}); showing the copy stored "
                                               f"{age(net.now() - stored.stored_at)} ago", Severity.WARNING,
                                     stale=True)]
    if net.store is not None and keep(data):
        net.store.put(location, hashlib.sha256(data).hexdigest(), data)
    return data, []


def read_index_of_indexes(data: bytes, location: str, only: frozenset[str]) -> tuple[list[IndexGroup], list[Problem]]:
    """`{ref: [{label, url}]}` -> one group per ref (just `only` when given)."""
    try:
        refs = json.loads(data)
    except (ValueError, RecursionError) as exc:
        return [], [Problem(location, f"not valid JSON: {exc}")]
    if not isinstance(refs, dict):
        return [], [Problem(location, "not an index of indexes: expected {ref: [{label, url}]}")]
    problems = [Problem(location, f"tag {tag!r} is not in this index of indexes") for tag in sorted(only - set(refs))]
    groups = []
    for ref, entries in refs.items():
        if only and ref not in only:
            continue
        if not isinstance(entries, list):
            problems.append(Problem(location, f"tag {str(ref)[:40]!r} is not a list of {{label, url}}"))
            continue
        members = [m for m in (_member(entry, location, problems) for entry in entries) if m is not None]
        # The binaries' source is the mirror the whole-tag index belongs to: what `spack mirror add` needs.
        root = next((root_location(m.key) for m in members if m.label is None), None)
        groups.append(IndexGroup(root or f"{location}#{ref}", str(ref), members))
    return groups, problems


def _member(entry: object, location: str, problems: list[Problem]) -> Member | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str) or not isinstance(entry.get("label"), str):
        shown = redact(str(entry))[:80]
        problems.append(Problem(location, f"an entry is not {{label, url}}: {shown}", Severity.WARNING))
        return None
    label = None if is_whole_tag(entry["label"]) else entry["label"]
    try:
        url = _resolve(entry["url"], location)
    except FetchError as exc:
        problems.append(Problem(location, str(exc)))
        return None
    if is_url(location) and local_path(url) is not None:  # a remote file must not point into this machine
        problems.append(Problem(location, f"an entry names a local location ({url[:80]}); not read"))
        return None
    return Member(label, url, finder(url))


def _resolve(url: str, base: str) -> str:
    """s3:// through the public https front; a relative location against the index of indexes."""
    if is_url(url):
        return remember(public_url(url))  # credentials in an entry are used for its host, never shown
    if is_url(base):
        return urllib.parse.urljoin(base, url)
    return join(os.path.dirname(base), url)


def _records_read(progress: Progress, said: str, done: int, total: int) -> None:
    """How far the reading of an index got; once every record is read, what follows is indexing them."""
    if done < total:
        progress(done, total, said)
    else:
        progress(0, None, INDEXING)
