"""Index groups: one tag's indexes (the whole tag, and its stacks), read and merged into documents.

A mirror is a group of one index. A ref of the index of indexes is a group of several: the
`root` label (or `build_cache` in older files) is the whole tag, every other label a stack,
and a spec's stacks are the labels whose index lists it. A group is loaded, cached and
reused as a whole: its fingerprint is the checksums of all its indexes.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field

from cachetui.core.problems import Problem, Severity
from cachetui.core.progress import downloading, reading
from cachetui.core.records import DepBlock, ParsedDocument, SpecColumns
from cachetui.core.sources.mirror import (
    V2_INDEX,
    IndexRef,
    MirrorError,
    Net,
    blob_ref,
    offline_fallback,
    probe_manifest,
    probe_root,
    probe_v2_index,
    read_index,
)
from cachetui.core.sources.spack_db import IndexFormatError, read_database, read_membership
from cachetui.core.sources.transport import FetchError, is_url, join, public_url

ROOT_LABELS = frozenset({"root", "build_cache"})  # the whole tag, not a stack
_LAYOUT_TAIL = re.compile(r"/(?:build_cache/index\.json|v3/manifests/index/index\.manifest\.json|blobs/sha256/.*)$")


@dataclass(frozen=True)
class Member:
    """One index of a group: a stack's (label) or the whole tag's (None)."""

    label: str | None
    key: str  # the location the index store knows it by
    locate: Callable[[Net], IndexRef]


@dataclass
class IndexGroup:
    origin: str  # identity in the warm-start cache; shown as the documents' source
    tag: str
    members: list[Member]


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
        """Every index found with a checksum: only then may the result be cached and reused."""
        return all(r is not None and r.checksum for r in self.refs)


def group_tag(location: str) -> str:
    """A mirror's tag: the last component of its root (`…/develop` -> develop)."""
    root = _LAYOUT_TAIL.sub("", location.rstrip("/"))
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
        fallback = None if exc.missing else offline_fallback(member.key, net, exc)
        if fallback is not None:
            return fallback
        problems.append(Problem(exc.url, exc.reason))
    return None


# -- reading and merging ---------------------------------------------------------------------------------


def load_group(located: Located, net: Net) -> tuple[list[ParsedDocument], list[Problem]]:
    """The group's specs, one document per package, with each spec's stacks from the stack indexes."""
    problems = list(located.problems)
    group = located.group
    roots = [(m, r) for m, r in zip(group.members, located.refs) if r is not None and m.label is None]
    stacks = [(m, r) for m, r in zip(group.members, located.refs) if r is not None and m.label is not None]
    documents: dict[str, ParsedDocument] = {}
    for member, ref in roots:
        _merge(documents, _read(member, ref, net, group, problems))
    membership: dict[str, set[str]] = {}
    for member, ref in stacks:
        data = _fetch(member, ref, net, group, problems)
        if data is None:
            continue
        if not roots:  # no whole-tag index: the stacks' own records are the specs
            _merge(documents, _parse(member, ref, data, group, net, problems))
        membership[member.label or ""] = _membership(member, data, problems)
    _attach_stacks(documents.values(), membership)
    return sorted(documents.values(), key=lambda d: d.package), problems


def _fetch(member: Member, ref: IndexRef, net: Net, group: IndexGroup, problems: list[Problem]) -> bytes | None:
    try:
        return read_index(ref, net, member.key, downloading(_index_name(group, member)))
    except MirrorError as exc:
        problems.append(Problem(exc.location, exc.reason))
    except FetchError as exc:
        problems.append(Problem(exc.url, exc.reason))
    return None


def _read(member: Member, ref: IndexRef, net: Net, group: IndexGroup, problems: list[Problem]) -> list[ParsedDocument]:
    data = _fetch(member, ref, net, group, problems)
    return [] if data is None else _parse(member, ref, data, group, net, problems)


def _index_name(group: IndexGroup, member: Member) -> str:
    return f"the {group.tag} index" + (f" of {member.label}" if member.label else "")


def _parse(member: Member, ref: IndexRef, data: bytes, group: IndexGroup, net: Net,
           problems: list[Problem]) -> list[ParsedDocument]:
    if net.progress is not None:
        net.progress(0, None, reading(_index_name(group, member)))
    try:
        content = read_database(data, group.origin, group.tag, f"mirror index (layout {ref.layout})")
    except IndexFormatError as exc:
        problems.append(Problem(ref.location, f"{exc} (sha256 {ref.checksum})"))
        return []
    problems.extend(content.problems)
    for doc in content.documents:
        doc.generation = f"mirror index (layout {ref.layout}, database v{content.version})"
    return content.documents


def _membership(member: Member, data: bytes, problems: list[Problem]) -> set[str]:
    try:
        return read_membership(data)
    except IndexFormatError as exc:
        problems.append(Problem(member.key, str(exc)))
        return set()


def _merge(documents: dict[str, ParsedDocument], new: list[ParsedDocument]) -> None:
    """Add specs by package; a hash already present (from another index of the tag) is kept once."""
    for doc in new:
        if doc.package not in documents:
            documents[doc.package] = doc
            continue
        into = documents[doc.package].columns
        seen = set(into.hashes)
        for row in range(len(doc.columns)):
            if doc.columns.hashes[row] not in seen:
                _append_row(into, doc.columns, row)


def _append_row(into: SpecColumns, source: SpecColumns, row: int) -> None:
    for name in ("hashes", "versions", "compilers", "platforms", "oss", "targets", "variants", "stacks", "sizes"):
        getattr(into, name).append(getattr(source, name)[row])
    if source.deps is not None:
        into.deps = _join(into.deps, source.deps.sliced(row, row + 1), len(into) - 1)


def _join(first: DepBlock | None, second: DepBlock, first_specs: int) -> DepBlock:
    """Two runs' edges as one (their tables differ: rebuilt from rows; only for specs a root index lacks)."""
    rows = first.rows() if first is not None else [()] * first_specs
    return DepBlock.from_rows(rows + second.rows())


def _attach_stacks(documents: object, membership: dict[str, set[str]]) -> None:
    labels = sorted(membership)
    for doc in documents:  # type: ignore[attr-defined]
        columns = doc.columns
        columns.stacks = [tuple(label for label in labels if h in membership[label]) for h in columns.hashes]


# -- the index of indexes ----------------------------------------------------------------------------------


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
        members = [_member(entry, location, problems) for entry in entries if isinstance(entries, list)]
        groups.append(IndexGroup(f"{location}#{ref}", str(ref), [m for m in members if m is not None]))
    return groups, problems


def _member(entry: object, location: str, problems: list[Problem]) -> Member | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str) or not isinstance(entry.get("label"), str):
        problems.append(Problem(location, f"an entry is not {{label, url}}: {str(entry)[:80]}", Severity.WARNING))
        return None
    label = None if entry["label"] in ROOT_LABELS else entry["label"]
    try:
        url = _resolve(entry["url"], location)
    except FetchError as exc:
        problems.append(Problem(location, str(exc)))
        return None
    return Member(label, url, _locator(url))


def _resolve(url: str, base: str) -> str:
    """s3:// through the public https front; a relative location against the index of indexes."""
    if is_url(url):
        return public_url(url)
    if is_url(base):
        return urllib.parse.urljoin(base, url)
    return join(os.path.dirname(base), url)


def _locator(url: str) -> Callable[[Net], IndexRef]:
    bare = url.rstrip("/")
    if "/blobs/" in bare:
        return lambda net: blob_ref(bare)
    if bare.endswith("index.manifest.json"):
        return lambda net: probe_manifest(bare, net)
    if bare.endswith(V2_INDEX) or bare.endswith("index.json"):
        return lambda net: probe_v2_index(bare, net)
    return lambda net: probe_root(bare, net)
