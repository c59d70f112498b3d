"""Dependency edges of every spec, kept compactly: CSR arrays, not objects per spec.

Spec i's edges are rows offsets[i]:offsets[i+1] of five parallel columns (name, hash,
version and virtuals as ids into vocabularies, deptypes as bits). A whole-site mirror has
millions of edges; as int32/uint8 columns they cost a few bytes each. "Used by" reverses
them with one sort, done the first time someone asks.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from cachetui.core.arrays import as_numpy, expand_ranges
from cachetui.core.records import DepBlock, Dependency, DepTable

VOCABS = ("dep_name", "dep_hash", "dep_version", "dep_virtuals")


@dataclass(slots=True)
class DependencyColumns:
    offsets: np.ndarray  # int64, n_specs + 1
    hash: np.ndarray  # int32 ids into vocab["dep_hash"]
    types: np.ndarray  # uint8 deptype bits
    virtuals: np.ndarray  # int32 ids into vocab["dep_virtuals"]
    name_of: np.ndarray  # per dep_hash id: int32 id into vocab["dep_name"]
    version_of: np.ndarray  # per dep_hash id: int32 id into vocab["dep_version"]

    def rows(self, spec: int) -> range:
        return range(int(self.offsets[spec]), int(self.offsets[spec + 1]))

    def owners(self) -> np.ndarray:
        """The spec each edge belongs to."""
        lengths = np.diff(self.offsets)
        return np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)


class DependencyBuilder:
    """Appends each spec's edges while documents stream in; `finish` reorders them with the specs."""

    def __init__(self, vocab: dict) -> None:  # noqa: ANN001 - dict[str, Vocabulary]
        self.vocab = vocab
        self.offsets = array("q", [0])
        self.hashes = array("i")
        self.virtuals = array("i")
        self.types = array("B")
        self.name_of = array("i")
        self.version_of = array("i")
        self._tables: dict[int, tuple[object, np.ndarray]] = {}  # id(table) -> (table, its ids here)

    def add(self, block: DepBlock | None, n_specs: int) -> None:
        if block is None:  # a source without dependency data: no edges for any of its specs
            self.offsets.extend([self.offsets[-1]] * n_specs)
            return
        if block.targets:
            ids = self._ids_of(block.table)[np.asarray(block.targets, dtype=np.int64)]
            self.hashes.frombytes(ids.tobytes())
            virtual_ids = np.asarray(self.vocab["dep_virtuals"].intern_all(block.virtual_names), dtype=np.int32)
            self.virtuals.frombytes(virtual_ids[np.asarray(block.virtuals, dtype=np.int64)].tobytes())
            self.types.frombytes(block.types)
        ends = accumulate(block.counts, initial=self.offsets[-1])
        next(ends)
        self.offsets.extend(ends)

    def _ids_of(self, table: DepTable) -> np.ndarray:
        """The model's ids for a source's dependencies, worked out once per source (its documents share it)."""
        found = self._tables.get(id(table))
        if found is not None and found[0] is table:
            return found[1]
        vocabulary = self.vocab["dep_hash"]
        known = len(vocabulary)
        ids = np.asarray(vocabulary.intern_all(table.hashes), dtype=np.int32)
        self._describe_new_hashes(known, ids, table)
        self._tables[id(table)] = (table, ids)
        return ids

    def _describe_new_hashes(self, known: int, ids: np.ndarray, table: DepTable) -> None:
        """Name and version of each hash seen for the first time: once per dependency, not per edge."""
        names, versions = self.vocab["dep_name"], self.vocab["dep_version"]
        first = np.flatnonzero(ids >= known)
        order = first[np.argsort(ids[first], kind="stable")]
        for ordinal in order.tolist():
            if int(ids[ordinal]) == len(self.name_of):
                self.name_of.append(names.intern(table.names[ordinal]))
                self.version_of.append(versions.intern(table.versions[ordinal]))

    def finish(self, perm: np.ndarray) -> DependencyColumns:
        """Columns in the corpus order: spec perm[k] of the stream becomes spec k."""
        old = np.frombuffer(self.offsets, dtype=np.int64)
        lengths = np.diff(old)[perm]
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        take = expand_ranges(old[:-1][perm], lengths)
        self._tables.clear()
        return DependencyColumns(offsets, as_numpy(self.hashes, np.int32)[take], as_numpy(self.types, np.uint8)[take],
                                 as_numpy(self.virtuals, np.int32)[take], as_numpy(self.name_of, np.int32).copy(),
                                 as_numpy(self.version_of, np.int32).copy())




# -- walking the graph ------------------------------------------------------------------------------------

RUNTIME = 0b0110  # link | run: what a binary needs where it is installed
WITH_BUILD = 0b0111  # and build edges


@dataclass(frozen=True, slots=True)
class TreeLine:
    """One node of a spec's dependency tree, as `spack spec` prints it: each node once, at its first depth."""

    depth: int  # 1 for a direct dependency
    dependency: Dependency
    spec: int | None  # the dependency's spec in the corpus (same tag preferred), None when not in it
    repeated: bool = False  # already shown above: its own dependencies are not repeated


def dependency_tree(corpus, spec: int, deptypes: int = RUNTIME, limit: int = 2000) -> list[TreeLine]:  # noqa: ANN001
    """Spec `spec`'s dependencies depth first, following only edges of `deptypes` (bits over DEPTYPES)."""
    tag = corpus.value("tag", corpus.single["tag"][spec])
    lines: list[TreeLine] = []
    seen = {corpus.hashes[spec]}

    def walk(index: int, depth: int) -> None:
        for dep in sorted(corpus.dependencies(index), key=lambda d: d.name):
            if not dep.deptypes & deptypes or len(lines) >= limit:
                continue
            target = corpus.spec_with_hash(dep.hash, tag)
            repeated = dep.hash in seen
            lines.append(TreeLine(depth, dep, target, repeated))
            seen.add(dep.hash)
            if target is not None and not repeated:
                walk(target, depth + 1)

    walk(spec, 1)
    return lines


def used_by(corpus, hash_: str, deptypes: int = RUNTIME) -> list[tuple[int, int]]:  # noqa: ANN001
    """(spec, deptype bits) of every spec with an edge of `deptypes` to this hash, in corpus order."""
    return [(spec, types) for spec, types in corpus.dependents(hash_) if types & deptypes]


def dep_block(corpus, start: int, stop: int) -> DepBlock | None:  # noqa: ANN001
    """Specs start..stop's edges back as a DepBlock (to rebuild a corpus around changed inputs).

    The table is the corpus's whole dependency vocabulary (shared, so it is mapped once).
    """
    d = corpus.deps
    lo, hi = int(d.offsets[start]), int(d.offsets[stop])
    if lo == hi:
        return None
    return DepBlock(np.diff(d.offsets[start : stop + 1]).tolist(), d.hash[lo:hi].tolist(), d.types[lo:hi].tobytes(),
                    d.virtuals[lo:hi].tolist(), corpus.dependency_table, corpus.vocab["dep_virtuals"].values)
