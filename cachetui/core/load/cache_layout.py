"""What of a Snapshot goes in which buffer of the cache file, and the bounds every buffer is checked against.

Arrays (columns, the dependency CSR, every interned string, the documents, the file stamps) are
buffers, mapped; what is small and irregular (problems, index groups' checksums, the few files that
were read with others) is JSON in the file's table. Nothing is unpickled. A file whose buffers
disagree with each other (an id past its vocabulary, offsets that run backwards or past their
column) raises Damaged before any of it is used: checked once, in numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import fields
from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import Any, cast

import numpy as np

from cachetui.core.load.cache_file import Damaged
from cachetui.core.load.snapshot import Listing, Snapshot
from cachetui.core.load.sources.site.walk import Candidate, DirStamp, Stamp, stamps_now
from cachetui.core.model.corpus import BUILD_PROVENANCE, UNIQUE_HASHES, Corpus, MultiColumn, Vocabulary
from cachetui.core.model.dependencies import STORED_GRAPH, node_graph, stored_parts
from cachetui.core.model.dependency_columns import DependencyColumns
from cachetui.core.model.documents import DOCUMENT_STRINGS, DocumentTable
from cachetui.core.model.mapped import MappedVocabulary
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.tables import StringTable, encoded

# Which vocabulary each dependency column's ids point into (None: not ids; an offsets column is CSR).
_DEP_IDS = {"hash": "dep_hash", "virtuals": "dep_virtuals", "name_of": "dep_name", "version_of": "dep_version",
            "unheld_hash": "dep_hash", "unheld_virtuals": "dep_virtuals"}


class MappedListing(Listing):
    """A Listing over the cache file's buffers: Python objects (a Candidate, a tuple per file) only when asked,
    so a warm start that finds nothing changed compares 100,000 stamps without building one."""

    def __init__(self, read: _Reader) -> None:  # every buffer checked now, decoded on first use
        # What the bulk comparison stat'ed (flat, as stamps_now gives them): when it finds a file changed, the
        # partial warm start that follows uses these rather than stat'ing 100,000 paths a second time.
        self._directories_now: list[int] | None = None
        self._files_now: list[int] | None = None
        self._paths = read.strings("candidates")
        self._explicit = read.array("candidates.explicit", len(self._paths))
        self._files_then, self._known = _stamp_buffers(read, "candidates", len(self._paths), 4)
        self._directory_table = read.strings("directories")
        self._directories_then, self._directory_known = _stamp_buffers(
            read, "directories", len(self._directory_table), 2)

    @property
    def files(self) -> int:
        return len(self._paths)

    @cached_property
    def _directory_paths(self) -> list[str]:
        return self._directory_table.tolist()

    @cached_property
    def _file_paths(self) -> list[str]:
        return self._paths.tolist()

    @cached_property
    def candidates(self) -> list[Candidate]:  # type: ignore[override]
        return list(map(Candidate, self._file_paths, map(bool, self._explicit.tolist())))

    @cached_property
    def directories(self) -> dict[str, DirStamp | None]:  # type: ignore[override]
        return dict(zip(self._directory_paths, _stamps_of(self._directories_then, self._directory_known, 2)))

    @cached_property
    def stamps(self) -> dict[str, Stamp | None]:  # type: ignore[override]
        return dict(zip(self._file_paths, _stamps_of(self._files_then, self._known, 4)))

    def unchanged(self) -> bool:
        if not (self._directory_known.all() and self._known.all()):
            return False
        self._directories_now = stamps_now(self._directory_paths, directories=True)
        if self._directories_now != self._directories_then.tolist():
            return False
        self._files_now = stamps_now(self._file_paths)
        return self._files_now == self._files_then.tolist()

    def directories_as_they_were(self) -> bool:
        if self._directories_now is not None:
            return self._directories_now == self._directories_then.tolist()
        return super().directories_as_they_were()

    def current_stamps(self) -> dict[str, Stamp | None]:
        if self._files_now is not None:
            by_four = iter(self._files_now)
            return dict(zip(self._file_paths, zip(by_four, by_four, by_four, by_four)))
        return super().current_stamps()


def to_buffers(snapshot: Snapshot) -> tuple[Iterator[tuple[str, np.ndarray]], Callable[[], dict[str, Any]]]:
    """The snapshot's arrays as named buffers, and the rest as JSON-able metadata (complete once every buffer
    was taken).

    The corpus's columns come first, as they are (a cold load has put them already, as it made them:
    CacheWriter skips those); the strings are encoded into the buffers that follow while they are written.
    """
    corpus: Corpus = snapshot.corpus
    documents = corpus.documents
    table = documents if isinstance(documents, DocumentTable) else None  # a built corpus's: its columns as they are
    ascii: dict[str, bool] = {}

    def buffers() -> Iterator[tuple[str, np.ndarray]]:
        yield from ((f"single.{facet}", column) for facet, column in corpus.single.items())
        for name, multi in corpus.multi.items():
            yield from ((f"multi.{name}.offsets", multi.offsets), (f"multi.{name}.flat", multi.flat),
                        (f"multi.{name}.owner", multi.owner))
        yield from (("package_of", corpus.package_of), ("document_of", corpus.document_of), ("size", corpus.size),
                    ("build_provenance", corpus.build_provenance))
        yield "pushed", corpus.pushed  # the moments; the Pushed facet's ids, worked out at each load, are single.pushed
        yield from ((f"deps.{f.name}", getattr(corpus.deps, f.name)) for f in fields(DependencyColumns))
        yield from zip(_GRAPH, _graph_parts(corpus))
        yield "package_ranges", np.asarray(corpus.package_ranges, dtype=np.int64).reshape(-1)
        if table is not None:
            yield from (("doc.start", table.start), ("doc.stop", table.stop))
        else:
            yield "doc.start", np.fromiter((d.start for d in documents), dtype=np.int64, count=len(documents))
            yield "doc.stop", np.fromiter((d.stop for d in documents), dtype=np.int64, count=len(documents))
        data, offsets, ascii["hashes"] = encoded(corpus.hashes)
        yield from (("hashes.data", data), ("hashes.offsets", offsets))
        for name, values in _strings(snapshot, table):
            data, offsets, ascii[name] = encoded(values)
            yield from ((f"{name}.data", data), (f"{name}.offsets", offsets))
        yield "candidates.explicit", np.fromiter((c.explicit for c in snapshot.candidates), dtype=np.uint8,
                                                 count=len(snapshot.candidates))
        yield from zip(("candidates.signature", "candidates.known"),
                       _stamps(list(map(snapshot.stamps.get, map(_PATH, snapshot.candidates))), 4))
        yield from zip(("directories.signature", "directories.known"),
                       _stamps(list(snapshot.directories.values()), 2))

    def meta() -> dict[str, Any]:
        return {
            "ascii": ascii,
            "unique_hashes": corpus.unique_hashes,
            "vocab": list(corpus.vocab), "single": list(corpus.single), "multi": list(corpus.multi),
            "inputs": snapshot.inputs,
            "walk_problems": _problems(snapshot.walk_problems),
            "file_problems": {path: _problems(ps) for path, ps in snapshot.file_problems.items()},
            "retry": sorted(snapshot.retry),
            "groups": snapshot.groups,
            "group_problems": {key: _problems(ps) for key, ps in snapshot.group_problems.items()},
            "undated": snapshot.undated,
        }

    return buffers(), meta


def _strings(snapshot: Snapshot, table: DocumentTable | None) -> Iterator[tuple[str, Sequence[str]]]:
    """Every string buffer's name and strings but the hashes': the corpus's, its vocabularies', its documents',
    the listing's."""
    corpus = snapshot.corpus
    yield from (("packages", corpus.packages), ("tags", corpus.tags))
    yield from ((f"vocab.{name}", vocabulary.values) for name, vocabulary in corpus.vocab.items())
    for field in DOCUMENT_STRINGS:
        yield f"doc.{field}", table.strings[field] if table is not None else \
            [getattr(document, field) for document in corpus.documents]
    yield "candidates", [c.path for c in snapshot.candidates]
    yield "directories", list(snapshot.directories)


_PATH = attrgetter("path")


def _stamps(stamps: Sequence[tuple[int, ...] | None], width: int) -> tuple[np.ndarray, np.ndarray]:
    rows: Sequence[tuple[int, ...]]
    if None in stamps:  # a file or directory that could not be stat'ed: kept as zeros, marked unknown
        known = np.fromiter((s is not None for s in stamps), dtype=np.uint8, count=len(stamps))
        rows = [s or (0,) * width for s in stamps]
    else:  # the usual listing, every stamp known: no step per row in Python
        known, rows = np.ones(len(stamps), dtype=np.uint8), cast("Sequence[tuple[int, ...]]", stamps)
    try:  # one flat pass: quicker than numpy reading 50,000 tuples as rows
        values = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=width * len(rows))
    except OverflowError:  # an inode of 2**63 or more (some network file systems) does not fit an int64:
        # kept wrapped, it never equals the stat again, so its file is read afresh each time, never served stale
        values = np.array([v & _U64 for row in rows for v in row], dtype=np.uint64).view(np.int64)
    return values, known


_U64 = (1 << 64) - 1


def _problems(problems: list[Problem]) -> list[list]:
    return [[p.path, p.reason, p.severity.value, p.line, p.stale] for p in problems]


class _Reader:
    """Buffers by name, each checked against what refers to it before anything is built on them."""

    def __init__(self, meta: dict[str, Any], buffers: dict[str, np.ndarray]) -> None:
        self.meta, self.buffers = meta, buffers

    def array(self, name: str, length: int | None = None, below: int | None = None) -> np.ndarray:
        """Buffer `name`: of `length` entries when given, every entry in [0, below) when given."""
        try:
            array = self.buffers[name]
        except KeyError:
            raise Damaged(f"no buffer {name}") from None
        if length is not None and len(array) != length:
            raise Damaged(f"{name} holds {len(array)} entries, not {length}")
        if below is not None and len(array) and (int(array.min()) < 0 or int(array.max()) >= below):
            raise Damaged(f"{name} holds an id out of bounds")
        return array

    def offsets(self, name: str, rows: int | None, over: int) -> np.ndarray:
        """CSR offsets of `rows` rows over a column of `over` entries: from 0 to `over`, never decreasing."""
        offsets = self.array(name, None if rows is None else rows + 1)
        if not len(offsets) or offsets[0] != 0 or offsets[-1] != over or bool((offsets[1:] < offsets[:-1]).any()):
            raise Damaged(f"{name} are not offsets over {over} entries")
        return offsets

    def strings(self, name: str, length: int | None = None) -> StringTable:
        data = self.array(f"{name}.data")
        offsets = self.offsets(f"{name}.offsets", length, len(data))
        return StringTable(data, offsets, ascii=bool(self.meta["ascii"].get(name, False)))


def from_buffers(meta: dict[str, Any], buffers: dict[str, np.ndarray]) -> dict[str, Any]:
    """The Snapshot's fields (corpus included) over the mapped buffers. Raises Damaged on any inconsistency."""
    try:
        return _fields(_Reader(meta, buffers))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # metadata of the wrong shape
        raise Damaged(f"unreadable metadata ({type(exc).__name__})") from None


def _fields(read: _Reader) -> dict[str, Any]:
    meta = read.meta
    hashes = read.strings("hashes")
    n = len(hashes)
    vocab: dict[str, Vocabulary] = {name: MappedVocabulary(read.strings(f"vocab.{name}")) for name in meta["vocab"]}
    packages = read.strings("packages").tolist()
    tags = read.strings("tags").tolist()
    ranges = read.array("package_ranges", 2 * len(packages), n + 1).reshape(-1, 2)
    if bool((ranges[:, 0] > ranges[:, 1]).any()):
        raise Damaged("package_ranges run backwards")
    starts = read.array("doc.start", below=n + 1)
    stops = read.array("doc.stop", len(starts), n + 1)
    if bool((starts > stops).any()):
        raise Damaged("document slices run backwards")
    documents = DocumentTable({f: read.strings(f"doc.{f}", len(starts)) for f in DOCUMENT_STRINGS}, starts, stops)
    single = {facet: read.array(f"single.{facet}", n, len(vocab[facet])) for facet in meta["single"]}
    multi = {}
    for name in meta["multi"]:
        flat = read.array(f"multi.{name}.flat", below=len(vocab[name]))
        owner = read.array(f"multi.{name}.owner", below=n)
        if len(owner) not in (0, len(flat)):
            raise Damaged(f"multi.{name}.owner does not match its column")
        multi[name] = MultiColumn(read.offsets(f"multi.{name}.offsets", n, len(flat)), flat, owner)
    corpus = Corpus(packages=packages, package_ranges=[(int(a), int(b)) for a, b in ranges.tolist()],
                    documents=documents, tags=tags, hashes=hashes, vocab=vocab, single=single, multi=multi,
                    package_of=read.array("package_of", n, len(packages)),
                    document_of=read.array("document_of", n, len(documents)),
                    size=read.array("size", n), deps=_dependencies(read, n, vocab),
                    build_provenance=_build_provenance(read, n, vocab), pushed=_pushed(read, n))
    count = meta["unique_hashes"]
    if not isinstance(count, int) or not 0 <= count <= n or (n and not count):
        raise Damaged("unique_hashes out of bounds")
    corpus.memo[UNIQUE_HASHES] = count
    _stored_graph(read, corpus)
    return {
        "listing": MappedListing(read),
        "inputs": {path: {p: _tuple(stamp) for p, stamp in files.items()} for path, files in meta["inputs"].items()},
        "corpus": corpus,
        "walk_problems": _problems_of(meta["walk_problems"]),
        "file_problems": {path: _problems_of(ps) for path, ps in meta["file_problems"].items()},
        "retry": set(meta["retry"]),
        "groups": {key: tuple(map(_tuple, fingerprint)) for key, fingerprint in meta["groups"].items()},
        "group_problems": {key: _problems_of(ps) for key, ps in meta["group_problems"].items()},
        "undated": _undated(meta["undated"]),
    }


def _dependencies(read: _Reader, n: int, vocab: dict[str, Vocabulary]) -> DependencyColumns:
    hashes = len(vocab["dep_hash"])
    column = {name: read.array(f"deps.{name}", below=len(vocab[target])) for name, target in _DEP_IDS.items()}
    edges, unheld = len(column["hash"]), len(column["unheld_hash"])
    return DependencyColumns(
        offsets=read.offsets("deps.offsets", n, edges), hash=column["hash"],
        types=read.array("deps.types", edges), virtuals=read.array("deps.virtuals", edges),
        name_of=read.array("deps.name_of", hashes), version_of=read.array("deps.version_of", hashes),
        unheld_offsets=read.offsets("deps.unheld_offsets", hashes, unheld), unheld_hash=column["unheld_hash"],
        unheld_types=read.array("deps.unheld_types", unheld),
        unheld_virtuals=read.array("deps.unheld_virtuals", unheld),
        external=read.array("deps.external", hashes))


_GRAPH = ("graph.node_of_spec", "graph.by_target", "graph.target_offsets")


def _graph_parts(corpus: Corpus) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the file keeps of the corpus's dependency graph (`dependencies.stored_parts`): a cold load of a mirror
    worked it out already (its installable column needs it); a corpus without edges keeps none."""
    if not (len(corpus.deps.hash) or len(corpus.deps.unheld_hash)):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(1, np.int64)
    return stored_parts(node_graph(corpus))


def _undated(kept: Any) -> dict[str, list[str]]:
    """The groups kept without their push dates: each key with its documents' paths."""
    if not isinstance(kept, dict) or not all(isinstance(key, str) and isinstance(paths, list)
                                             and all(isinstance(path, str) for path in paths)
                                             for key, paths in kept.items()):
        raise Damaged("undated is not groups with their documents")
    return kept


def _stored_graph(read: _Reader, corpus: Corpus) -> None:
    """The graph's parts, memoised on the corpus for `dependencies.node_graph`, which checks them at the first `^`
    (every id within bounds, the order they stand for). Here only what costs no page of them: their types and
    lengths. A start that asks no `^` never reads the 10 MB of a large mirror's sorted edges."""
    nodes, by_target, offsets = (read.array(name) for name in _GRAPH)
    if not len(nodes):
        return
    if not all(np.issubdtype(part.dtype, np.integer) for part in (nodes, by_target, offsets)):
        raise Damaged("the graph's buffers are not integers")
    edges = len(corpus.deps.hash) + len(corpus.deps.unheld_hash)
    if len(nodes) != corpus.n_specs or len(by_target) != edges or len(offsets) <= len(corpus.deps.name_of):
        raise Damaged("the graph's buffers do not match the corpus")
    corpus.memo[STORED_GRAPH] = (nodes, by_target, offsets)


def _build_provenance(read: _Reader, n: int, vocab: dict[str, Vocabulary]) -> np.ndarray:
    """Per spec, an id into its vocabulary (none at all for a corpus built without one)."""
    ids = read.array(BUILD_PROVENANCE, below=len(vocab[BUILD_PROVENANCE]) if BUILD_PROVENANCE in vocab else 0)
    if len(ids) not in (0, n):
        raise Damaged(f"{BUILD_PROVENANCE} holds {len(ids)} entries, not {n}")
    return ids


def _pushed(read: _Reader, n: int) -> np.ndarray:
    """Per spec, when it was pushed (none at all for a corpus built without the column)."""
    pushed = read.array("pushed")
    if len(pushed) not in (0, n):
        raise Damaged(f"pushed holds {len(pushed)} entries, not {n}")
    if len(pushed) and int(pushed.min()) < -1:
        raise Damaged("pushed holds a time before the epoch")
    return pushed


def _stamp_buffers(read: _Reader, name: str, count: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The flat stamps of `count` paths, `width` numbers each, and whether each is known (in the file,
    `NAME.signature`: a buffer's name is part of the file's format)."""
    return read.array(f"{name}.signature", count * width), read.array(f"{name}.known", count)


def _stamps_of(flat: np.ndarray, known: np.ndarray, width: int) -> list[Any]:
    values = flat.reshape(-1, width)
    if known.all():  # the usual case, at C speed: 50,000 rows
        return list(map(tuple, values.tolist()))
    return [tuple(row) if ok else None for row, ok in zip(values.tolist(), known.tolist())]


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _problems_of(rows: list[list]) -> list[Problem]:
    return [Problem(path, reason, Severity(severity), line, bool(stale))
            for path, reason, severity, line, stale in rows]

