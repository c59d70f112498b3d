"""Assemble loaded documents into the column-stored Corpus.

Documents stream in (in whatever order the loader finishes them) and are appended
column by column; `finish` then reorders everything once with numpy, so that each
package's specs form one contiguous slice. Only one document's Python objects are
alive at a time, which keeps a whole site's load within a few hundred MB.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

import numpy as np

from cachetui.core.model.arrays import IdArray, IndexArray
from cachetui.core.model.arrays import as_numpy, expand_ranges, joined, offsets_of, owners, permuted
from cachetui.core.model.corpus import (
    MULTI_FACETS,
    RAW_VARIANTS,
    SINGLE_FACETS,
    Corpus,
    Document,
    MultiColumn,
    Vocabulary,
)
from cachetui.core.model.dependencies import VOCABS as DEPENDENCY_VOCABS
from cachetui.core.model.dependencies import DependencyBuilder
from cachetui.core.model.installable import VALUES as INSTALLABLE_VALUES
from cachetui.core.model.installable import installable_column
from cachetui.core.model.problems import LoadReport, Problem, Severity
from cachetui.core.model.records import ParsedDocument
from cachetui.core.spack.compilers import compiler_name
from cachetui.core.spack.tags import sort_tags
from cachetui.core.spack.variants import text_atoms

_MULTI = (*MULTI_FACETS, RAW_VARIANTS)
BATCH_SPECS = 16_384  # specs appended at once: large enough to amortise, small enough to stream
_STORED = ("stack", RAW_VARIANTS)  # appended per spec; the variant facet is derived from RAW_VARIANTS
_PART_VOCABS = (*SINGLE_FACETS, *_STORED)  # what a part of site documents carries (no dependencies)


@dataclass(slots=True)
class BuilderPart:
    """Documents built into columns elsewhere (a worker process): ids into the part's own vocabularies.

    Compact to send between processes (numpy arrays and short string lists), and merged by
    remapping each vocabulary once rather than interning every value again.
    """

    vocab: dict[str, list[str]]
    single: dict[str, IdArray]
    flat: dict[str, IdArray]
    lengths: dict[str, IndexArray]  # entries per spec, for each stored multi-valued column
    hashes: list[str]
    sizes: IndexArray
    docs: list[Document]  # start/stop within the part


class CorpusBuilder:
    """Add documents (or merge parts), then `finish()` into a Corpus."""

    def __init__(self, vocab: dict[str, Vocabulary] | None = None) -> None:
        """`vocab`: vocabularies to intern into, shared with earlier builders (a worker's, across its parts)."""
        self.vocab = vocab if vocab is not None else {}
        for name in (*SINGLE_FACETS, *_MULTI, *DEPENDENCY_VOCABS):
            self.vocab.setdefault(name, Vocabulary())
        self.single: dict[str, list[np.ndarray]] = {facet: [] for facet in SINGLE_FACETS}
        self.flat: dict[str, list[np.ndarray]] = {name: [] for name in _STORED}
        self.lengths: dict[str, list[np.ndarray]] = {name: [] for name in _STORED}
        self.hashes: list[str] = []
        self.sizes: list[np.ndarray] = []
        self.docs: list[Document] = []
        self._pending: list[ParsedDocument] = []  # added, not yet appended to the columns
        self._n_specs = 0
        self._compiler_names: list[int] = []
        self.dependencies = DependencyBuilder(self.vocab)

    def add(self, doc: ParsedDocument) -> None:
        start = self._n_specs
        self._n_specs += len(doc.columns)
        self.docs.append(Document(doc.path, doc.package, doc.tag, doc.title, doc.generation, start, self._n_specs))
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
            return list(chain.from_iterable(getattr(c, name) for c in columns))

        self.hashes.extend(joined("hashes"))
        self.sizes.append(np.asarray(joined("sizes"), dtype=np.int64))
        tag_ids = np.fromiter((self.vocab["tag"].intern(doc.tag) for doc in docs), dtype=np.int32, count=len(docs))
        self.single["tag"].append(np.repeat(tag_ids, [len(c) for c in columns]))
        compiler_ids = self.vocab["compiler"].ids_of(joined("compilers"))
        self.single["compiler"].append(compiler_ids)
        self.single["compiler_name"].append(self._compiler_name_ids()[compiler_ids])
        for facet, name in (("version", "versions"), ("platform", "platforms"), ("os", "oss"), ("target", "targets")):
            self.single[facet].append(self.vocab[facet].ids_of(joined(name)))
        self._extend_strings(RAW_VARIANTS, joined("variants"))
        self._extend_strings("stack", joined("stacks"))
        without = 0  # specs of sources that record no dependencies, added in one go
        for c in columns:
            if c.deps is None:
                without += len(c)
                continue
            self.dependencies.add(None, without)
            self.dependencies.add(c.deps, len(c))
            without = 0
        self.dependencies.add(None, without)

    def _extend_strings(self, name: str, per_spec: list[tuple[str, ...]]) -> None:
        """Append one CSR row of interned strings per spec (facet atoms are derived in `finish`)."""
        self.flat[name].append(self.vocab[name].ids_of(list(chain.from_iterable(per_spec))))
        self.lengths[name].append(np.fromiter(map(len, per_spec), dtype=np.int64, count=len(per_spec)))

    def _compiler_name_ids(self) -> np.ndarray:
        """Compiler id -> compiler-name id (`gcc@13.2.0` -> `gcc`), grown as compilers are interned."""
        compilers, names = self.vocab["compiler"].values, self._compiler_names
        names.extend(self.vocab["compiler_name"].intern(compiler_name(c)) for c in compilers[len(names):])
        return np.asarray(names, dtype=np.int32)

    # -- parts built in other processes --------------------------------------------------------

    def part(self) -> BuilderPart:
        """Everything added so far, as a part to merge into another builder (site documents only)."""
        self._flush()
        if self.dependencies.hashes:
            raise ValueError("a part carries no dependency edges")
        return BuilderPart({name: list(self.vocab[name].values) for name in _PART_VOCABS},
                           {f: joined(self.single[f], np.int32) for f in SINGLE_FACETS},
                           {n: joined(self.flat[n], np.int32) for n in _STORED},
                           {n: joined(self.lengths[n], np.int64) for n in _STORED},
                           self.hashes, joined(self.sizes, np.int64), self.docs)

    def merge(self, part: BuilderPart) -> None:
        """Append a part's documents, mapping its vocabularies onto this builder's once."""
        self._flush()
        remap = {name: self.vocab[name].ids_of(values) for name, values in part.vocab.items()}
        for facet in SINGLE_FACETS:
            self.single[facet].append(remap[facet][part.single[facet]] if len(part.single[facet])
                                      else np.zeros(0, dtype=np.int32))
        for name in _STORED:
            self.flat[name].append(remap[name][part.flat[name]] if len(part.flat[name]) else part.flat[name])
            self.lengths[name].append(part.lengths[name])
        start = self._n_specs
        self.docs.extend(Document(d.path, d.package, d.tag, d.title, d.generation, d.start + start, d.stop + start)
                         for d in part.docs)  # by position: replace() cost 10 us a document
        self.hashes.extend(part.hashes)
        self.sizes.append(part.sizes)
        self._n_specs += len(part.hashes)
        self.dependencies.add(None, len(part.hashes))

    # -- the corpus ----------------------------------------------------------------------------------

    def _variant_atoms(self, raw_offsets: IndexArray, raw_flat: IdArray) -> tuple[IndexArray, IdArray]:
        """The variant facet in CSR form, from the raw strings: each distinct string is parsed once."""
        intern = self.vocab["variant"].intern
        table, lengths = array("i"), array("q")
        for text in self.vocab[RAW_VARIANTS].values:
            atoms = [intern(atom) for atom in text_atoms(text)]
            table.extend(atoms)
            lengths.append(len(atoms))
        atom_lengths = as_numpy(lengths, np.int64)
        per_entry = atom_lengths[raw_flat]
        flat = as_numpy(table, np.int32)[expand_ranges(offsets_of(atom_lengths)[:-1][raw_flat], per_entry)]
        return offsets_of(per_entry)[raw_offsets], flat

    def finish(self, report: LoadReport | None = None) -> Corpus:
        """Reorder by package, tag (display order) and path; build the numpy columns."""
        report = report if report is not None else LoadReport()
        self._flush()
        csr = {name: (offsets_of(joined(self.lengths[name], np.int64)), joined(self.flat[name], np.int32))
               for name in _STORED}
        csr["variant"] = self._variant_atoms(*csr[RAW_VARIANTS])
        tags = sort_tags(self.vocab["tag"].values)
        tag_rank = {tag: i for i, tag in enumerate(tags)}
        order = sorted(range(len(self.docs)), key=lambda d: _doc_key(self.docs[d], tag_rank))
        _warn_duplicate_documents([self.docs[d] for d in order], report)
        perm = _spec_permutation(self.docs, order)
        documents, packages, ranges, package_of, document_of = _lay_out(self.docs, order)
        corpus = Corpus(
            packages=packages,
            package_ranges=ranges,
            documents=documents,
            tags=tags,
            hashes=[self.hashes[i] for i in perm],
            vocab=self.vocab,
            single={f: joined(self.single[f], np.int32)[perm] for f in SINGLE_FACETS},
            multi={name: _permuted_multi(*csr[name], perm, with_owners=name in MULTI_FACETS) for name in _MULTI},
            package_of=package_of,
            document_of=document_of,
            size=joined(self.sizes, np.int64)[perm],
            deps=self.dependencies.finish(perm),
            report=report,
        )
        installable = self.vocab.setdefault("installable", Vocabulary())
        for value in INSTALLABLE_VALUES:
            installable.intern(value)  # ids in VALUES order, whatever this load holds
        corpus.single["installable"] = installable_column(corpus)
        return corpus


def build_corpus(documents: Iterable[ParsedDocument], report: LoadReport | None = None) -> Corpus:
    builder = CorpusBuilder()
    for doc in documents:
        builder.add(doc)
    return builder.finish(report)


def _doc_key(doc: Document, tag_rank: dict[str, int]) -> tuple[str, int, str]:
    return (doc.package, tag_rank[doc.tag], doc.path)


def _spec_permutation(docs: list[Document], order: list[int]) -> IndexArray:
    """New position -> old spec index, document by document in the new order."""
    starts = np.fromiter((docs[d].start for d in order), dtype=np.int64, count=len(order))
    lengths = np.fromiter((docs[d].stop - docs[d].start for d in order), dtype=np.int64, count=len(order))
    return expand_ranges(starts, lengths)


def _permuted_multi(old_offsets: IndexArray, flat: IdArray, perm: IndexArray, *, with_owners: bool) -> MultiColumn:
    """The column in the new spec order; its owners only where masks and counts read them (facets)."""
    offsets, take = permuted(old_offsets, perm)
    owner = owners(np.diff(offsets)) if with_owners else np.zeros(0, dtype=np.int32)
    return MultiColumn(offsets=offsets, flat=flat[take], owner=owner)


def _lay_out(
    docs: list[Document], order: list[int]
) -> tuple[list[Document], list[str], list[tuple[int, int]], np.ndarray, np.ndarray]:
    """Documents with their new spec slices, packages with theirs, and per-spec owners."""
    documents: list[Document] = []
    packages: list[str] = []
    ranges: list[tuple[int, int]] = []
    position = 0
    for d in order:
        old = docs[d]
        n = old.stop - old.start
        if not packages or packages[-1] != old.package:
            packages.append(old.package)
            ranges.append((position, position))
        documents.append(Document(old.path, old.package, old.tag, old.title, old.generation, position, position + n))
        position += n
        ranges[-1] = (ranges[-1][0], position)
    document_of = owners(np.fromiter((d.stop - d.start for d in documents), dtype=np.int64, count=len(documents)))
    package_of = owners(np.fromiter((stop - start for start, stop in ranges), dtype=np.int64, count=len(ranges)))
    return documents, packages, ranges, package_of, document_of


def _warn_duplicate_documents(docs: list[Document], report: LoadReport) -> None:
    first: dict[tuple[str, str], str] = {}
    for doc in docs:
        key = (doc.package, doc.tag)
        if key in first:
            reason = f"{doc.package} in tag {doc.tag} also comes from {first[key]}"
            report.add(Problem(doc.path, reason, Severity.WARNING))
        else:
            first[key] = doc.path
