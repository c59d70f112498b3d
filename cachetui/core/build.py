"""Assemble loaded documents into the column-stored Corpus.

Documents stream in (in whatever order the loader finishes them) and are appended
column by column; `finish` then reorders everything once with numpy, so that each
package's specs form one contiguous slice. Only one document's Python objects are
alive at a time, which keeps a whole site's load within a few hundred MB.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import accumulate, chain

import numpy as np

from cachetui.core.arrays import as_numpy, expand_ranges
from cachetui.core.compilers import compiler_name
from cachetui.core.dependencies import VOCABS as DEPENDENCY_VOCABS
from cachetui.core.dependencies import DependencyBuilder
from cachetui.core.model import MULTI_FACETS, RAW_VARIANTS, SINGLE_FACETS, Corpus, Document, MultiColumn, Vocabulary
from cachetui.core.problems import LoadReport, Problem, Severity
from cachetui.core.records import ParsedDocument
from cachetui.core.tags import sort_tags
from cachetui.core.variants import text_atoms

_MULTI = (*MULTI_FACETS, RAW_VARIANTS)
_STORED = ("stack", RAW_VARIANTS)  # appended per spec; the variant facet is derived from RAW_VARIANTS


class CorpusBuilder:
    """Append documents, then `finish()` into a Corpus."""

    def __init__(self) -> None:
        self.vocab = {name: Vocabulary() for name in (*SINGLE_FACETS, *_MULTI)}
        self.single = {facet: array("i") for facet in SINGLE_FACETS}
        self.flat = {name: array("i") for name in _STORED}
        self.offsets = {name: array("q", [0]) for name in _STORED}
        self.hashes: list[str] = []
        self.sizes = array("q")
        self.docs: list[Document] = []
        self._compiler_names: dict[int, int] = {}
        self.vocab.update({name: Vocabulary() for name in DEPENDENCY_VOCABS})
        self.dependencies = DependencyBuilder(self.vocab)

    def add(self, doc: ParsedDocument) -> None:
        start = len(self.hashes)
        self._add_specs(doc)
        self.docs.append(Document(doc.path, doc.package, doc.tag, doc.title, doc.generation, start, len(self.hashes)))

    def _add_specs(self, doc: ParsedDocument) -> None:
        columns = doc.columns
        self.hashes.extend(columns.hashes)
        self.sizes.extend(columns.sizes)
        self.single["tag"].extend([self.vocab["tag"].intern(doc.tag)] * len(columns))
        compiler_ids = self.vocab["compiler"].intern_all(columns.compilers)
        self.single["compiler"].extend(compiler_ids)
        self.single["compiler_name"].extend([self._compiler_name_id(c) for c in compiler_ids])
        for facet, values in (("version", columns.versions), ("platform", columns.platforms),
                              ("os", columns.oss), ("target", columns.targets)):
            self.single[facet].extend(self.vocab[facet].intern_all(values))
        self._extend_strings(RAW_VARIANTS, columns.variants)
        self._extend_strings("stack", columns.stacks)
        self.dependencies.add(columns.deps, len(columns))

    def _extend_strings(self, name: str, per_spec: list[tuple[str, ...]]) -> None:
        """Append one CSR row of interned strings per spec (facet atoms are derived in `finish`)."""
        flat, offsets = self.flat[name], self.offsets[name]
        flat.extend(self.vocab[name].intern_all(list(chain.from_iterable(per_spec))))
        ends = accumulate(map(len, per_spec), initial=offsets[-1])
        next(ends)  # `initial` repeats the previous end
        offsets.extend(ends)

    def _compiler_name_id(self, compiler_id: int) -> int:
        found = self._compiler_names.get(compiler_id)
        if found is None:
            name = compiler_name(self.vocab["compiler"].values[compiler_id])
            found = self._compiler_names[compiler_id] = self.vocab["compiler_name"].intern(name)
        return found

    def _variant_atoms(self) -> tuple[np.ndarray, np.ndarray]:
        """The variant facet in CSR form, from the raw strings: each distinct string is parsed once."""
        intern = self.vocab["variant"].intern
        table, lengths = array("i"), array("q")
        for text in self.vocab[RAW_VARIANTS].values:
            atoms = [intern(atom) for atom in text_atoms(text)]
            table.extend(atoms)
            lengths.append(len(atoms))
        raw_flat, raw_offsets = as_numpy(self.flat[RAW_VARIANTS], np.int32), as_numpy(self.offsets[RAW_VARIANTS], np.int64)
        atom_lengths = as_numpy(lengths, np.int64)
        atom_starts = np.concatenate(([0], np.cumsum(atom_lengths)[:-1])).astype(np.int64)
        per_entry = atom_lengths[raw_flat]
        flat = as_numpy(table, np.int32)[expand_ranges(atom_starts[raw_flat], per_entry)]
        offsets = np.concatenate(([0], np.cumsum(per_entry)))[raw_offsets].astype(np.int64)
        return offsets, flat

    def finish(self, report: LoadReport | None = None) -> Corpus:
        """Reorder by package, tag (display order) and path; build the numpy columns."""
        report = report if report is not None else LoadReport()
        csr = {name: (as_numpy(self.offsets[name], np.int64), as_numpy(self.flat[name], np.int32)) for name in _STORED}
        csr["variant"] = self._variant_atoms()
        tags = sort_tags(self.vocab["tag"].values)
        tag_rank = {tag: i for i, tag in enumerate(tags)}
        order = sorted(range(len(self.docs)), key=lambda d: _doc_key(self.docs[d], tag_rank))
        _warn_duplicate_documents([self.docs[d] for d in order], report)
        perm = _spec_permutation(self.docs, order)
        documents, packages, ranges, package_of, document_of = _lay_out(self.docs, order)
        return Corpus(
            packages=packages,
            package_ranges=ranges,
            documents=documents,
            tags=tags,
            hashes=[self.hashes[i] for i in perm],
            vocab=self.vocab,
            single={f: as_numpy(self.single[f], np.int32)[perm] for f in SINGLE_FACETS},
            multi={name: _permuted_multi(*csr[name], perm) for name in _MULTI},
            package_of=package_of,
            document_of=document_of,
            size=as_numpy(self.sizes, np.int64)[perm],
            deps=self.dependencies.finish(perm),
            report=report,
        )


def build_corpus(documents: Iterable[ParsedDocument], report: LoadReport | None = None) -> Corpus:
    builder = CorpusBuilder()
    for doc in documents:
        builder.add(doc)
    return builder.finish(report)


def _doc_key(doc: Document, tag_rank: dict[str, int]) -> tuple[str, int, str]:
    return (doc.package, tag_rank[doc.tag], doc.path)


def _spec_permutation(docs: list[Document], order: list[int]) -> np.ndarray:
    """New position -> old spec index, document by document in the new order."""
    starts = np.fromiter((docs[d].start for d in order), dtype=np.int64, count=len(order))
    lengths = np.fromiter((docs[d].stop - docs[d].start for d in order), dtype=np.int64, count=len(order))
    return expand_ranges(starts, lengths)


def _permuted_multi(old_offsets: np.ndarray, flat: np.ndarray, perm: np.ndarray) -> MultiColumn:
    lengths = (old_offsets[1:] - old_offsets[:-1])[perm]
    new_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    new_flat = flat[expand_ranges(old_offsets[:-1][perm], lengths)]
    owner = np.repeat(np.arange(len(perm), dtype=np.int32), lengths)
    return MultiColumn(offsets=new_offsets, flat=new_flat, owner=owner)


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
    doc_lengths = np.fromiter((d.stop - d.start for d in documents), dtype=np.int64, count=len(documents))
    document_of = np.repeat(np.arange(len(documents), dtype=np.int32), doc_lengths)
    package_lengths = np.fromiter((stop - start for start, stop in ranges), dtype=np.int64, count=len(ranges))
    package_of = np.repeat(np.arange(len(packages), dtype=np.int32), package_lengths)
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
