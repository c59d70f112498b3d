"""Faceted queries: OR within a facet, AND across facets, counts that ignore their own facet."""

from __future__ import annotations

import numpy as np

from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query, facet_counts, match
from cachetui.core.query.sorting import sort_specs
from cachetui.core.spack.versions import version_key
from tests.conftest import WriteDoc, listing, spec_entry


def _corpus(write_doc: WriteDoc) -> Corpus:
    specs = [
        spec_entry("a" * 32, compiler="gcc@13.2.0", target="aarch64", variants=["+mpi", "cuda_arch=80,90"]),
        spec_entry("b" * 32, compiler="gcc@=13.2.0", target="x86_64_v3", variants=["~mpi"]),
        spec_entry("c" * 32, compiler="clang@17", target="aarch64", variants=["+mpi", "cuda_arch=90"]),
        spec_entry("d" * 32, compiler="gcc@11.4.0", target="zen4", versions=["0.10"], size=2048, variants=["+shared"]),
    ]
    write_doc("_cache/develop/hdf5/specs.md", listing("hdf5", "develop", specs))
    write_doc("_cache/v0.22.0/hdf5/specs.md", listing("hdf5", "v0.22.0", specs[:1]))
    write_doc("_cache/develop/zlib/specs.md", listing("zlib", "develop", [spec_entry("e" * 32)]))
    result = load_paths([write_doc("x", "").parent])
    return build_corpus(result.documents, result.report)


def _hashes(corpus: Corpus, query: Query) -> set[str]:
    return {corpus.hashes[i][0] for i in match(corpus, query)}


def test_or_within_a_facet_and_across_facets(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    assert _hashes(corpus, Query("hdf5", {"target": frozenset({"aarch64", "zen4"})})) == {"a", "c", "d"}
    both = {"target": frozenset({"aarch64"}), "compiler": frozenset({"gcc@13.2.0"})}
    assert _hashes(corpus, Query("hdf5", both)) == {"a"}


def test_multi_valued_variant_atoms_match_single_values(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    assert _hashes(corpus, Query("hdf5", {"variant": frozenset({"cuda_arch=90"})})) == {"a", "c"}
    assert _hashes(corpus, Query("hdf5", {"variant": frozenset({"cuda_arch=80"})})) == {"a"}


def test_facet_counts_ignore_their_own_filter_but_respect_the_others(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    query = Query("hdf5", {"target": frozenset({"aarch64"}), "tag": frozenset({"develop"})})
    assert facet_counts(corpus, query, "target") == {"aarch64": 2, "x86_64_v3": 1, "zen4": 1}
    assert facet_counts(corpus, query, "compiler") == {"gcc@13.2.0": 1, "llvm@17": 1}  # clang as Spack 1.x names it
    assert facet_counts(corpus, query, "tag") == {"develop": 2, "v0.22.0": 1}


def test_a_chosen_value_with_no_matches_stays_listed(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    query = Query("zlib", {"target": frozenset({"zen4"})})
    assert facet_counts(corpus, query, "target")["zen4"] == 0
    assert len(match(corpus, query)) == 0


def test_all_packages_scope_and_hash_occurrences(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    assert len(match(corpus, Query())) == 6
    assert corpus.tags_of_hash("a" * 32) == ["develop", "v0.22.0"]
    assert corpus.unique_hashes == 5


def test_sorting_by_version_uses_spack_order_and_size_is_numeric(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    everything = match(corpus, Query())
    by_version = sort_specs(corpus, everything, "version", descending=True)
    versions = [corpus.spec(int(i)).version for i in by_version]
    assert versions == sorted(versions, key=version_key, reverse=True)
    assert versions[-1] == "0.10"
    by_size = sort_specs(corpus, everything, "size", descending=True)
    assert corpus.spec(int(by_size[0])).size == 2048


def test_empty_corpus_is_usable() -> None:
    corpus = build_corpus([])
    assert corpus.n_specs == 0 and list(match(corpus, Query())) == []
    assert facet_counts(corpus, Query(), "variant") == {}
    assert isinstance(sort_specs(corpus, np.array([], dtype=np.int64), "hash"), np.ndarray)
