"""The typed reading: every record decoded to the typed shape, column by column, each distinct value worked
out once. A record the typed decode refuses is read on its own and mended to that shape (`_recovered`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, chain, groupby
from operator import itemgetter
from typing import Any, NamedTuple

import msgspec

from cachetui.core.load.sources.spack_db.faults import NO_SPEC, NOT_UTF8, WRONG_TYPES, Faults
from cachetui.core.load.sources.spack_db.shape import DECODE_FAULTS, RECORD_DECODER, Record, is_wrapped, mended_record
from cachetui.core.load.sources.spack_node import Edge, Node, NodeFields, Renderer, edge_meaning, is_set
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.records import (
    UNKNOWN_SIZE,
    DepBlock,
    Dependency,
    DepTable,
    ParsedDocument,
    SpecColumns,
    UnheldRecords,
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


class _Binary(NamedTuple):
    """One record in the build cache, rendered but for its compiler, which may need a later record."""

    hash: str
    node: NodeFields
    edge_hashes: list[str]
    edge_infos: list[tuple[int, str, int]]  # (deptype bits, virtuals, compiler rank) per edge


class Rows(NamedTuple):
    """Every binary of an index in package-name order."""

    names: list[str]  # of their packages
    columns: SpecColumns  # their specs, column by column
    deps: DepBlock  # their edges


PROGRESS_STEPS = 100  # a big index says how far its reading got this many times


def typed_rows(installs: dict[str, msgspec.Raw], faults: Faults,
               progress: Callable[[int, int], None] | None = None) -> Rows:
    """The binaries of these records (hash -> JSON bytes); a record that cannot be used is a fault, not an end.
    `progress` hears (records read, records) every hundredth of them, and (records, records) once all are read."""
    decode = RECORD_DECODER.decode
    total = len(installs)
    step = max(1, total // PROGRESS_STEPS) if progress is not None else total + 1
    records: dict[str, tuple[str, str]] = {}  # hash -> (name, version) of every record
    binaries: list[_Binary] = []
    renderer = Renderer()
    mended: dict[str, msgspec.Raw | None] = {}  # records read on their own: in Spack's shape, or None (dropped)
    for done, (hash_, raw) in enumerate(installs.items(), 1):
        if done % step == 0 and done < total:
            assert progress is not None
            progress(done, total)
        try:
            node = (record := decode(raw)).spec
            if not node.name:
                raise NotTyped(hash_)
            binary = _binary(hash_, node, renderer) if record.in_buildcache else None
        except DECODE_FAULTS:  # this record alone is read the slow way; the others stay on the fast one
            mended[hash_], recovered_record = _recovered(hash_, raw, faults)
            if recovered_record is None:
                continue
            node = (record := recovered_record).spec
            binary = _binary(hash_, node, renderer) if record.in_buildcache else None
        records[hash_] = (node.name, node.version)
        if binary is not None:
            binaries.append(binary)
    if progress is not None:
        progress(total, total)  # every record read: what follows is putting them in order
    if mended:  # what later passes read again holds no record that failed
        installs = {h: r for h, r in ((h, mended.get(h, r)) for h, r in installs.items()) if r is not None}
    binaries.sort(key=lambda b: b.node.name)
    edge_hashes = list(chain.from_iterable(b.edge_hashes for b in binaries))
    table = _table(records, edge_hashes, installs)
    ordinal = {h: i for i, h in enumerate(table.hashes)}
    infos = list(chain.from_iterable(b.edge_infos for b in binaries))
    virtual_names = list(dict.fromkeys(map(itemgetter(1), infos)))
    virtual_ordinal = {v: i for i, v in enumerate(virtual_names)}
    deps = DepBlock([len(b.edge_hashes) for b in binaries], list(map(ordinal.__getitem__, edge_hashes)),
                    bytes(map(itemgetter(0), infos)), [virtual_ordinal[i[1]] for i in infos], table, virtual_names)
    table.unheld = _unheld(table.hashes, _lookup(installs, records, {b.hash for b in binaries}))
    named = dict(zip(table.hashes, zip(table.names, table.versions)))  # records, and edge names for the rest
    n = len(binaries)
    nodes = [b.node for b in binaries]
    columns = SpecColumns([b.hash for b in binaries], [f.version for f in nodes],
                          [_compiler_of(b, named) for b in binaries], [f.platform for f in nodes],
                          [f.os for f in nodes], [f.target for f in nodes], [f.variants for f in nodes],
                          [()] * n, [UNKNOWN_SIZE] * n, build_provenance=[f.build_provenance for f in nodes])
    return Rows([f.name for f in nodes], columns, deps)


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


def _binary(hash_: str, node: Node, renderer: Renderer) -> _Binary:
    edges = _edges(node)
    return _Binary(
        hash_, renderer.fields(node), [edge.hash for edge in edges],
        [(_MEANINGS.get(bytes(edge.parameters)) if edge.type is None else None) or _edge_info(edge) for edge in edges],
    )


def _edges(node: Node) -> list[Edge] | tuple[()]:
    """The node's edges; one without a hash names nothing and is left out."""
    edges = node.dependencies or ()
    return edges if all(edge.hash for edge in edges) else [edge for edge in edges if edge.hash]


def _compiler_of(binary: _Binary, named: dict[str, tuple[str, str]]) -> str:
    """See `node_compiler`: the providing edge is the first with the lowest rank; its name and version are its
    record's (the index's own word for what that dependency is)."""
    ranks = [info[2] for info in binary.edge_infos]
    best = min(range(len(ranks)), key=ranks.__getitem__, default=None)
    provider = ("", "")
    if best is not None and ranks[best] < NOT_A_COMPILER:
        provider = named.get(binary.edge_hashes[best], provider)
    return node_compiler(binary.node.own_compiler, provider, binary.node.annotated_compiler)


_MEANINGS: dict[bytes, tuple[int, str, int]] = {}  # an edge's parameters text -> its meaning; a handful of values


def _edge_info(edge: Edge) -> tuple[int, str, int]:
    key = bytes(edge.parameters)
    meaning = edge_meaning(key, tuple(edge.type or ()))
    if edge.type is None and len(_MEANINGS) < 10_000:
        _MEANINGS[key] = meaning
    return meaning


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


# -- the dependencies the binaries name --------------------------------------------------------------------


def _table(records: dict[str, tuple[str, str]], edge_hashes: list[str], installs: dict[str, msgspec.Raw]) -> DepTable:
    """Every dependency named by an edge, once; one the index has no record of keeps the edge's own name."""
    hashes = list(dict.fromkeys(edge_hashes))
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
