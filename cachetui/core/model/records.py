"""Plain records that the loader produces: compact, no behaviour."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from itertools import accumulate
from typing import Any, NamedTuple

from cachetui.core.model.problems import Problem

UNKNOWN_SIZE = -1
UNKNOWN_PUSHED = -1  # seconds since the epoch (UTC) a binary was pushed: its storage does not say


class Dependency(NamedTuple):
    """One edge of a binary's dependency DAG, as a mirror's index records it."""

    name: str
    hash: str
    version: str  # of the dependency's own record in the index; "" when the index lacks it
    deptypes: int  # bits over DEPTYPES
    virtuals: str  # comma-joined, e.g. "c,cxx"


class MirrorOrigin(NamedTuple):
    """Where a mirror's binaries were loaded from, as Spack would be told about it."""

    name: str  # the mirror's name in the user's Spack configuration, else the tag it was loaded as
    url: str  # as `spack mirror add` takes it
    configured: bool  # in the user's Spack configuration already: `spack install` finds it
    credentials_left_out: bool = False  # `url` had a user or password, not given on: the user adds their own


class BinaryStore(NamedTuple):
    """Where a mirror keeps its binaries and their signed records: what a binary's provenance is read from."""

    root: str  # the mirror's root (credentials replaced by `***`, kept for the transport), or `oci://HOST/NAME`
    layout: str  # v3, v2 (Spack's layouts) or oci


@dataclass(slots=True, eq=False)
class UnheldRecords:
    """Records an index holds without their binary (`in_buildcache: false`) that its binaries reach.

    Spack's DAG goes through them: `^curl` matches a binary that reaches curl only through such a
    record, and what they need is needed to install. Each record's edges are columns: record k
    owns edges sum(counts[:k]) to sum(counts[:k+1]), each naming its target by hash, name and version.
    """

    hashes: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    # Grown in place, a record at a time: `+=` on bytes would copy the whole column each time.
    external: bytearray = field(default_factory=bytearray)  # 1 where the record is an external (never built here)
    counts: list[int] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)  # hash per edge
    target_names: list[str] = field(default_factory=list)
    target_versions: list[str] = field(default_factory=list)
    types: bytearray = field(default_factory=bytearray)
    virtuals: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.hashes)

    def add(self, hash_: str, name: str, version: str, external: bool, edges: list[Dependency]) -> None:
        self.hashes.append(hash_)
        self.names.append(name)
        self.versions.append(version)
        self.external += b"\1" if external else b"\0"
        self.counts.append(len(edges))
        self.targets.extend(edge.hash for edge in edges)
        self.target_names.extend(edge.name for edge in edges)
        self.target_versions.extend(edge.version for edge in edges)
        self.types += bytes(edge.deptypes for edge in edges)
        self.virtuals.extend(edge.virtuals for edge in edges)

    def edges(self) -> list[list[Dependency]]:
        """Each record's edges, in record order."""
        flat = [Dependency(*edge) for edge in zip(self.target_names, self.targets, self.target_versions, self.types,
                                                   self.virtuals)]
        offsets = list(accumulate(self.counts, initial=0))
        return [flat[a:b] for a, b in zip(offsets, offsets[1:])]

    def merged(self, other: UnheldRecords | None) -> UnheldRecords:
        """These records and those of `other` this one lacks (indexes of one tag merged)."""
        if other is None:
            return self
        merged, seen = UnheldRecords(), set(self.hashes)
        for source in (self, other):
            for record, edges in zip(range(len(source)), source.edges()):
                if source is self or source.hashes[record] not in seen:
                    merged.add(source.hashes[record], source.names[record], source.versions[record],
                               bool(source.external[record]), edges)
        return merged


@dataclass(slots=True, eq=False)
class DepTable:
    """The dependencies one source names, each once: hash, name and version per ordinal."""

    hashes: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)  # "" when the source lacks the dependency's record
    unheld: UnheldRecords | None = None  # records without their binary that the edges reach, with their own edges


@dataclass(slots=True)
class DepBlock:
    """The dependency edges of a run of specs, column by column: no object per edge.

    Spec k of the run owns edges sum(counts[:k]) to sum(counts[:k+1]). An edge is an ordinal
    into `table` (the dependency: hash, name, version, the same for every edge to it), its
    deptype bits, and an ordinal into `virtual_names`. The table is shared by every document
    of a source, so the model maps it to its own ids once per source, not once per edge.
    """

    counts: list[int]
    targets: list[int]  # ordinals into table
    types: bytes  # deptype bits per edge
    virtuals: list[int]  # ordinals into virtual_names
    table: DepTable
    virtual_names: list[str]  # comma-joined, e.g. "c,cxx"

    def __len__(self) -> int:
        return len(self.counts)

    @classmethod
    def from_rows(cls, rows: list[tuple[Dependency, ...]], unheld: UnheldRecords | None = None) -> DepBlock:
        table, virtual_names = DepTable(unheld=unheld), list[str]()
        ordinals: dict[str, int] = {}
        virtual_ordinals: dict[str, int] = {}
        for edge in (edge for row in rows for edge in row):
            if edge.hash not in ordinals:
                ordinals[edge.hash] = len(table.hashes)
                table.hashes.append(edge.hash)
                table.names.append(edge.name)
                table.versions.append(edge.version)
            if edge.virtuals not in virtual_ordinals:
                virtual_ordinals[edge.virtuals] = len(virtual_names)
                virtual_names.append(edge.virtuals)
        flat = [edge for row in rows for edge in row]
        return cls([len(row) for row in rows], [ordinals[e.hash] for e in flat], bytes(e.deptypes for e in flat),
                   [virtual_ordinals[e.virtuals] for e in flat], table, virtual_names)

    def rows(self) -> list[tuple[Dependency, ...]]:
        t = self.table
        edges = [Dependency(t.names[o], t.hashes[o], t.versions[o], bits, self.virtual_names[v])
                 for o, bits, v in zip(self.targets, self.types, self.virtuals)]
        offsets = list(accumulate(self.counts, initial=0))
        return [tuple(edges[a:b]) for a, b in zip(offsets, offsets[1:])]

    def sliced(self, start: int, stop: int) -> DepBlock:
        """Specs start..stop of the run, with their edges."""
        first, last = sum(self.counts[:start]), sum(self.counts[:stop])
        return DepBlock(self.counts[start:stop], self.targets[first:last], self.types[first:last],
                        self.virtuals[first:last], self.table, self.virtual_names)


class RawSpec(NamedTuple):
    """One binary as a document lists it."""

    hash: str
    version: str
    compiler: str  # normalised: gcc@=13.2.0 -> gcc@13.2.0
    platform: str
    os: str
    target: str
    variants: tuple[str, ...]
    stacks: tuple[str, ...]
    size: int  # bytes, or UNKNOWN_SIZE


@dataclass(slots=True)
class SpecColumns:
    """A document's specs field by field: lists of strings intern far faster than rows.

    One list per field of RawSpec, in RawSpec's order (SPEC_COLUMNS), then the specs' edges.
    """

    hashes: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    compilers: list[str] = field(default_factory=list)
    platforms: list[str] = field(default_factory=list)
    oss: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    variants: list[tuple[str, ...]] = field(default_factory=list)
    stacks: list[tuple[str, ...]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    deps: DepBlock | None = None  # the specs' dependency edges; None: the source records none
    # Per spec, what only its build provenance tells (see `build_provenance_text`); None: the source records none.
    build_provenance: list[str] | None = None
    # Per spec, when its storage says it was pushed (seconds since the epoch, UTC; UNKNOWN_PUSHED where it does
    # not say); None: the source records none for any spec.
    pushed: list[int] | None = None

    def __len__(self) -> int:
        return len(self.hashes)

    @classmethod
    def from_rows(cls, rows: list[RawSpec]) -> SpecColumns:
        if not rows:
            return cls()
        return cls._of(map(list, zip(*rows)))

    def rows(self) -> list[RawSpec]:
        return [RawSpec(*row) for row in zip(*(getattr(self, name) for name in SPEC_COLUMNS))]

    def sliced(self, start: int, stop: int, deps: DepBlock | None) -> SpecColumns:
        """Specs start..stop, with the given edges (a run's edges are sliced by its edge offsets)."""
        provenance = None if self.build_provenance is None else self.build_provenance[start:stop]
        pushed = None if self.pushed is None else self.pushed[start:stop]
        return SpecColumns._of((getattr(self, name)[start:stop] for name in SPEC_COLUMNS), deps, provenance, pushed)

    def with_rows(self, other: SpecColumns, rows: list[int], deps: DepBlock | None) -> SpecColumns:
        """These specs, then the given rows of `other`, with the given edges."""
        provenance = None
        if self.build_provenance is not None or other.build_provenance is not None:
            theirs = other.build_provenance_or_unknown()
            provenance = self.build_provenance_or_unknown() + [theirs[row] for row in rows]
        pushed = None
        if self.pushed is not None or other.pushed is not None:
            when = other.pushed_or_unknown()
            pushed = self.pushed_or_unknown() + [when[row] for row in rows]
        return SpecColumns._of((getattr(self, name) + [getattr(other, name)[row] for row in rows]
                                for name in SPEC_COLUMNS), deps, provenance, pushed)

    def build_provenance_or_unknown(self) -> list[str]:
        """Each spec's build provenance text; "" (unknown) for every spec of a source that records none."""
        return [""] * len(self) if self.build_provenance is None else self.build_provenance

    def pushed_or_unknown(self) -> list[int]:
        """Each spec's push time; UNKNOWN_PUSHED for every spec of a source that records none."""
        return [UNKNOWN_PUSHED] * len(self) if self.pushed is None else self.pushed

    @classmethod
    def _of(cls, lists: Iterable[list[Any]], deps: DepBlock | None = None,
            build_provenance: list[str] | None = None, pushed: list[int] | None = None) -> SpecColumns:
        """Columns from one list per field, in SPEC_COLUMNS order."""
        columns = cls(deps=deps, build_provenance=build_provenance, pushed=pushed)
        for name, values in zip(SPEC_COLUMNS, lists, strict=True):
            setattr(columns, name, values)
        return columns


# RawSpec's fields, a list each
SPEC_COLUMNS = tuple(f.name for f in fields(SpecColumns) if f.name not in ("deps", "build_provenance", "pushed"))


# Between the parts of a build provenance text, and between its flags: no package hash, namespace or flag holds them.
BUILD_PROVENANCE_SEPARATOR, FLAG_SEPARATOR = "\x1f", "\x1e"


def build_provenance_text(package_hash: str, namespace: str, flags: tuple[str, ...]) -> str:
    """What only a binary's build provenance tells, as one string (one interned value per distinct build):
    its package hash, its namespace and its compiler flags (`cflags=-O2`); never "" (that is: unknown)."""
    return BUILD_PROVENANCE_SEPARATOR.join((package_hash, namespace, FLAG_SEPARATOR.join(flags)))


def build_provenance_parts(text: str) -> tuple[str, str, tuple[str, ...]] | None:
    """(package hash, namespace, flags) of a build provenance text; None when unknown (the source records none)."""
    if not text:
        return None
    package_hash, namespace, flags = text.split(BUILD_PROVENANCE_SEPARATOR, 2)
    return package_hash, namespace, tuple(flags.split(FLAG_SEPARATOR)) if flags else ()


@dataclass(slots=True)
class ParsedDocument:
    """One listing document: a package in one cache tag."""

    path: str
    package: str
    tag: str
    title: str
    generation: str
    columns: SpecColumns = field(default_factory=SpecColumns)
    problems: list[Problem] = field(default_factory=list)

    @property
    def specs(self) -> list[RawSpec]:
        return self.columns.rows()
