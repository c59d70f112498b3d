"""Assemble loaded documents into the column-stored Corpus.

Documents stream in (in whatever order the loader finishes them) and are appended
column by column; `finish` then reorders everything once with numpy, so that each
package's specs form one contiguous slice. Only one document's Python objects are
alive at a time, which keeps a whole site's load within a few hundred MB.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from itertools import chain, compress, groupby, islice
from operator import and_, attrgetter, eq, itemgetter, le, not_

import numpy as np

from cachetui.core.model.arrays import IdArray, IndexArray, expand_ranges, gathered, joined, offsets_of, owners
from cachetui.core.model.corpus import BUILD_PROVENANCE, RAW_VARIANTS, UNIQUE_HASHES, Corpus, MultiColumn, Vocabulary
from cachetui.core.model.dependencies import VOCABS as DEPENDENCY_VOCABS
from cachetui.core.model.dependencies import DependencyBuilder
from cachetui.core.model.documents import DOCUMENT_STRINGS, DocumentTable
from cachetui.core.model.fields import REGISTRY
from cachetui.core.model.problems import LoadReport, Problem, Severity
from cachetui.core.model.records import UNKNOWN_PUSHED, DepBlock, ParsedDocument, SpecColumns
from cachetui.core.spack.compilers import compiler_name
from cachetui.core.spack.tags import sort_tags
from cachetui.core.spack.variants import text_atoms

# Specs appended at once: enough to amortise the numpy calls, few enough that the batch's Python objects
# (~17 per spec) are still in the CPU cache when they are interned and freed. Measured on the varied L
# tree: documents decoded and built in 1.9 s at 1,024 specs a batch, 3.9 s at 16,384.
BATCH_SPECS = 1024


def _stored() -> tuple[str, ...]:
    """The multi-valued columns, appended per spec (the variant facet's atoms derived from the raw strings as
    they come): the multi-valued facets and the variants as documents wrote them."""
    return (*REGISTRY.multi(), RAW_VARIANTS)


# A document while the corpus is built: (path, package, tag, title, generation, start, stop), its specs'
# slice in the order they were added. A tuple, not a Document: 50,000 are made, sent, shifted and
# sorted, and a frozen dataclass costs ~1 us to make each time; the Documents are made once, at the end.
DocRow = tuple[str, str, str, str, str, int, int]


@dataclass(slots=True)
class BuilderPart:
    """Documents built into columns elsewhere (a worker process): ids into the part's own vocabularies.

    Compact to send between processes (numpy arrays of the narrowest integer type, short string
    lists), and merged by remapping each vocabulary once rather than interning every value again.
    """

    vocab: dict[str, list[str]]
    single: dict[str, np.ndarray]  # ids, in the narrowest integer type (see _narrow)
    flat: dict[str, np.ndarray]
    lengths: dict[str, np.ndarray]  # entries per spec, for each stored multi-valued column
    hashes: list[str]
    sizes: IndexArray
    docs: list[DocRow]  # start/stop within the part


class CorpusBuilder:
    """Add documents (or merge parts), then `finish()` into a Corpus.

    `distinct`: count the distinct hashes as they come, for the corpus's `unique_hashes` (a builder whose
    documents leave as parts, never finished, need not).
    """

    def __init__(self, *, distinct: bool = True) -> None:
        # Counted as batches and parts come, while other processes still parse, not after the last part, when only
        # this process has work left and everything it does adds to the load in full.
        self._distinct: set[str] | None = set() if distinct else None
        names = (*REGISTRY.single(), *_stored(), *DEPENDENCY_VOCABS, BUILD_PROVENANCE)
        self.vocab: dict[str, Vocabulary] = {name: Vocabulary() for name in names}
        self.vocab[BUILD_PROVENANCE].intern("")  # id 0: the source records no provenance
        self._compiler_names: list[int] = []
        self._atoms = _AtomTable(self.vocab)
        self._start()

    def _start(self) -> None:
        """No specs yet (the vocabularies, and what is derived from them, are kept)."""
        self.single: dict[str, list[np.ndarray]] = {facet: [] for facet in REGISTRY.single()}
        self.flat: dict[str, list[np.ndarray]] = {name: [] for name in _stored()}
        self.lengths: dict[str, list[np.ndarray]] = {name: [] for name in _stored()}
        self.hashes: list[str] = []
        self.sizes: list[np.ndarray] = []
        self.build_provenance: list[np.ndarray] = []
        self.pushed: list[np.ndarray] = []
        self.docs: list[DocRow] = []
        self._pending: list[ParsedDocument] = []  # added, not yet appended to the columns
        self._n_specs = 0
        self.dependencies = DependencyBuilder(self.vocab)

    def add(self, doc: ParsedDocument) -> None:
        start = self._n_specs
        self._n_specs += len(doc.columns.hashes)
        self.docs.append((doc.path, doc.package, doc.tag, doc.title, doc.generation, start, self._n_specs))
        self._pending.append(doc)
        if self._n_specs - len(self.hashes) >= BATCH_SPECS:
            self._flush()

    def _flush(self) -> None:
        """Append the pending documents' specs: a few interning passes per batch, not per document."""
        docs, self._pending = self._pending, []
        if not docs:
            return
        columns = [doc.columns for doc in docs]

        def joined(name: str) -> list:
            return list(chain.from_iterable(map(attrgetter(name), columns)))

        hashes = joined("hashes")
        self.hashes.extend(hashes)
        if self._distinct is not None:
            self._distinct.update(hashes)
        n_specs = len(hashes)
        self.sizes.append(np.asarray(joined("sizes"), dtype=np.int64))
        # A site's documents record neither (a whole batch of them, the usual one, needs no step per spec)
        if any(c.build_provenance is not None for c in columns):
            provenance = list(chain.from_iterable(c.build_provenance_or_unknown() for c in columns))
            self.build_provenance.append(self.vocab[BUILD_PROVENANCE].ids_of(provenance))
        else:
            self.build_provenance.append(np.zeros(n_specs, dtype=np.int32))  # id 0: none recorded
        if any(c.pushed is not None for c in columns):
            self.pushed.append(np.fromiter(chain.from_iterable(c.pushed_or_unknown() for c in columns),
                                           dtype=np.int64, count=n_specs))
        else:
            self.pushed.append(np.full(n_specs, UNKNOWN_PUSHED, dtype=np.int64))
        tag_ids = np.fromiter((self.vocab["tag"].intern(doc.tag) for doc in docs), dtype=np.int32, count=len(docs))
        self.single["tag"].append(np.repeat(tag_ids, list(map(len, map(attrgetter("hashes"), columns)))))
        for facet, name in REGISTRY.read():
            self.single[facet].append(self.vocab[facet].ids_of(joined(name)))
        self.single["compiler_name"].append(self._compiler_name_ids()[self.single["compiler"][-1]])
        self._extend_strings(RAW_VARIANTS, joined("variants"))
        atoms, atom_lengths = self._atoms.of(self.flat[RAW_VARIANTS][-1], self.lengths[RAW_VARIANTS][-1])
        self.flat["variant"].append(atoms)
        self.lengths["variant"].append(atom_lengths)
        self._extend_strings("stack", joined("stacks"))
        for block, n_specs in _dependency_runs(columns):
            self.dependencies.add(block, n_specs)

    def _extend_strings(self, name: str, per_spec: list[tuple[str, ...]]) -> None:
        """Append one CSR row of interned strings per spec."""
        self.flat[name].append(self.vocab[name].ids_of(list(chain.from_iterable(per_spec))))
        self.lengths[name].append(np.fromiter(map(len, per_spec), dtype=np.int64, count=len(per_spec)))

    def _compiler_name_ids(self) -> np.ndarray:
        """Compiler id -> compiler-name id (`gcc@13.2.0` -> `gcc`), grown as compilers are interned."""
        compilers, names = self.vocab["compiler"].values, self._compiler_names
        names.extend(self.vocab["compiler_name"].intern(compiler_name(c)) for c in compilers[len(names):])
        return np.asarray(names, dtype=np.int32)

    # -- parts built in other processes --------------------------------------------------------

    def part(self) -> BuilderPart:
        """Everything added since the last part, as a part to merge into another builder (site documents only).

        The builder then starts again with its vocabularies: a worker's live across its parts, so after
        the first nearly every value is known and interning it is one lookup. A part carries the whole
        (short) vocabulary lists, merged by remapping.
        """
        self._flush()
        if self.dependencies.hashes:
            raise ValueError("a part carries no dependency edges")
        stored = _stored()  # what a part of site documents carries (no dependencies), with the single facets
        part = BuilderPart({name: list(self.vocab[name].values) for name in (*REGISTRY.single(), *stored)},
                           {f: _narrow(joined(self.single[f], np.int32)) for f in REGISTRY.single()},
                           {n: _narrow(joined(self.flat[n], np.int32)) for n in stored},
                           {n: _narrow(joined(self.lengths[n], np.int64)) for n in stored},
                           self.hashes, joined(self.sizes, np.int64), self.docs)
        self._start()
        return part

    def merge(self, part: BuilderPart) -> None:
        """Append a part's documents, mapping its vocabularies onto this builder's once."""
        self._flush()
        remap = {name: self.vocab[name].ids_of(values) for name, values in part.vocab.items()}
        for facet in REGISTRY.single():
            self.single[facet].append(remap[facet][part.single[facet]] if len(part.single[facet])
                                      else np.zeros(0, dtype=np.int32))
        for name in _stored():
            self.flat[name].append(remap[name][part.flat[name]] if len(part.flat[name]) else part.flat[name])
            self.lengths[name].append(part.lengths[name])
        start = self._n_specs
        self.docs.extend((path, package, tag, title, generation, first + start, stop + start)
                         for path, package, tag, title, generation, first, stop in part.docs)
        self.hashes.extend(part.hashes)
        if self._distinct is not None:
            self._distinct.update(part.hashes)
        self.sizes.append(part.sizes)
        self.build_provenance.append(np.zeros(len(part.hashes), dtype=np.int32))  # parts are site documents: none
        self.pushed.append(np.full(len(part.hashes), UNKNOWN_PUSHED, dtype=np.int64))
        self._n_specs += len(part.hashes)
        self.dependencies.add(None, len(part.hashes))

    # -- the corpus ----------------------------------------------------------------------------------

    def finish(self, report: LoadReport | None = None, made: ColumnMade | None = None) -> Corpus:
        """Reorder by package, tag (display order) and path; build the numpy columns.

        `made` hears of each column as soon as it is ready, by its place in the corpus (`single.version`,
        `multi.variant.flat`, `size`, `deps.offsets`, ...): the warm cache writes it while the rest is made.
        """
        report = report if report is not None else LoadReport()
        self._flush()
        tags = sort_tags(self.vocab["tag"].values)
        tag_rank = {tag: i for i, tag in enumerate(tags)}
        ordered = _in_display_order(self.docs, tag_rank)
        spans = _spans(ordered)
        doc_lengths = spans[1] - spans[0]
        # new position -> old spec index; None when the documents came in this order (a cold load of a site
        # reads them in it: the walk goes package by package), and then no column is copied into a new order
        perm = None if _in_place(spans) else expand_ranges(spans[0], doc_lengths)

        def ready(name: str, column: np.ndarray) -> np.ndarray:
            if made is not None:
                made(name, column)
            return column

        def moved(name: str, pieces: list[np.ndarray], dtype: type) -> np.ndarray:
            column = joined(pieces, dtype)
            return ready(name, column if perm is None else column[perm])

        # The columns first, the largest part of the work and of a cache file; then the documents' layout.
        single = {f: moved(f"single.{f}", self.single[f], np.int32) for f in REGISTRY.single()}
        size = moved("size", self.sizes, np.int64)
        build_provenance = moved("build_provenance", self.build_provenance, np.int32)
        pushed = moved("pushed", self.pushed, np.int64)
        multi = {}
        for name in _stored():
            multi[name] = column = _permuted_multi(offsets_of(joined(self.lengths[name], np.int64)),
                                                   joined(self.flat[name], np.int32), perm, spans,
                                                   with_owners=name in REGISTRY.multi())
            for part in ("offsets", "flat", "owner"):
                ready(f"multi.{name}.{part}", getattr(column, part))
        documents, packages, ranges = _lay_out(ordered, doc_lengths, report)
        package_lengths = np.fromiter((stop - start for start, stop in ranges), dtype=np.int64, count=len(ranges))
        deps = self.dependencies.finish(perm)
        for dep_field in fields(deps):
            ready(f"deps.{dep_field.name}", getattr(deps, dep_field.name))
        corpus = Corpus(
            packages=packages,
            package_ranges=ranges,
            documents=documents,
            tags=tags,
            hashes=self.hashes if perm is None else gathered(self.hashes, perm),
            vocab=self.vocab,
            single=single,
            multi=multi,
            package_of=ready("package_of", owners(package_lengths)),
            document_of=ready("document_of", owners(doc_lengths)),
            size=size,
            deps=deps,
            report=report,
            build_provenance=build_provenance,
            pushed=pushed,
        )
        if self._distinct is not None:
            corpus.memo[UNIQUE_HASHES] = len(self._distinct)
            self._distinct = set()  # its strings are the corpus's: the set is not kept beside them
        for facet, derivation in REGISTRY.derived():  # worked out over the corpus built so far
            vocabulary = self.vocab.setdefault(facet, Vocabulary())
            for value in derivation.values:
                vocabulary.intern(value)  # ids in the declared order, whatever this load holds
            corpus.single[facet] = ready(f"single.{facet}", derivation.column(corpus))
        return corpus


ColumnMade = Callable[[str, np.ndarray], None]  # a column's place in the corpus, and the column


class _AtomTable:
    """Raw variant id -> the ids of its facet atoms (`cuda_arch:=80,90` -> `cuda_arch=80`, `cuda_arch=90`).

    Each distinct raw string is parsed once, when first seen; the atoms of a batch are then found
    with numpy alone, and in small pieces: deriving them for a whole site at the end cost ~400 MB of
    temporaries, and the kernel's time to hand out that much fresh memory was most of the cost.
    """

    def __init__(self, vocab: dict[str, Vocabulary]) -> None:
        self.raw, self.atoms = vocab[RAW_VARIANTS], vocab["variant"]
        self.table, self.counts = array("i"), array("q")
        self._arrays: tuple[IdArray, IndexArray, IndexArray] | None = None

    def of(self, raw_ids: IdArray, raw_lengths: IndexArray) -> tuple[IdArray, IndexArray]:
        """The atoms of a CSR column of raw ids (flat ids, entries per spec): flat atom ids, atoms per spec."""
        table, counts, starts = self._grown()
        per_entry = counts[raw_ids]
        if (per_entry == 1).all():  # one atom each, the common case: the same rows, ids swapped
            return table[starts[raw_ids]], raw_lengths
        flat = table[expand_ranges(starts[raw_ids], per_entry)]
        bounds = np.concatenate(([0], np.cumsum(per_entry)))[np.concatenate(([0], np.cumsum(raw_lengths)))]
        return flat, np.diff(bounds)

    def _grown(self) -> tuple[IdArray, IndexArray, IndexArray]:
        new = self.raw.values[len(self.counts):]
        if new or self._arrays is None:
            for text in new:
                ids = [self.atoms.intern(atom) for atom in text_atoms(text)]
                self.table.extend(ids)
                self.counts.append(len(ids))
            counts = np.array(self.counts, dtype=np.int64)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
            self._arrays = np.array(self.table, dtype=np.int32), counts, starts
        return self._arrays


def _dependency_runs(columns: list[SpecColumns]) -> list[tuple[DepBlock | None, int]]:
    """The documents' edges as runs of one source (`DepBlock`, None for specs of sources that record none), with
    their numbers of specs: a mirror's thousands of packages share one table, and are added in one go."""
    runs: list[tuple[DepBlock | None, int]] = []
    for _, group in groupby(columns, key=_source_of):
        members = list(group)
        blocks = [c.deps for c in members if c.deps is not None]
        n_specs = sum(map(len, members))
        if not blocks:
            runs.append((None, n_specs))
        elif len(blocks) == 1:
            runs.append((blocks[0], n_specs))
        else:
            runs.append((DepBlock(list(chain.from_iterable(b.counts for b in blocks)),
                                  list(chain.from_iterable(b.targets for b in blocks)),
                                  b"".join(b.types for b in blocks),
                                  list(chain.from_iterable(b.virtuals for b in blocks)),
                                  blocks[0].table, blocks[0].virtual_names), n_specs))
    return runs


def _source_of(columns: SpecColumns) -> tuple[int, int] | None:
    """What the edges of one source share, by identity (its table and its virtuals are one object each, and
    another source's are never merged with them however alike); None for specs without edges."""
    deps = columns.deps
    return None if deps is None else (id(deps.table), id(deps.virtual_names))


def _narrow(ids: np.ndarray) -> np.ndarray:
    """Non-negative integers in the smallest type that holds them: a part crosses a pipe, and ids into
    vocabularies of a few hundred values need one byte, not four."""
    return ids.astype(np.min_scalar_type(int(ids.max())), copy=False) if len(ids) else ids


def build_corpus(documents: Iterable[ParsedDocument], report: LoadReport | None = None) -> Corpus:
    builder = CorpusBuilder()
    for doc in documents:
        builder.add(doc)
    return builder.finish(report)


def _in_display_order(docs: list[DocRow], tag_rank: dict[str, int]) -> list[DocRow]:
    """The documents by package, tag (in display order) and path, ties as they came (as `sorted` is stable).

    Their keys are made and compared in C, without a Python function per document: a cold load of a site
    finds them in this order already (see `walk._by_package`), and 50,000 calls of a key function were most of
    the time to tell. Only documents out of order are sorted.
    """
    keys = list(zip(map(_PACKAGE, docs), map(tag_rank.__getitem__, map(_TAG, docs)), map(_PATH, docs)))
    if all(map(le, keys, islice(keys, 1, None))):
        return list(docs)
    return [docs[i] for i in sorted(range(len(docs)), key=keys.__getitem__)]


_PATH, _PACKAGE, _TAG = itemgetter(0), itemgetter(1), itemgetter(2)  # of a DocRow


def _spans(docs: list[DocRow]) -> tuple[IndexArray, IndexArray]:
    """Each document's first spec and the one after its last, in the order specs were added."""
    starts = np.fromiter(map(itemgetter(5), docs), dtype=np.int64, count=len(docs))
    return starts, np.fromiter(map(itemgetter(6), docs), dtype=np.int64, count=len(docs))


def _in_place(spans: tuple[IndexArray, IndexArray]) -> bool:
    """Whether documents with these spec spans, in this order, are the specs in the order they were added."""
    starts, stops = spans
    return not len(starts) or (starts[0] == 0 and bool((starts[1:] == stops[:-1]).all()))


def _permuted_multi(old_offsets: IndexArray, flat: IdArray, perm: IndexArray | None,
                    spans: tuple[IndexArray, IndexArray], *, with_owners: bool) -> MultiColumn:
    """The column in the new spec order (None: as it is); its owners only where masks and counts read them (facets).

    A document's entries are contiguous, so the column is copied a document at a time (`spans`, in
    the new order): slices, not an index of every entry, which at 5 million entries was 80 MB of
    fresh memory for the kernel to fault in.
    """
    if perm is None:
        lengths, offsets, new_flat = np.diff(old_offsets), old_offsets, flat
    else:
        lengths = np.diff(old_offsets)[perm]
        bounds = zip(old_offsets[spans[0]].tolist(), old_offsets[spans[1]].tolist())
        new_flat = np.concatenate([flat[lo:hi] for lo, hi in bounds]) if len(perm) else flat[:0]
        offsets = offsets_of(lengths)
    owner = owners(lengths) if with_owners else np.zeros(0, dtype=np.int32)
    return MultiColumn(offsets=offsets, flat=new_flat, owner=owner)


def _lay_out(ordered: list[DocRow], lengths: IndexArray, report: LoadReport
             ) -> tuple[DocumentTable, list[str], list[tuple[int, int]]]:
    """Documents (in their final order, `lengths` specs each) with their new spec slices, and packages with theirs.

    Columns, not 50,000 Document objects: a Document is made when one is read, as from the warm cache.
    The same package in the same tag from two files is said once per later file: sorted by package,
    tag and path, such documents are neighbours, so one pass finds them.
    """
    columns = [list(column) for column in zip(*ordered)] if ordered else [[] for _ in DOCUMENT_STRINGS]
    paths, package_of, tag_of = columns[0], columns[1], columns[2]
    stops = np.cumsum(lengths, dtype=np.int64)
    starts = stops - lengths
    # Each document's package and tag against the one before it, compared in C (a step in Python only for a
    # document that repeats both, which is rare)
    same_package = list(map(eq, package_of, [None, *package_of[:-1]]))
    repeated = compress(range(len(paths)), map(and_, same_package, map(eq, tag_of, [None, *tag_of[:-1]])))
    first, previous = 0, -2  # the first document of the current run of one package and tag; the last repeat
    for i in repeated:
        if i != previous + 1:
            first = i - 1
        report.add(Problem(paths[i], f"{package_of[i]} in tag {tag_of[i]} also comes from {paths[first]}",
                           Severity.WARNING))
        previous = i
    firsts = list(compress(range(len(package_of)), map(not_, same_package)))
    ends = [*firsts[1:], len(package_of)]
    bounds = [0, *stops.tolist()]
    ranges = [(bounds[a], bounds[b]) for a, b in zip(firsts, ends)]
    documents = DocumentTable(dict(zip(DOCUMENT_STRINGS, columns[:5])), starts, stops)
    return documents, [package_of[i] for i in firsts], ranges
