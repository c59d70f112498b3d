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
        if len(block.counts) != n_specs:
            raise ValueError(f"{len(block.counts)} edge counts for {n_specs} specs")  # would shift every later spec
        if block.targets:
            ids = self._ids_of(block.table)[np.asarray(block.targets, dtype=np.int64)]
            self.hashes.frombytes(ids.tobytes())
            virtual_ids = self.vocab["dep_virtuals"].ids_of(block.virtual_names)
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
        ids = vocabulary.ids_of(table.hashes)
        self._describe(ids, known, table)
        self._tables[id(table)] = (table, ids)
        return ids

    def _describe(self, ids: np.ndarray, known: int, table: DepTable) -> None:
        """Name and version of each dependency: set when first seen, filled in when a later source knows
        what an earlier one did not (its record was not in that index), so the order of sources never matters."""
        names, versions = self.vocab["dep_name"], self.vocab["dep_version"]
        unnamed, unversioned = names.intern(""), versions.intern("")
        for ordinal, hash_id in enumerate(ids.tolist()):
            name, version = table.names[ordinal], table.versions[ordinal]
            if hash_id == len(self.name_of):  # new ids come in the table's order
                self.name_of.append(names.intern(name))
                self.version_of.append(versions.intern(version))
            elif hash_id < known:
                if name and self.name_of[hash_id] == unnamed:
                    self.name_of[hash_id] = names.intern(name)
                if version and self.version_of[hash_id] == unversioned:
                    self.version_of[hash_id] = versions.intern(version)

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


def dependency_blocks(corpus, ranges: list[tuple[int, int]]) -> list[DepBlock | None]:  # noqa: ANN001
    """The edges of each spec range back as DepBlocks sharing one table of just the dependencies they name."""
    d, vocab = corpus.deps, corpus.vocab
    spans = [(int(d.offsets[start]), int(d.offsets[stop])) for start, stop in ranges]
    if all(hi == lo for lo, hi in spans):  # site documents: no edges, so no table the size of a mirror's vocabulary
        return [None] * len(ranges)
    named = np.unique(np.concatenate([d.hash[lo:hi] for lo, hi in spans] or [np.zeros(0, dtype=np.int32)]))
    hashes, names, versions = vocab["dep_hash"].values, vocab["dep_name"].values, vocab["dep_version"].values
    table = DepTable([hashes[i] for i in named.tolist()], [names[i] for i in d.name_of[named].tolist()],
                     [versions[i] for i in d.version_of[named].tolist()])
    ordinal = np.full(len(hashes), -1, dtype=np.int64)
    ordinal[named] = np.arange(len(named))
    virtual_names = list(vocab["dep_virtuals"].values)
    return [
        DepBlock(np.diff(d.offsets[start : stop + 1]).tolist(), ordinal[d.hash[lo:hi]].tolist(),
                 d.types[lo:hi].tobytes(), d.virtuals[lo:hi].tolist(), table, virtual_names) if hi > lo else None
        for (start, stop), (lo, hi) in zip(ranges, spans)
    ]
