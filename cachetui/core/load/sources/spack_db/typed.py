"""The typed reading: every record decoded to the typed shape, column by column, each distinct value worked
out once. A record the typed decode refuses is read on its own and mended to that shape (`_recovered`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress, groupby
from operator import attrgetter, itemgetter
from typing import NamedTuple

import msgspec
import numpy as np

from cachetui.core.load.sources.spack_db.faults import NO_SPEC, NOT_UTF8, WRONG_TYPES, Faults
from cachetui.core.load.sources.spack_db.shape import (
    DECODE_FAULTS,
    HELD_DECODER,
    RECORD_DECODER,
    HeldRecord,
    Record,
    is_wrapped,
    mended_record,
)
from cachetui.core.load.sources.spack_node import (
    AnyNode,
    Edge,
    Node,
    Renderer,
    annotated_compiler,
    arch_columns,
    edge_meaning,
    is_set,
    own_compiler,
)
from cachetui.core.model.arrays import gathered, joined
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.records import (
    UNKNOWN_SIZE,
    DepBlock,
    Dependency,
    DepTable,
    ParsedDocument,
    SpecColumns,
    UnheldRecords,
    build_provenance_text,
)
from cachetui.core.spack.compilers import NOT_A_COMPILER, node_compiler
from cachetui.core.spack.words import one_line


@dataclass
class DatabaseContent:
    version: str
    documents: list[ParsedDocument]  # one per package
    problems: list[Problem] = field(default_factory=list)


class NotTyped(Exception):
    """A record the typed reading cannot render (a node without a name: DB 5 wrapped nodes in theirs)."""


class Rows(NamedTuple):
    """Every binary of an index in package-name order."""

    names: list[str]  # of their packages
    columns: SpecColumns  # their specs, column by column
    deps: DepBlock  # their edges


PROGRESS_STEPS = 100  # a big index says how far its reading got this many times
BATCH = 1024  # binaries rendered together, column by column, their decoded nodes dropped after: as in the builder
# (`BATCH_SPECS`), few enough that what a batch made is still in the CPU's cache when the next step reads it


def typed_rows(installs: dict[str, msgspec.Raw], faults: Faults,
               progress: Callable[[int, int], None] | None = None) -> Rows:
    """The binaries of these records (hash -> JSON bytes); a record that cannot be used is a fault, not an end.
    `progress` hears (records read, records) every hundredth of them, and (records, records) once all are read."""
    total = len(installs)
    step = max(1, total // PROGRESS_STEPS) if progress is not None else BATCH
    size = min(step, BATCH)
    records: dict[str, tuple[str, str]] = {}  # hash -> (name, version) of every record
    held = _Held(installs, records, faults)
    pairs = list(installs.items())
    reported = 0
    for start in range(0, total, size):
        if progress is not None and start - reported >= step:
            progress(start, total)
            reported = start
        hashes, read = held.decoded(pairs[start:start + size])
        nodes = list(map(_SPEC, read))
        if not all(map(_NAME, nodes)):  # DB 5 wrapped each node in its name: the tolerant reading knows it
            raise NotTyped(hashes[list(map(_NAME, nodes)).index("")])
        records.update(zip(hashes, zip(map(_NAME, nodes), map(_VERSION, nodes))))
        binary = list(map(_IN_BUILDCACHE, read))
        held.add(list(compress(hashes, binary)), list(compress(nodes, binary)))
    held.flush()
    if progress is not None:
        progress(total, total)  # every record read: what follows is putting them in order
    if held.mended:  # what later passes read again holds no record that failed
        installs = {h: r for h, r in ((h, held.mended.get(h, r)) for h, r in installs.items()) if r is not None}
    return held.rows(installs, records)


_SPEC, _IN_BUILDCACHE = attrgetter("spec"), attrgetter("in_buildcache")
_KEY, _VALUE = itemgetter(0), itemgetter(1)
AnyRecord = HeldRecord | Record


class _Held:
    """The binaries read so far, rendered a batch at a time: a column per field, and their edges as columns
    (the hash each names and the meaning of its `parameters`), so that no step of Python runs per edge."""

    def __init__(self, installs: dict[str, msgspec.Raw], records: dict[str, tuple[str, str]], faults: Faults) -> None:
        self._installs, self._records, self._faults = installs, records, faults
        self.mended: dict[str, msgspec.Raw | None] = {}  # records read on their own: in Spack's shape, or None
        self._renderer = Renderer()
        self._meanings = _Meanings()
        self._hashes_waiting: list[str] = []  # binaries read, not yet rendered
        self._nodes_waiting: list[AnyNode] = []
        self.hashes: list[str] = []
        self.nodes = _NodeColumns()
        self.counts: list[np.ndarray] = []  # edges per binary, a piece per batch
        self._numbers = _Numbering()  # the hashes the edges name
        self.edge_targets: list[np.ndarray] = []  # each edge's hash, by its number
        self.edge_meanings: list[np.ndarray] = []  # ids of their meanings (`_Meanings`)

    def decoded(self, pairs: list[tuple[str, msgspec.Raw]]) -> tuple[list[str], list[AnyRecord]]:
        """These records decoded (`HeldRecord`), with their hashes; those the typed decode refuses are read on
        their own (`_decoded_alone`), and those that cannot be used left out."""
        try:
            return list(map(_KEY, pairs)), list(map(HELD_DECODER.decode, map(_VALUE, pairs)))
        except DECODE_FAULTS:  # this batch a record at a time: only the refused records leave the fast path
            found = [(hash_, self._decoded_alone(hash_, raw)) for hash_, raw in pairs]
            kept = [(hash_, record) for hash_, record in found if record is not None]
            return [hash_ for hash_, _ in kept], [record for _, record in kept]

    def _decoded_alone(self, hash_: str, raw: msgspec.Raw) -> AnyRecord | None:
        try:
            return HELD_DECODER.decode(raw)
        except DECODE_FAULTS:
            pass
        try:  # parameters of another shape: rendered from their text (`parameters_of`)
            return RECORD_DECODER.decode(raw)
        except DECODE_FAULTS:  # read the slow way (`_recovered`)
            return self.recovered(hash_)

    def add(self, hashes: list[str], nodes: list[AnyNode]) -> None:
        self._hashes_waiting += hashes
        self._nodes_waiting += nodes
        if len(self._hashes_waiting) >= BATCH:
            self.flush()

    def recovered(self, hash_: str) -> Record | None:
        """The record read on its own (see `_recovered`); None when it is dropped."""
        self.mended[hash_], record = _recovered(hash_, self._installs[hash_], self._faults)
        return record

    def flush(self) -> None:
        hashes, nodes = self._hashes_waiting, self._nodes_waiting
        self._hashes_waiting, self._nodes_waiting = [], []
        try:
            self._render(hashes, nodes)
        except DECODE_FAULTS:  # a node whose parameters do not decode: each is rendered on its own
            for hash_, node in zip(hashes, nodes):
                self._render_alone(hash_, node)

    def _render_alone(self, hash_: str, node: AnyNode) -> None:
        try:
            self._render([hash_], [node])
            return
        except DECODE_FAULTS:  # read the slow way, as any record the typed decode refuses
            del self._records[hash_]
            record = self.recovered(hash_)
        if record is not None:
            self._records[hash_] = (record.spec.name, record.spec.version)
            if record.in_buildcache:
                self._render([hash_], [record.spec])

    def _render(self, hashes: list[str], nodes: list[AnyNode]) -> None:
        """Render these binaries; raises DECODE_FAULTS, and then has added none of them."""
        edges = list(map(_DEPENDENCIES, nodes))
        flat = list(chain.from_iterable(filter(None, edges)))
        edge_hashes = list(map(_HASH, flat))
        if "" in edge_hashes:  # an edge without a hash names nothing and is left out
            edges = [[edge for edge in e if edge.hash] if e else e for e in edges]
            flat = list(chain.from_iterable(filter(None, edges)))
            edge_hashes = list(map(_HASH, flat))
        meanings = self._meanings.ids(flat)
        columns = self.nodes.rendered(nodes, self._renderer)
        self.hashes += hashes
        self.nodes.extend(columns)
        self.counts.append(np.array([len(e) if e else 0 for e in edges], dtype=np.int64))
        self.edge_targets.append(np.fromiter(map(self._numbers.__getitem__, edge_hashes), dtype=np.int64,
                                             count=len(edge_hashes)))  # while their text is in the CPU's cache
        self.edge_meanings.append(np.array(meanings, dtype=np.int64))

    def rows(self, installs: dict[str, msgspec.Raw], records: dict[str, tuple[str, str]]) -> Rows:
        """Every binary, in package-name order (stable), with its edges and its compiler."""
        n = len(self.hashes)
        order = _name_order(self.nodes.names)
        counts = joined(self.counts, np.int64)
        edge_order = _segments_in(order, counts)
        numbers = joined(self.edge_targets, np.int64)[edge_order]
        named, targets = _first_come(numbers, len(self._numbers))
        table = _table(records, list(map(list(self._numbers).__getitem__, named.tolist())), installs)
        meanings = joined(self.edge_meanings, np.int64)[edge_order]
        bits, virtuals, ranks = self._meanings.columns()
        virtual_names, virtual_of = _virtual_names(meanings, virtuals)
        counts = counts[order]
        providers = _providers(counts, ranks[meanings], targets)
        binaries = set(self.hashes)
        table.unheld = _unheld(_unheld_named(table.hashes, installs, binaries), _lookup(installs, records, binaries))
        nodes = self.nodes.ordered(order)
        deps = DepBlock(counts.tolist(), targets.tolist(), bits[meanings].tobytes(), virtual_of[meanings].tolist(),
                        table, virtual_names)
        provider_names = [("", "") if p < 0 else (table.names[p], table.versions[p]) for p in providers.tolist()]
        compilers = list(map(node_compiler, nodes.own, provider_names, nodes.annotated))
        columns = SpecColumns(gathered(self.hashes, order), nodes.versions, compilers, nodes.platforms,
                              nodes.oss, nodes.targets, nodes.variants, [()] * n, [UNKNOWN_SIZE] * n,
                              build_provenance=nodes.provenance)
        return Rows(nodes.names, columns, deps)


@dataclass
class _NodeColumns:
    """What each binary's node says, field by field (`NodeFields`), its compiler but for the edge providing it."""

    names: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    platforms: list[str] = field(default_factory=list)
    oss: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    variants: list[tuple[str, ...]] = field(default_factory=list)
    own: list[str] = field(default_factory=list)
    annotated: list[str] = field(default_factory=list)
    provenance: list[str] = field(default_factory=list)

    @staticmethod
    def rendered(nodes: list[AnyNode], renderer: Renderer) -> _NodeColumns:
        """The nodes' fields, as `Renderer.fields` renders one; raises DECODE_FAULTS."""
        rendered = list(map(renderer.parameters, map(_PARAMETERS, nodes)))
        platforms, oss, targets = arch_columns(nodes)
        provenance = list(map(build_provenance_text, map(_PACKAGE_HASH, nodes), map(_NAMESPACE, nodes),
                              map(_FLAGS, rendered)))
        return _NodeColumns(list(map(_NAME, nodes)), list(map(_VERSION, nodes)), platforms, oss, targets,
                            list(map(_VARIANTS, rendered)), list(map(own_compiler, nodes)),
                            list(map(annotated_compiler, nodes)), provenance)

    def extend(self, other: _NodeColumns) -> None:
        for name, column in vars(other).items():
            getattr(self, name).extend(column)

    def ordered(self, order: np.ndarray) -> _NodeColumns:
        """Each column in this order."""
        return _NodeColumns(**{name: gathered(column, order) for name, column in vars(self).items()})


_DEPENDENCIES, _HASH, _PARAMETERS = attrgetter("dependencies"), attrgetter("hash"), attrgetter("parameters")
_NAME, _VERSION = attrgetter("name"), attrgetter("version")
_PACKAGE_HASH, _NAMESPACE = attrgetter("package_hash"), attrgetter("namespace")
_VARIANTS, _FLAGS = itemgetter(0), itemgetter(1)


class _Meanings:
    """One reading's distinct edge `parameters` texts (with DB 6's `type`) and the meaning of each (`edge_meaning`),
    by id: an index holds a handful, so an edge is one lookup."""

    def __init__(self) -> None:
        self.found: list[tuple[int, str, int]] = []  # (deptype bits, virtuals, compiler rank) per id
        self._ids: dict[object, int] = {}

    def ids(self, edges: list[Edge]) -> list[int]:
        """The meaning of each edge, by id. Raises DECODE_FAULTS for `parameters` that do not decode."""
        if any(map(_TYPE, edges)):  # DB 6: deptypes in `type`, read when `parameters` has none
            keys: list[object] = [(bytes(e.parameters), tuple(e.type or ())) for e in edges]
        else:
            keys = list(map(bytes, map(_PARAMETERS, edges)))
        try:
            return list(map(self._ids.__getitem__, keys))
        except KeyError:
            return [self._id(key) for key in keys]

    def _id(self, key: object) -> int:
        found = self._ids.get(key)
        if found is None:
            parameters, legacy = key if isinstance(key, tuple) else (key, ())
            meaning = edge_meaning(parameters, legacy)
            found = self._ids[key] = len(self.found)
            self.found.append(meaning)
        return found

    def columns(self) -> tuple[np.ndarray, list[str], np.ndarray]:
        """Deptype bits, virtuals and compiler rank by id."""
        return (np.array([m[0] for m in self.found], dtype=np.uint8), [m[1] for m in self.found],
                np.array([m[2] for m in self.found], dtype=np.int64))


_TYPE = attrgetter("type")


def _name_order(names: list[str]) -> np.ndarray:
    """The positions of these names in sorted order, equal names in the order they come: each distinct name (a
    few thousand packages) is compared, not each binary's."""
    rank = {name: i for i, name in enumerate(sorted(set(names)))}
    ranks = np.fromiter(map(rank.__getitem__, names), dtype=np.int64, count=len(names))
    return np.argsort(ranks, kind="stable")


def _segments_in(ordered: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The edges' positions when their binaries are put in `ordered` (binary k owns `counts[k]` edges in a row)."""
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    lengths = counts[ordered]
    if not lengths.sum():
        return np.zeros(0, dtype=np.int64)
    shift = starts[ordered] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(shift, lengths)


def _first_come(numbers: np.ndarray, distinct: int) -> tuple[np.ndarray, np.ndarray]:
    """The numbers these edges name, in the order they first come, and each edge's position among them."""
    named = _in_first_come_order(numbers, distinct)
    position = np.zeros(distinct, dtype=np.int64)
    position[named] = np.arange(len(named), dtype=np.int64)
    return named, position[numbers]


def _in_first_come_order(values: np.ndarray, distinct: int) -> np.ndarray:
    """The values of 0..distinct-1 that `values` holds, in the order each first comes in it.

    Each value's first place is found in one pass (`minimum.at`) and only the distinct values are sorted:
    `np.unique(..., return_index=True)` sorted every edge (a million at 120,000 records, a quarter of a second).
    """
    first = np.full(distinct, len(values), dtype=np.int64)
    np.minimum.at(first, values, np.arange(len(values), dtype=np.int64))
    held = np.flatnonzero(first < len(values))
    return held[np.argsort(first[held], kind="stable")]


class _Numbering(dict[str, int]):
    """Each distinct key's number, in the order they first come."""

    def __missing__(self, key: str) -> int:
        number = self[key] = len(self)
        return number


def _virtual_names(meanings: np.ndarray, virtuals: list[str]) -> tuple[list[str], np.ndarray]:
    """The distinct virtuals of these edges in the order they first come, and each meaning id's among them."""
    names = list(dict.fromkeys(virtuals[i] for i in _in_first_come_order(meanings, len(virtuals)).tolist()))
    position = {name: i for i, name in enumerate(names)}
    return names, np.array([position.get(v, 0) for v in virtuals], dtype=np.int64)


def _providers(counts: np.ndarray, ranks: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per binary, the table ordinal of the edge providing its compiler (see `node_compiler`: the first edge with
    the lowest rank, if that rank provides one), else -1."""
    found = np.full(len(counts), -1, dtype=np.int64)
    if not len(ranks):
        return found
    edges = len(ranks)
    key = ranks * edges + np.arange(edges, dtype=np.int64)  # the lowest rank first, then the first such edge
    has = counts > 0
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[has]
    best = np.minimum.reduceat(key, starts)
    edge = best % edges
    provides = best // edges < NOT_A_COMPILER
    chosen = np.flatnonzero(has)
    found[chosen[provides]] = targets[edge[provides]]
    return found


def _recovered(hash_: str, raw: msgspec.Raw, faults: Faults) -> tuple[msgspec.Raw | None, Record | None]:
    """One record the typed decode refused, read as Spack's reader would: the fields of Spack's shape kept
    (the wrong types left out), or a problem naming the record. Returns its mended bytes and record."""
    try:
        value = json.loads(str(raw, "utf-8"))
    except UnicodeDecodeError:
        if _in_build_cache(str(raw, "utf-8", "surrogateescape")) is not False:
            faults.add(hash_, NOT_UTF8)
        return None, None
    except (ValueError, RecursionError) as exc:
        faults.add(hash_, f"not valid JSON ({one_line(str(exc))}); skipped")
        return None, None
    if not isinstance(value, dict):
        faults.not_an_object(hash_, value)
        return None, None
    if is_wrapped(value.get("spec")):
        raise NotTyped(hash_)  # DB 5 wrapped each node in its name: the tolerant reading knows it
    try:
        mended = mended_record(value)
    except UnicodeEncodeError:  # a lone surrogate escaped in the JSON: text no UTF-8 can hold
        if value.get("in_buildcache") is not False:
            faults.add(hash_, NOT_UTF8)
        return None, None
    if mended is None:
        if value.get("in_buildcache") is not False:
            faults.add(hash_, NO_SPEC)
        return None, None
    record = RECORD_DECODER.decode(mended)
    if record.in_buildcache:
        faults.add(hash_, WRONG_TYPES, Severity.WARNING)
    return mended, record


def _in_build_cache(text: str) -> bool | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value.get("in_buildcache") if isinstance(value, dict) else None


def documents(rows: Rows, origin: str, tag: str, generation: str) -> list[ParsedDocument]:
    """One document per package: runs of the package-ordered rows, their edges sliced alongside."""
    d = rows.deps
    edge_offsets = list(accumulate(d.counts, initial=0))
    found = []
    start = 0
    for name, run in groupby(rows.names):
        stop = start + sum(1 for _ in run)
        lo, hi = edge_offsets[start], edge_offsets[stop]
        deps = DepBlock(d.counts[start:stop], d.targets[lo:hi], d.types[lo:hi], d.virtuals[lo:hi], d.table,
                        d.virtual_names)
        found.append(ParsedDocument(origin, name, tag, name, generation, rows.columns.sliced(start, stop, deps)))
        start = stop
    return found


# -- one record ------------------------------------------------------------------------------------------


def _edges(node: Node) -> list[Edge] | tuple[()]:
    """The node's edges; one without a hash names nothing and is left out."""
    edges = node.dependencies or ()
    return edges if all(edge.hash for edge in edges) else [edge for edge in edges if edge.hash]


def _edge_info(edge: Edge) -> tuple[int, str, int]:
    return edge_meaning(bytes(edge.parameters), tuple(edge.type or ()))


# -- the dependencies the binaries name --------------------------------------------------------------------


def _table(records: dict[str, tuple[str, str]], hashes: list[str], installs: dict[str, msgspec.Raw]) -> DepTable:
    """Every dependency named by an edge (`hashes`, each once); one the index has no record of keeps the edge's
    own name."""
    found = list(map(records.get, hashes))
    edge_names = _edge_names({h for h, n in zip(hashes, found) if n is None}, installs) if None in found else {}
    named = [n or (edge_names.get(h, ""), "") for h, n in zip(hashes, found)]
    return DepTable(hashes, [n for n, _ in named], [v for _, v in named])


def _edge_names(missing: set[str], installs: dict[str, msgspec.Raw]) -> dict[str, str]:
    """Names of dependencies the index lacks records of, from the edges that name them (a second, rare pass)."""
    names: dict[str, str] = {}
    for raw in installs.values():
        for edge in _edges(RECORD_DECODER.decode(raw).spec):
            if edge.hash in missing:
                names.setdefault(edge.hash, edge.name)
    return names


Lookup = Callable[[str], "tuple[str, str, bool, list[Dependency]] | None"]


def _unheld(start: list[str], lookup: Lookup) -> UnheldRecords | None:
    """The records without a binary that the binaries reach, followed to any depth, with their own edges.

    `lookup(hash)` gives (name, version, external, edges) of a record the index holds without its
    binary, and None for a binary (its edges are its own) or a hash the index has no record of.
    """
    unheld, seen, waiting = UnheldRecords(), set(), list(start)
    while waiting:
        hash_ = waiting.pop()
        if hash_ in seen:
            continue
        seen.add(hash_)
        found = lookup(hash_)
        if found is not None:
            name, version, external, edges = found
            unheld.add(hash_, name, version, external, edges)
            waiting.extend(edge.hash for edge in edges)
    return unheld if len(unheld) else None


def _unheld_named(named: list[str], installs: dict[str, msgspec.Raw], binaries: set[str]) -> list[str]:
    """Those of the dependencies the binaries name that the index holds without their binary, in their order:
    where the walk of `_unheld` starts. Found with set operations: most indexes hold none, and a record looked up
    is decoded again."""
    unheld = (installs.keys() & named) - binaries
    return list(filter(unheld.__contains__, named)) if unheld else []


def _lookup(installs: dict[str, msgspec.Raw], records: dict[str, tuple[str, str]], binaries: set[str]) -> Lookup:
    def lookup(hash_: str) -> tuple[str, str, bool, list[Dependency]] | None:
        raw = installs.get(hash_)
        if raw is None or hash_ in binaries:
            return None
        node = RECORD_DECODER.decode(raw).spec
        edges = []
        for edge in _edges(node):  # a dependency is what its own record says, else what the edge calls it
            name, version = records.get(edge.hash, (edge.name, ""))
            edges.append(Dependency(name, edge.hash, version, *_edge_info(edge)[:2]))
        return node.name, node.version, is_set(node.external), edges

    return lookup
