"""Assemble loaded documents into the column-stored Corpus."""

from __future__ import annotations

from array import array
from collections.abc import Iterable

import numpy as np

from cachetui.core.compilers import compiler_name
from cachetui.core.model import MULTI_FACETS, SINGLE_FACETS, Corpus, Document, MultiColumn, Vocabulary
from cachetui.core.problems import LoadReport, Problem, Severity
from cachetui.core.records import ParsedDocument
from cachetui.core.tags import sort_tags
from cachetui.core.variants import variant_atoms


class _Columns:
    """Growable int columns while building; turned into numpy arrays at the end."""

    def __init__(self) -> None:
        self.vocab = {facet: Vocabulary() for facet in (*SINGLE_FACETS, *MULTI_FACETS)}
        self.single = {facet: array("i") for facet in SINGLE_FACETS}
        self.multi_flat = {facet: array("i") for facet in MULTI_FACETS}
        self.multi_offsets = {facet: array("q", [0]) for facet in MULTI_FACETS}
        self.atom_cache: dict[tuple[str, ...], tuple[int, ...]] = {}
        self.stack_cache: dict[tuple[str, ...], tuple[int, ...]] = {}

    def add_multi(self, facet: str, ids: tuple[int, ...]) -> None:
        flat = self.multi_flat[facet]
        flat.extend(ids)
        self.multi_offsets[facet].append(len(flat))

    def variant_ids(self, variants: tuple[str, ...]) -> tuple[int, ...]:
        ids = self.atom_cache.get(variants)
        if ids is None:
            intern = self.vocab["variant"].intern
            ids = self.atom_cache[variants] = tuple(intern(a) for a in variant_atoms(variants))
        return ids

    def stack_ids(self, stacks: tuple[str, ...]) -> tuple[int, ...]:
        ids = self.stack_cache.get(stacks)
        if ids is None:
            intern = self.vocab["stack"].intern
            ids = self.stack_cache[stacks] = tuple(intern(s) for s in stacks)
        return ids


def build_corpus(documents: Iterable[ParsedDocument], report: LoadReport | None = None) -> Corpus:
    """Order documents by package and tag, then lay their specs out column by column."""
    report = report if report is not None else LoadReport()
    docs = list(documents)
    tag_order = {tag: i for i, tag in enumerate(sort_tags({d.tag for d in docs}))}
    docs.sort(key=lambda d: (d.package, tag_order[d.tag], d.path))
    _warn_duplicate_documents(docs, report)

    cols = _Columns()
    packages: list[str] = []
    package_ranges: list[tuple[int, int]] = []
    documents_out: list[Document] = []
    hashes: list[str] = []
    raw_variants: list[tuple[str, ...]] = []
    package_of, document_of, sizes = array("i"), array("i"), array("q")
    for doc in docs:
        if not packages or packages[-1] != doc.package:
            packages.append(doc.package)
            package_ranges.append((len(hashes), len(hashes)))
        start = len(hashes)
        _add_specs(cols, doc, hashes, raw_variants, sizes)
        n = len(hashes) - start
        package_of.extend([len(packages) - 1] * n)
        document_of.extend([len(documents_out)] * n)
        documents_out.append(Document(doc.path, doc.package, doc.tag, doc.title, doc.generation, start, len(hashes)))
        package_ranges[-1] = (package_ranges[-1][0], len(hashes))

    return Corpus(
        packages=packages,
        package_ranges=package_ranges,
        documents=documents_out,
        tags=sorted(tag_order, key=tag_order.__getitem__),
        hashes=hashes,
        raw_variants=raw_variants,
        vocab=cols.vocab,
        single={f: np.frombuffer(cols.single[f], dtype=np.int32).copy() for f in SINGLE_FACETS},
        multi={f: _multi_column(cols, f) for f in MULTI_FACETS},
        package_of=np.frombuffer(package_of, dtype=np.int32).copy(),
        document_of=np.frombuffer(document_of, dtype=np.int32).copy(),
        size=np.frombuffer(sizes, dtype=np.int64).copy(),
        report=report,
    )


def _add_specs(
    cols: _Columns,
    doc: ParsedDocument,
    hashes: list[str],
    raw_variants: list[tuple[str, ...]],
    sizes: array,
) -> None:
    vocab, single = cols.vocab, cols.single
    tag_id = vocab["tag"].intern(doc.tag)
    for spec in doc.specs:
        hashes.append(spec.hash)
        raw_variants.append(spec.variants)
        sizes.append(spec.size)
        single["tag"].append(tag_id)
        single["version"].append(vocab["version"].intern(spec.version))
        single["compiler"].append(vocab["compiler"].intern(spec.compiler))
        single["compiler_name"].append(vocab["compiler_name"].intern(compiler_name(spec.compiler)))
        single["platform"].append(vocab["platform"].intern(spec.platform))
        single["os"].append(vocab["os"].intern(spec.os))
        single["target"].append(vocab["target"].intern(spec.target))
        cols.add_multi("variant", cols.variant_ids(spec.variants))
        cols.add_multi("stack", cols.stack_ids(spec.stacks))


def _multi_column(cols: _Columns, facet: str) -> MultiColumn:
    offsets = np.frombuffer(cols.multi_offsets[facet], dtype=np.int64).copy()
    flat = np.frombuffer(cols.multi_flat[facet], dtype=np.int32).copy()
    owner = np.repeat(np.arange(len(offsets) - 1, dtype=np.int32), np.diff(offsets))
    return MultiColumn(offsets=offsets, flat=flat, owner=owner)


def _warn_duplicate_documents(docs: list[ParsedDocument], report: LoadReport) -> None:
    first: dict[tuple[str, str], str] = {}
    for doc in docs:
        key = (doc.package, doc.tag)
        if key in first:
            reason = f"{doc.package} in tag {doc.tag} also comes from {first[key]}"
            report.add(Problem(doc.path, reason, Severity.WARNING))
        else:
            first[key] = doc.path
