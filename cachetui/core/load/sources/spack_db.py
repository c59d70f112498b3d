"""Read a Spack build-cache database (DB 6, 7, 8) into normalised records, as the site renders them.

`{"database": {"version": "8", "installs": {<hash>: {"spec": <node>, "in_buildcache": bool, ...}}}}`:

- a record is a binary only when `in_buildcache` is true; its hash is the `installs` key;
- target: the string, or the dict's `name`;
- compiler: the node's `compiler` object (DB 6/7); for DB 8 the build dependency that
  provides `c`, else `cxx`, else `fortran` (`name@version` of that node), else
  `annotations.compiler`, else `none`;
- variants from `parameters`, sorted by name: `+x`/`~x`, `k=v`, multi-valued values sorted
  and comma-joined, each patch cut to 7 characters, the compiler flag lists left out; a
  value holding a space is double-quoted (`k="a b"`, as Spack writes it) and a name Spack
  could not have written (one with a space, `=`, `+`, `~`) is left out, so that no value
  or name reads as another variant;
- every dependency edge is kept: name, hash, deptypes, virtuals, and the version of the
  dependency's own record when the index has it.

Key order is never relied on (the DB 6 fixture puts `version` after `installs`). A typed
msgspec decode reads big indexes fast and keeps only these fields; when a document does
not fit those types, a tolerant reading goes record by record and reports what it skipped.

A record the typed decode refuses is read on its own, as Spack's reader (Python's `json`)
would, while the rest stay on the fast path: a record it cannot use (bytes that are not
UTF-8, a record that is not an object, a spec without a name) is one problem naming its
hash, and one with fields of the wrong type loads with those fields empty and a warning.
What the typed decode cannot even skip (`NaN`, `Infinity`, a bad byte in a key) sends the
whole index to the tolerant reading, which reads what Spack's reader reads, record by record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, chain, groupby
from operator import itemgetter
from typing import Any, NamedTuple

import msgspec

from cachetui.core.load.sources.shapes import as_dict, as_list
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
from cachetui.core.spack.compilers import normalise_compiler
from cachetui.core.spack.deptypes import deptype_bits
from cachetui.core.spack.variants import quote_value

KNOWN_VERSIONS = frozenset({"6", "7", "8"})
FLAGS = frozenset({"cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs"})
COMPILER_VIRTUALS = ("c", "cxx", "fortran")
PATCH_LENGTH = 7
_VARIANT_NAME = re.compile(r'[^\s"=+~,]+')
MAX_RECORD_PROBLEMS = 20  # records named one by one; past this, one line counts the rest


class IndexFormatError(ValueError):
    """Not a Spack build-cache database."""


# -- the typed shape: only what is rendered is decoded into objects -------------------------------------


class _Target(msgspec.Struct):
    name: str = ""


class _Arch(msgspec.Struct):
    platform: str = ""
    platform_os: str = ""
    target: str | _Target = ""


class _Compiler(msgspec.Struct):
    name: str = ""
    version: str = ""


class _Edge(msgspec.Struct):
    name: str = ""
    hash: str = ""
    parameters: msgspec.Raw = msgspec.Raw()  # {deptypes, virtuals}: few distinct values, read once each
    type: list[str] | None = None  # DB 6 (specfile v2/v3) wrote the deptypes here


class _Annotations(msgspec.Struct):
    compiler: str = ""


class _Node(msgspec.Struct):
    name: str = ""
    version: str = ""
    arch: _Arch | None = None
    compiler: _Compiler | None = None
    parameters: msgspec.Raw = msgspec.Raw()  # rendered once per distinct value
    dependencies: list[_Edge] | None = None
    annotations: _Annotations | None = None
    external: msgspec.Raw = msgspec.Raw()  # set (not null) for an external: Spack uses it where it is


class _Record(msgspec.Struct):
    spec: _Node
    in_buildcache: bool = False


class _Database(msgspec.Struct):
    installs: dict[str, msgspec.Raw]  # each record decoded on its own: the whole tree never exists at once
    version: str | int = ""


class _Index(msgspec.Struct):
    database: _Database


class _Membership(msgspec.Struct):
    in_buildcache: bool = False


class _MembershipDatabase(msgspec.Struct):
    installs: dict[str, _Membership]
    version: str | int = ""


class _MembershipIndex(msgspec.Struct):
    database: _MembershipDatabase


_DECODER = msgspec.json.Decoder(_Index)
_RECORD_DECODER = msgspec.json.Decoder(_Record)
_MEMBERSHIP_DECODER = msgspec.json.Decoder(_MembershipIndex)


# -- what a reading gives ----------------------------------------------------------------------------


@dataclass
class DatabaseContent:
    version: str
    documents: list[ParsedDocument]  # one per package
    problems: list[Problem] = field(default_factory=list)


@dataclass
class _Rows:
    """Every binary of an index, column by column, in package-name order."""

    hashes: list[str]
    names: list[str]
    versions: list[str]
    compilers: list[str]
    platforms: list[str]
    oss: list[str]
    targets: list[str]
    variants: list[tuple[str, ...]]
    deps: DepBlock


def read_database(data: bytes, origin: str, tag: str, generation: str) -> DatabaseContent:
    """The binaries of one index, grouped per package into ParsedDocuments. Raises IndexFormatError."""
    faults = _Faults(origin)
    try:
        database = _DECODER.decode(data).database
        rows = _typed_rows(database.installs, faults)
    except (msgspec.ValidationError, _NotTyped, RecursionError, UnicodeDecodeError):  # record by record
        return _read_tolerantly(data, origin, tag, generation)
    except msgspec.DecodeError:  # perhaps what Spack's reader accepts and msgspec does not (NaN, Infinity)
        return _read_tolerantly(data, origin, tag, generation)
    version = str(database.version)
    problems = _version_problems(version, origin) + faults.report()
    return DatabaseContent(version, _documents(rows, origin, tag, generation), problems)


def read_membership(data: bytes) -> set[str]:
    """Only the hashes in the build cache (a stack's index, when its tag's root gives the records)."""
    try:
        database = _MEMBERSHIP_DECODER.decode(data).database
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return _tolerant_membership(data)
    return {hash_ for hash_, record in database.installs.items() if record.in_buildcache}


def _version_problems(version: str, origin: str) -> list[Problem]:
    if version in KNOWN_VERSIONS:
        return []
    reason = f"database version {version or '(none)'} is not one of 6, 7, 8; read as far as it is recognisable"
    return [Problem(origin, reason, Severity.WARNING)]


# -- the typed reading: column by column, each distinct value worked out once --------------------------------


NO_COMPILER = len(COMPILER_VIRTUALS)  # an edge's rank when it provides no compiler language


class _NotTyped(Exception):
    """A record the typed reading cannot render (a node without a name: DB 5 wrapped nodes in theirs)."""


class _Binary(NamedTuple):
    """One record in the build cache, rendered but for its compiler, which may need a later record."""

    hash: str
    name: str
    version: str
    platform: str
    os: str
    target: str
    variants: tuple[str, ...]
    own_compiler: str  # DB 6/7: the node's compiler object; "" when it has none
    annotated_compiler: str  # `annotations.compiler` (nodes converted from older specfiles); ""
    edge_hashes: list[str]
    edge_infos: list[tuple[int, str, int]]  # (deptype bits, virtuals, compiler rank) per edge


def _typed_rows(installs: dict[str, msgspec.Raw], faults: _Faults) -> _Rows:
    decode = _RECORD_DECODER.decode
    records: dict[str, tuple[str, str]] = {}  # hash -> (name, version) of every record
    binaries: list[_Binary] = []
    variants: dict[bytes, tuple[str, ...]] = {}
    mended: dict[str, msgspec.Raw | None] = {}  # records read on their own: in Spack's shape, or None (dropped)
    for hash_, raw in installs.items():
        try:
            node = (record := decode(raw)).spec
            if not node.name:
                raise _NotTyped(hash_)
            binary = _binary(hash_, node, variants) if record.in_buildcache else None
        except _RECORD_FAULTS:  # this record alone is read the slow way; the others stay on the fast one
            mended[hash_], recovered = _recovered(hash_, raw, faults)
            if recovered is None:
                continue
            node = (record := recovered).spec
            binary = _binary(hash_, node, variants) if record.in_buildcache else None
        records[hash_] = (node.name, node.version)
        if binary is not None:
            binaries.append(binary)
    if mended:  # what later passes read again holds no record that failed
        installs = {h: r for h, r in ((h, mended.get(h, r)) for h, r in installs.items()) if r is not None}
    binaries.sort(key=lambda b: b.name)
    edge_hashes = list(chain.from_iterable(b.edge_hashes for b in binaries))
    table = _table(records, edge_hashes, installs)
    ordinal = {h: i for i, h in enumerate(table.hashes)}
    infos = list(chain.from_iterable(b.edge_infos for b in binaries))
    virtual_names = list(dict.fromkeys(map(itemgetter(1), infos)))
    virtual_ordinal = {v: i for i, v in enumerate(virtual_names)}
    deps = DepBlock([len(b.edge_hashes) for b in binaries], list(map(ordinal.__getitem__, edge_hashes)),
                    bytes(map(itemgetter(0), infos)), [virtual_ordinal[i[1]] for i in infos], table, virtual_names)
    table.unheld = _unheld(table.hashes, _typed_lookup(installs, records, {b.hash for b in binaries}))
    named = dict(zip(table.hashes, zip(table.names, table.versions)))  # records, and edge names for the rest
    return _Rows([b.hash for b in binaries], [b.name for b in binaries], [b.version for b in binaries],
                 [_compiler_of(b, named) for b in binaries], [b.platform for b in binaries],
                 [b.os for b in binaries], [b.target for b in binaries], [b.variants for b in binaries], deps)


_RECORD_FAULTS = (msgspec.ValidationError, msgspec.DecodeError, UnicodeDecodeError, RecursionError)


def _recovered(hash_: str, raw: msgspec.Raw, faults: _Faults) -> tuple[msgspec.Raw | None, _Record | None]:
    """One record the typed decode refused, read as Spack's reader would: the fields of Spack's shape kept
    (the wrong types left out), or a problem naming the record. Returns its mended bytes and record."""
    try:
        value = json.loads(str(raw, "utf-8"))
    except UnicodeDecodeError:
        if _in_build_cache(str(raw, "utf-8", "surrogateescape")) is not False:
            faults.add(hash_, "not valid UTF-8; skipped")
        return None, None
    except (ValueError, RecursionError) as exc:
        faults.add(hash_, f"not valid JSON ({_one_line(str(exc))}); skipped")
        return None, None
    if not isinstance(value, dict):
        faults.add(hash_, f"is {_json_type(value)}, not an object; skipped")
        return None, None
    shaped = _typed_shape(value)
    if shaped is None:
        spec = value.get("spec")
        if isinstance(spec, dict) and "name" not in spec and len(spec) == 1:
            raise _NotTyped(hash_)  # DB 5 wrapped each node in its name: the tolerant reading knows it
        if value.get("in_buildcache") is not False:
            faults.add(hash_, "no usable spec (a node with a name); skipped")
        return None, None
    mended = msgspec.Raw(msgspec.json.encode(shaped))  # NaN and Infinity encode as null
    record = _RECORD_DECODER.decode(mended)
    if record.in_buildcache:
        faults.add(hash_, "not the shape Spack writes; fields of the wrong type are shown empty", Severity.WARNING)
    return mended, record


def _in_build_cache(text: str) -> bool | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value.get("in_buildcache") if isinstance(value, dict) else None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "an array" if isinstance(value, list) else "a value"


def _strings_of(mapping: dict[str, Any], keys: tuple[str, ...]) -> dict[str, str]:
    return {key: mapping[key] for key in keys if isinstance(mapping.get(key), str)}


def _typed_shape(record: dict[str, Any]) -> dict[str, Any] | None:
    """The parts of a record the typed reading takes, of the types it takes; None without a named node."""
    spec = record.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        return None
    node: dict[str, Any] = _strings_of(spec, ("name", "version"))
    arch = spec.get("arch")
    if isinstance(arch, dict):
        node["arch"] = _strings_of(arch, ("platform", "platform_os", "target"))
        target = arch.get("target")
        if isinstance(target, dict) and isinstance(target.get("name"), str):
            node["arch"]["target"] = {"name": target["name"]}
    if isinstance(spec.get("compiler"), dict):
        node["compiler"] = _strings_of(spec["compiler"], ("name", "version"))
    if "parameters" in spec:
        node["parameters"] = spec["parameters"] if isinstance(spec["parameters"], dict) else {}
    if isinstance(spec.get("dependencies"), list):
        node["dependencies"] = [_typed_edge(edge) for edge in spec["dependencies"] if isinstance(edge, dict)]
    if isinstance(spec.get("annotations"), dict):
        node["annotations"] = _strings_of(spec["annotations"], ("compiler",))
    return {"spec": node, "in_buildcache": record.get("in_buildcache") is True}


def _typed_edge(edge: dict[str, Any]) -> dict[str, Any]:
    shaped: dict[str, Any] = _strings_of(edge, ("name", "hash"))
    if isinstance(edge.get("parameters"), dict):
        shaped["parameters"] = edge["parameters"]
    if isinstance(edge.get("type"), list):
        shaped["type"] = [t for t in edge["type"] if isinstance(t, str)]
    return shaped


def _table(records: dict[str, tuple[str, str]], edge_hashes: list[str], installs: dict[str, msgspec.Raw]) -> DepTable:
    """Every dependency named by an edge, once; one the index has no record of keeps the edge's own name."""
    hashes = list(dict.fromkeys(edge_hashes))
    found = list(map(records.get, hashes))
    edge_names = _edge_names({h for h, n in zip(hashes, found) if n is None}, installs) if None in found else {}
    named = [n or (edge_names.get(h, ""), "") for h, n in zip(hashes, found)]
    return DepTable(hashes, [n for n, _ in named], [v for _, v in named])


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


def _typed_lookup(installs: dict[str, msgspec.Raw], records: dict[str, tuple[str, str]], binaries: set[str]) -> Lookup:
    def lookup(hash_: str) -> tuple[str, str, bool, list[Dependency]] | None:
        raw = installs.get(hash_)
        if raw is None or hash_ in binaries:
            return None
        node = _RECORD_DECODER.decode(raw).spec
        edges = [Dependency(edge.name or records.get(edge.hash, ("", ""))[0], edge.hash,
                            records.get(edge.hash, ("", ""))[1], *_edge_info(edge)[:2]) for edge in _edges(node)]
        return node.name, node.version, _is_set(node.external), edges

    return lookup


def _is_set(raw: msgspec.Raw) -> bool:
    return bytes(raw).strip() not in (b"", b"null", b"false", b"{}")


def _edge_names(missing: set[str], installs: dict[str, msgspec.Raw]) -> dict[str, str]:
    """Names of dependencies the index lacks records of, from the edges that name them (a second, rare pass)."""
    names: dict[str, str] = {}
    for raw in installs.values():
        for edge in _edges(_RECORD_DECODER.decode(raw).spec):
            if edge.hash in missing:
                names.setdefault(edge.hash, edge.name)
    return names


def _binary(hash_: str, node: _Node, variants: dict[bytes, tuple[str, ...]]) -> _Binary:
    arch = node.arch or _Arch()
    edges = _edges(node)
    own = node.compiler
    own_compiler = (f"{own.name}@{own.version}" if own.version else own.name) if own and own.name else ""
    annotated = node.annotations.compiler if node.annotations else ""
    return _Binary(
        hash_, node.name, node.version, arch.platform, arch.platform_os,
        arch.target if isinstance(arch.target, str) else arch.target.name,
        _variants_of(node.parameters, variants),
        normalise_compiler(own_compiler) if own_compiler else "", normalise_compiler(annotated) if annotated else "",
        [edge.hash for edge in edges], [_MEANINGS.get(bytes(edge.parameters)) or _edge_info(edge) for edge in edges],
    )


def _edges(node: _Node) -> list[_Edge] | tuple[()]:
    """The node's edges; one without a hash names nothing and is left out (as the tolerant reading does)."""
    edges = node.dependencies or ()
    return edges if all(edge.hash for edge in edges) else [edge for edge in edges if edge.hash]


def _compiler_of(binary: _Binary, named: dict[str, tuple[str, str]]) -> str:
    """Its own compiler (DB 6/7), else the build edge providing c, cxx, fortran (DB 8), else its annotation."""
    if binary.own_compiler:
        return binary.own_compiler
    ranks = [info[2] for info in binary.edge_infos]
    best = min(range(len(ranks)), key=ranks.__getitem__, default=None)
    if best is not None and ranks[best] < NO_COMPILER:
        name, version = named.get(binary.edge_hashes[best], ("", ""))
        if name:
            return f"{name}@{version}" if version else name
    return binary.annotated_compiler or "none"


@lru_cache(maxsize=4096)
def _edge_meaning(parameters: bytes, legacy_types: tuple[str, ...]) -> tuple[int, str, int]:
    """(deptype bits, virtuals, compiler rank) of one edge's parameters: a handful of distinct values."""
    data = msgspec.json.decode(parameters) if parameters else {}
    if not isinstance(data, dict):
        data = {}
    deptypes = _strings(data.get("deptypes", list(legacy_types)))
    virtuals = _strings(data.get("virtuals"))  # Spack writes a list; anything else provides nothing
    bits = deptype_bits(deptypes)
    rank = min((COMPILER_VIRTUALS.index(v) for v in virtuals if v in COMPILER_VIRTUALS), default=NO_COMPILER)
    return bits, ",".join(virtuals), rank if bits & 1 else NO_COMPILER  # only a build edge can be the compiler


_MEANINGS: dict[bytes, tuple[int, str, int]] = {}  # an edge's parameters text -> its meaning; a handful of values


def _edge_info(edge: _Edge) -> tuple[int, str, int]:
    key = bytes(edge.parameters)
    if not key:  # DB 6: deptypes in `type`
        return _edge_meaning(b"", tuple(edge.type or ()))
    meaning = _edge_meaning(key, ())
    if len(_MEANINGS) < 10_000:
        _MEANINGS[key] = meaning
    return meaning


def _variants_of(parameters: msgspec.Raw, cache: dict[bytes, tuple[str, ...]]) -> tuple[str, ...]:
    """Rendered once per distinct `parameters` text in this index."""
    key = bytes(parameters)
    found = cache.get(key)
    if found is None:
        decoded = msgspec.json.decode(key) if key else {}
        found = cache[key] = render_variants(decoded if isinstance(decoded, dict) else {})
    return found


def render_variants(parameters: Mapping[str, Any]) -> tuple[str, ...]:
    """`parameters` as the site lists variants: sorted by name, flags left out, patches shortened."""
    rendered = []
    for key in sorted(parameters):
        if key in FLAGS or not _VARIANT_NAME.fullmatch(key):
            continue  # a name Spack could not have written (`mpi +cuda`) would read as two variants
        value = parameters[key]
        if isinstance(value, list):
            if not value or not all(isinstance(v, str) for v in value):
                continue  # not a variant's value list: left out rather than guessed
            value = tuple(value)
        elif not isinstance(value, bool | str):
            continue
        rendered.append(_rendered_pair(key, value))
    return tuple(rendered)


@lru_cache(maxsize=65536)
def _rendered_pair(key: str, value: bool | str | tuple[str, ...]) -> str:
    """One variant as text, worked out once per (name, value): equal variants are then one string object."""
    if isinstance(value, bool):
        return ("+" if value else "~") + key
    if isinstance(value, str):
        return f"{key}={quote_value(value)}"
    values = [v[:PATCH_LENGTH] for v in value] if key == "patches" else list(value)
    return f"{key}={quote_value(','.join(sorted(values)))}"


# -- grouping per package ------------------------------------------------------------------------------


def _documents(rows: _Rows, origin: str, tag: str, generation: str) -> list[ParsedDocument]:
    """One document per package: runs of the package-ordered rows, their edges sliced alongside."""
    edge_offsets = list(accumulate(rows.deps.counts, initial=0))
    documents = []
    start = 0
    for name, run in groupby(rows.names):
        stop = start + sum(1 for _ in run)
        lo, hi = edge_offsets[start], edge_offsets[stop]
        d = rows.deps
        deps = DepBlock(d.counts[start:stop], d.targets[lo:hi], d.types[lo:hi], d.virtuals[lo:hi], d.table,
                        d.virtual_names)
        columns = SpecColumns(rows.hashes[start:stop], rows.versions[start:stop], rows.compilers[start:stop],
                              rows.platforms[start:stop], rows.oss[start:stop], rows.targets[start:stop],
                              rows.variants[start:stop], [()] * (stop - start), [UNKNOWN_SIZE] * (stop - start), deps)
        documents.append(ParsedDocument(origin, name, tag, name, generation, columns))
        start = stop
    return documents


# -- the tolerant reading: record by record ---------------------------------------------------------------


def _database(data: bytes) -> tuple[dict[str, Any], bool]:
    """The `database` object, as Spack's reader (Python's json) reads it; and whether some bytes were not UTF-8.

    Bytes that are not UTF-8 are kept as lone surrogates, so they cost only the records that hold them.
    """
    try:
        text, bad_bytes = str(data, "utf-8"), False
    except UnicodeDecodeError:
        text, bad_bytes = str(data, "utf-8", "surrogateescape"), True
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise IndexFormatError(f"not valid JSON: {_one_line(str(exc))}") from None
    database = document.get("database") if isinstance(document, dict) else None
    if not isinstance(database, dict) or not isinstance(database.get("installs"), dict):
        raise IndexFormatError("no 'database.installs' mapping: not a Spack build-cache index")
    return database, bad_bytes


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Faults:
    """Records that cost only themselves: each one named (up to MAX_RECORD_PROBLEMS), the rest counted."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.problems: list[Problem] = []
        self.unnamed = {Severity.ERROR: 0, Severity.WARNING: 0}

    def add(self, hash_: str, reason: str, severity: Severity = Severity.ERROR) -> None:
        if len(self.problems) < MAX_RECORD_PROBLEMS:
            self.problems.append(Problem(self.origin, f"record {_shown_hash(hash_)}: {reason}", severity))
        else:
            self.unnamed[severity] += 1

    def report(self) -> list[Problem]:
        what = {Severity.ERROR: "skipped", Severity.WARNING: "with fields of the wrong type shown empty"}
        return self.problems + [Problem(self.origin, f"{n} more records {what[severity]} (not named one by one)",
                                        severity) for severity, n in self.unnamed.items() if n]


def _shown_hash(hash_: str) -> str:
    """A record's key as it can be named: undecodable bytes as \\xNN, never longer than a line."""
    text = hash_.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text if len(text) <= 64 else text[:64] + "…"


def _has_bad_bytes(value: Any) -> bool:
    """Whether a decoded record holds a lone surrogate (a byte that was not UTF-8), without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and any("\udc80" <= c <= "\udcff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _without_bad_bytes(nodes: dict[str, Any], faults: _Faults) -> dict[str, Any]:
    """The records whose text is all UTF-8; the others named (when in the build cache) and dropped,
    so that no other record's dependency shows their bytes either."""
    kept = {}
    for hash_, record in nodes.items():
        if _has_bad_bytes(hash_) or _has_bad_bytes(record):
            if not (isinstance(record, dict) and record.get("in_buildcache") is False):
                faults.add(hash_, "not valid UTF-8; skipped")
        else:
            kept[hash_] = record
    return kept


def _fits_typed_shape(record: dict[str, Any]) -> bool:
    """Whether the typed reading would take this record as it is (else: fields of the wrong type show empty)."""
    try:
        _RECORD_DECODER.decode(msgspec.json.encode(record))  # NaN and Infinity encode as null
    except (msgspec.ValidationError, msgspec.DecodeError, UnicodeError, RecursionError):
        return False
    return True


def _read_tolerantly(data: bytes, origin: str, tag: str, generation: str) -> DatabaseContent:
    database, bad_bytes = _database(data)
    version = str(database.get("version", ""))
    problems = _version_problems(version, origin)
    faults = _Faults(origin)
    nodes = _without_bad_bytes(database["installs"], faults) if bad_bytes else database["installs"]
    specs: list[tuple[str, _Spec]] = []
    for hash_, record in nodes.items():
        if not isinstance(record, dict):
            faults.add(hash_, f"is {_json_type(record)}, not an object; skipped")
            continue
        if record.get("in_buildcache") is not True:
            continue
        spec = _tolerant_spec(record.get("spec"), nodes)
        if spec is None:
            faults.add(hash_, "no usable spec (a node with a name); skipped")
            continue
        if version in KNOWN_VERSIONS and not _fits_typed_shape(record):
            faults.add(hash_, "not the shape Spack writes; fields of the wrong type are shown empty", Severity.WARNING)
        specs.append((str(hash_), spec))
    problems += faults.report()
    specs.sort(key=lambda item: item[1].name)
    binaries = {h for h, _ in specs}
    reached = [edge.hash for _, spec in specs for edge in spec.deps]
    read = [spec for _, spec in specs]
    rows = _Rows([h for h, _ in specs], [s.name for s in read], [s.version for s in read], [s.compiler for s in read],
                 [s.platform for s in read], [s.os for s in read], [s.target for s in read], [s.variants for s in read],
                 DepBlock.from_rows([s.deps for s in read], _unheld(reached, _tolerant_lookup(nodes, binaries))))
    return DatabaseContent(version, _documents(rows, origin, tag, generation), problems)


@dataclass(slots=True)
class _Spec:
    """One record as the tolerant reading renders it."""

    name: str
    version: str
    compiler: str
    platform: str
    os: str
    target: str
    variants: tuple[str, ...]
    deps: tuple[Dependency, ...]


def _tolerant_lookup(nodes: Mapping[str, Any], binaries: set[str]) -> Lookup:
    def lookup(hash_: str) -> tuple[str, str, bool, list[Dependency]] | None:
        record = nodes.get(hash_)
        if hash_ in binaries or not isinstance(record, dict):
            return None
        spec = _tolerant_spec(record.get("spec"), nodes)
        if spec is None:
            return None
        node = record.get("spec")
        return spec.name, spec.version, isinstance(node, dict) and bool(node.get("external")), list(spec.deps)

    return lookup


def _tolerant_membership(data: bytes) -> set[str]:
    database, bad_bytes = _database(data)
    return {str(h) for h, r in database["installs"].items()
            if isinstance(r, dict) and r.get("in_buildcache") is True and not (bad_bytes and _has_bad_bytes(h))}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _tolerant_spec(node: Any, nodes: Mapping[str, Any]) -> _Spec | None:
    if isinstance(node, dict) and "name" not in node and len(node) == 1:
        (name, inner), = node.items()  # DB 5 (specfile v1) wrapped each node in its name
        node = {**inner, "name": name} if isinstance(inner, dict) else None
    if not isinstance(node, dict) or not isinstance(node.get("name"), str) or not node["name"]:
        return None
    arch = as_dict(node.get("arch"))
    target = arch.get("target")
    target = target.get("name") if isinstance(target, dict) else target
    edges = _tolerant_edges(node.get("dependencies"))
    deps = tuple(Dependency(name, h, _version_of(nodes, h), types, virtuals) for name, h, types, virtuals in edges)
    compiler = as_dict(node.get("compiler"))
    annotations = node.get("annotations") if isinstance(node.get("annotations"), dict) else None
    parameters = as_dict(node.get("parameters"))
    return _Spec(node["name"], _text(node.get("version")),
                 _compiler(_text(compiler.get("name")), _text(compiler.get("version")), deps, annotations),
                 _text(arch.get("platform")), _text(arch.get("platform_os")), _text(target),
                 render_variants(parameters), deps)


def _compiler(name: str, version: str, deps: tuple[Dependency, ...], annotations: Mapping[str, Any] | None) -> str:
    if name:  # DB 6/7: the node's own compiler object
        return normalise_compiler(f"{name}@{version}" if version else name)
    for virtual in COMPILER_VIRTUALS:  # DB 8: compilers are build dependencies providing a language
        for dep in deps:
            if dep.deptypes & 1 and virtual in dep.virtuals.split(","):
                return f"{dep.name}@{dep.version}" if dep.version else dep.name
    annotated = annotations.get("compiler") if annotations else None
    return normalise_compiler(annotated) if isinstance(annotated, str) and annotated else "none"


def _version_of(nodes: Mapping[str, Any], hash_: str) -> str:
    record = nodes.get(hash_)
    spec = record.get("spec") if isinstance(record, dict) else None
    version = spec.get("version") if isinstance(spec, dict) else None
    return version if isinstance(version, str) else ""


def _legacy_edges(dependencies: Mapping[str, Any] | None) -> list[tuple[str, str, int, str]]:
    """Specfile v1 wrote `{name: {"hash": ..., "type": [...]}}`."""
    edges = []
    for name, value in (dependencies or {}).items():
        if isinstance(value, dict) and isinstance(value.get("hash"), str):
            types = as_list(value.get("type"))
            edges.append((str(name), value["hash"], deptype_bits([t for t in types if isinstance(t, str)]), ""))
    return edges


def _tolerant_edges(dependencies: Any) -> list[tuple[str, str, int, str]]:
    if isinstance(dependencies, dict):
        return _legacy_edges(dependencies)
    edges = []
    for edge in as_list(dependencies):
        if not isinstance(edge, dict) or not isinstance(edge.get("hash"), str):
            continue
        parameters = as_dict(edge.get("parameters"))
        types = parameters.get("deptypes", edge.get("type"))
        virtuals = parameters.get("virtuals")
        name = _text(edge.get("name"))
        edges.append((name, edge["hash"], deptype_bits(_strings(types)), ",".join(_strings(virtuals))))
    return edges


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
