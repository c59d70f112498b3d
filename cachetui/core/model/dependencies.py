"""Dependency edges of every spec, built into columns (`DependencyColumns`) and walked over the whole DAG.

A whole-site mirror has millions of edges; kept as CSR columns (cachetui.core.model.dependency_columns)
they cost a few bytes each. "Used by" reverses them with one sort, done the first time someone asks.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, cast

import numpy as np

from cachetui.core.model.arrays import (
    BitsArray,
    BoolArray,
    IdArray,
    IndexArray,
    as_numpy,
    expand_ranges,
    joined,
    offsets_of,
    owners,
    permuted,
)
from cachetui.core.model.dependency_columns import DependencyColumns
from cachetui.core.model.records import DepBlock, Dependency, DepTable, UnheldRecords
from cachetui.core.spack.deptypes import deptype_bits

if TYPE_CHECKING:  # only named: building the columns needs no corpus
    from cachetui.core.model.corpus import Corpus

VOCABS = ("dep_name", "dep_hash", "dep_version", "dep_virtuals")


class DependencyBuilder:
    """Appends each spec's edges while documents stream in; `finish` reorders them with the specs."""

    def __init__(self, vocab: dict) -> None:
        self.vocab = vocab
        self.offsets = array("q", [0])
        self.hashes = array("i")
        self.virtuals = array("i")
        self.types = array("B")
        self.name_of = array("i")
        self.version_of = array("i")
        self._unheld: dict[int, tuple[np.ndarray, bytes, np.ndarray]] = {}  # hash id -> its edges (first source's)
        self._external: set[int] = set()
        self._tables: dict[int, tuple[object, np.ndarray]] = {}  # id(table) -> (table, its ids here)

    def add(self, block: DepBlock | None, n_specs: int) -> None:
        if block is None:  # a source without dependency data: no edges for any of its specs
            self.offsets.extend(array("q", self.offsets[-1:]) * n_specs)
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
        self._describe(ids, known, table.names, table.versions)
        if table.unheld is not None:
            self._add_unheld(table.unheld)
        self._tables[id(table)] = (table, ids)
        return ids

    def _add_unheld(self, unheld: UnheldRecords) -> None:
        vocabulary = self.vocab["dep_hash"]
        known = len(vocabulary)
        record_ids = vocabulary.ids_of(unheld.hashes)
        self._describe(record_ids, known, unheld.names, unheld.versions)
        known = len(vocabulary)
        target_ids = vocabulary.ids_of(unheld.targets)
        self._describe(target_ids, known, unheld.target_names, unheld.target_versions)
        virtual_ids = self.vocab["dep_virtuals"].ids_of(unheld.virtuals)
        offsets = list(accumulate(unheld.counts, initial=0))
        for record, hash_id in enumerate(record_ids.tolist()):
            if unheld.external[record]:
                self._external.add(hash_id)
            if hash_id not in self._unheld:
                lo, hi = offsets[record], offsets[record + 1]
                self._unheld[hash_id] = (target_ids[lo:hi], bytes(unheld.types[lo:hi]), virtual_ids[lo:hi])

    def _describe(self, ids: np.ndarray, known: int, names_: list[str], versions_: list[str]) -> None:
        """Name and version of each dependency: set when first seen, filled in when a later source knows
        what an earlier one did not (its record was not in that index), so the order of sources never matters."""
        names, versions = self.vocab["dep_name"], self.vocab["dep_version"]
        unnamed, unversioned = names.intern(""), versions.intern("")
        new = ids >= known
        if new.any():  # ids new to the vocabulary come in the table's order: each described where it first comes
            first = np.full(int(ids.max()) + 1 - known, len(ids), dtype=np.int64)
            np.minimum.at(first, ids[new] - known, np.flatnonzero(new))
            taken = first.tolist()
            self.name_of.frombytes(names.ids_of([names_[i] for i in taken]).tobytes())
            self.version_of.frombytes(versions.ids_of([versions_[i] for i in taken]).tobytes())
        for ordinal in np.flatnonzero(~new).tolist():  # known before: only what was unknown is filled in
            hash_id, name, version = int(ids[ordinal]), names_[ordinal], versions_[ordinal]
            if name and self.name_of[hash_id] == unnamed:
                self.name_of[hash_id] = names.intern(name)
            if version and self.version_of[hash_id] == unversioned:
                self.version_of[hash_id] = versions.intern(version)

    def finish(self, perm: np.ndarray | None) -> DependencyColumns:
        """Columns in the corpus order: spec perm[k] of the stream becomes spec k (None: the stream's order)."""
        streamed = np.frombuffer(self.offsets, dtype=np.int64)
        offsets, take = (streamed.copy(), slice(None)) if perm is None else permuted(streamed, perm)
        self._tables.clear()
        n_ids = len(self.name_of)
        unheld = [self._unheld.get(hash_id) for hash_id in range(n_ids)] if self._unheld else []
        counts = np.fromiter((0 if u is None else len(u[0]) for u in unheld), dtype=np.int64, count=len(unheld))
        unheld_offsets = offsets_of(counts) if unheld else np.zeros(n_ids + 1, dtype=np.int64)
        present = [u for u in unheld if u is not None]
        external = np.zeros(n_ids, dtype=bool)
        external[list(self._external)] = True
        return DependencyColumns(offsets, as_numpy(self.hashes, np.int32)[take], as_numpy(self.types, np.uint8)[take],
                                 as_numpy(self.virtuals, np.int32)[take], as_numpy(self.name_of, np.int32).copy(),
                                 as_numpy(self.version_of, np.int32).copy(), unheld_offsets,
                                 joined([u[0] for u in present], np.int32),
                                 np.frombuffer(b"".join(u[1] for u in present), dtype=np.uint8).copy(),
                                 joined([u[2] for u in present], np.int32), external)


# -- walking the graph ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NodeGraph:
    """Every edge the indexes record, of binaries and of unheld records alike, over one id space.

    A node is a DAG hash: ids below `len(name_of)` are the dep_hash ids (every hash some edge
    names), the rest one per spec hash that no edge names. Binaries carrying one hash (one
    binary in several tags) are one node. Edges sorted by target give each node's dependents.
    """

    node_of_spec: IndexArray  # per spec
    source: IndexArray  # node per edge
    target: IdArray  # dep_hash id per edge
    types: BitsArray  # per edge
    virtuals: IdArray  # per edge
    by_target: IndexArray  # edge indices sorted by target
    target_offsets: IndexArray  # node n's dependents are by_target[target_offsets[n]:target_offsets[n+1]]
    held: BoolArray  # per node: some loaded source holds its binary

    @property
    def n_nodes(self) -> int:
        return len(self.held)

    def dependents_of(self, reached: np.ndarray, through: np.ndarray | None = None) -> np.ndarray:
        """Nodes with a path to an edge in `reached` (bool over edges), going up the edges in `through`
        (every edge when None).

        A breadth-first walk up the edges, a frontier at a time in numpy: the cost is a few
        array passes per level of the DAG, never a Python step per node.
        """
        found = np.zeros(self.n_nodes, dtype=bool)
        frontier = np.unique(self.source[reached])
        while len(frontier):
            found[frontier] = True
            starts = self.target_offsets[frontier]
            edges = self.by_target[expand_ranges(starts, self.target_offsets[frontier + 1] - starts)]
            if through is not None:
                edges = edges[through[edges]]
            frontier = np.unique(self.source[edges])
            frontier = frontier[~found[frontier]]
        return found


# A corpus read from the warm cache holds the costly parts of its graph under this memo key, as the cold load that
# wrote the file worked them out (`stored_parts`): a warm `^` then does not sort a million edges again.
STORED_GRAPH = "stored-node-graph"


def node_graph(corpus: Corpus) -> NodeGraph:
    """The corpus's DAG as one graph (worked out once per corpus)."""
    return corpus.memoised("node-graph", lambda: _node_graph(corpus))


def stored_parts(graph: NodeGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the warm cache keeps of a graph (the rest is cheap to work out again): each spec's node, the edges in
    the order of their targets, and where each node's dependents start in that order."""
    return graph.node_of_spec, graph.by_target, graph.target_offsets


def _node_graph(corpus: Corpus) -> NodeGraph:
    d = corpus.deps
    unheld_sources = owners(np.diff(d.unheld_offsets), np.int64)
    target = np.concatenate((d.hash, d.unheld_hash)).astype(np.int32)
    stored = cast("tuple[np.ndarray, np.ndarray, np.ndarray] | None", corpus.memo.get(STORED_GRAPH))
    if stored is not None and _sound(target, *stored):
        node_of_spec, by_target, target_offsets = stored
        n_nodes = len(target_offsets) - 1
    else:  # none kept, or kept damaged (the file's ids are within bounds, but not the order they stand for)
        n_ids = len(d.name_of)
        node_of_spec, n_nodes = _nodes_of_specs(corpus.hashes, corpus.vocab["dep_hash"].ids, n_ids)
        by_target = np.argsort(target, kind="stable")
        target_offsets = offsets_of(np.bincount(target, minlength=n_nodes))
    source = np.concatenate((node_of_spec[d.owners()], unheld_sources))
    held = np.zeros(n_nodes, dtype=bool)
    held[node_of_spec] = True
    return NodeGraph(node_of_spec, source, target, np.concatenate((d.types, d.unheld_types)),
                     np.concatenate((d.virtuals, d.unheld_virtuals)).astype(np.int32), by_target, target_offsets, held)


def _nodes_of_specs(hashes: Sequence[str], ids: dict[str, int], n_ids: int) -> tuple[IndexArray, int]:
    """Each spec's node: its hash's dependency id, else (a binary no edge names) a node after them, one per
    distinct hash in the order they come; and the number of nodes. The lookups in C: a mirror has 100,000 specs."""
    node_of_spec = np.fromiter(map(ids.get, hashes, repeat(-1)), dtype=np.int64, count=len(hashes))
    extra: dict[str, int] = {}
    for spec in np.flatnonzero(node_of_spec < 0).tolist():
        node_of_spec[spec] = extra.setdefault(hashes[spec], n_ids + len(extra))
    return node_of_spec, n_ids + len(extra)


def _sound(target: np.ndarray, node_of_spec: np.ndarray, by_target: np.ndarray, target_offsets: np.ndarray) -> bool:
    """Whether a graph kept in the warm cache is what it stands for, before a `^` is answered with it: each spec's
    node within bounds, and `by_target` the edges in the order of their targets, cut where `target_offsets` says
    (a few numpy passes; the file's mapping checked only their types and lengths)."""
    edges, n_nodes = len(target), len(target_offsets) - 1
    if len(by_target) != edges or n_nodes < 0 or target_offsets[-1] != edges:
        return False
    if len(node_of_spec) and (int(node_of_spec.min()) < 0 or int(node_of_spec.max()) >= n_nodes):
        return False
    if not edges:
        return True
    if int(by_target.min()) < 0 or int(by_target.max()) >= edges or int(target.max()) >= n_nodes:
        return False
    return (not bool((np.bincount(by_target, minlength=edges) != 1).any())
            and not bool((np.diff(target[by_target]) < 0).any())
            and np.array_equal(target_offsets, offsets_of(np.bincount(target, minlength=n_nodes))))


RUNTIME = deptype_bits(("link", "run"))  # what a binary needs where it is installed
WITH_BUILD = deptype_bits(("build", "link", "run"))


@dataclass(frozen=True, slots=True)
class TreeLine:
    """One node of a spec's dependency tree, as `spack spec` prints it: each node once, at its first depth."""

    depth: int  # 1 for a direct dependency
    dependency: Dependency
    spec: int | None  # the dependency's spec in the corpus (same tag preferred), None when not in it
    repeated: bool = False  # already shown above: its own dependencies are not repeated
    external: bool = False  # an external record: Spack uses it where it is, never fetches it


def dependency_tree(corpus: Corpus, spec: int, deptypes: int = RUNTIME, limit: int = 2000) -> list[TreeLine]:
    """Spec `spec`'s dependencies depth first, following only edges of `deptypes` (bits over DEPTYPES)."""
    tag = corpus.value("tag", corpus.single["tag"][spec])
    lines: list[TreeLine] = []
    seen = {corpus.hashes[spec]}

    def walk(edges: list[Dependency], depth: int) -> None:
        for dep in sorted(edges, key=lambda d: d.name):
            if not dep.deptypes & deptypes or len(lines) >= limit:
                continue
            target = corpus.spec_with_hash(dep.hash, tag)
            repeated = dep.hash in seen
            lines.append(TreeLine(depth, dep, target, repeated, target is None and corpus.is_external(dep.hash)))
            seen.add(dep.hash)
            if not repeated:  # through records not in the cache too: their index says what they need
                walk(corpus.dependencies(target) if target is not None else corpus.unheld_dependencies(dep.hash),
                     depth + 1)

    walk(corpus.dependencies(spec), 1)
    return lines


def used_by(corpus: Corpus, hash_: str, deptypes: int = RUNTIME) -> list[tuple[int, int]]:
    """(spec, deptype bits) of every spec with an edge of `deptypes` to this hash, in corpus order."""
    return [(spec, types) for spec, types in corpus.dependents(hash_) if types & deptypes]


def dependency_blocks(corpus: Corpus, ranges: list[tuple[int, int]]) -> list[DepBlock | None]:
    """The edges of each spec range back as DepBlocks sharing one table of just the dependencies they name."""
    d, vocab = corpus.deps, corpus.vocab
    spans = [(int(d.offsets[start]), int(d.offsets[stop])) for start, stop in ranges]
    if all(hi == lo for lo, hi in spans):  # site documents: no edges, so no table the size of a mirror's vocabulary
        return [None] * len(ranges)
    named = np.unique(np.concatenate([d.hash[lo:hi] for lo, hi in spans] or [np.zeros(0, dtype=np.int32)]))
    hashes, names, versions = vocab["dep_hash"].values, vocab["dep_name"].values, vocab["dep_version"].values
    table = DepTable([hashes[i] for i in named.tolist()], [names[i] for i in d.name_of[named].tolist()],
                     [versions[i] for i in d.version_of[named].tolist()], _unheld_records(corpus, named))
    ordinal = np.full(len(hashes), -1, dtype=np.int64)
    ordinal[named] = np.arange(len(named))
    virtual_names = list(vocab["dep_virtuals"].values)
    return [
        DepBlock(np.diff(d.offsets[start : stop + 1]).tolist(), ordinal[d.hash[lo:hi]].tolist(),
                 d.types[lo:hi].tobytes(), d.virtuals[lo:hi].tolist(), table, virtual_names) if hi > lo else None
        for (start, stop), (lo, hi) in zip(ranges, spans)
    ]


def _unheld_records(corpus: Corpus, named: np.ndarray) -> UnheldRecords | None:
    """The unheld records reachable from these dependencies, back as records (a rebuild keeps the walk whole)."""
    d, vocab = corpus.deps, corpus.vocab
    hashes, names, versions = vocab["dep_hash"].values, vocab["dep_name"].values, vocab["dep_version"].values
    virtuals = vocab["dep_virtuals"].values
    unheld, seen, waiting = UnheldRecords(), set(), named.tolist()
    while waiting:
        hash_id = waiting.pop()
        if hash_id in seen:
            continue
        seen.add(hash_id)
        rows = d.unheld_rows(hash_id)
        if not rows and not d.external[hash_id]:
            continue
        targets = d.unheld_hash[rows.start : rows.stop].tolist()
        edges = [Dependency(names[d.name_of[t]], hashes[t], versions[d.version_of[t]], int(bits), virtuals[v])
                 for t, bits, v in zip(targets, d.unheld_types[rows.start : rows.stop].tolist(),
                                       d.unheld_virtuals[rows.start : rows.stop].tolist())]
        unheld.add(hashes[hash_id], names[d.name_of[hash_id]], versions[d.version_of[hash_id]],
                   bool(d.external[hash_id]), edges)
        waiting.extend(targets)
    return unheld if len(unheld) else None
