"""Sorting by ranks worked out once per corpus gives the order the straightforward sort gave, ties in corpus order.

The reference below is the sort as it was: hashes and variants compared as Python strings (a spec's raw variants
joined by spaces), descending by the strings' ranks reversed, every sort stable.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import RAW_VARIANTS, Corpus
from cachetui.core.model.fields import BY_HASH, BY_VARIANTS, REGISTRY
from cachetui.core.model.tables import StringTable
from cachetui.core.query.sort_ranks import HASH_RANKS, VARIANT_RANKS, _rank_hashes, hash_ranks, variant_ranks
from cachetui.core.query.sorting import SORT_COLUMNS, sort_key, sort_specs
from tests.conftest import WriteDoc, listing, spec_entry

ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
# Strings that are prefixes of others, `:=` spellings, and more than eight to a spec (several words a row).
VARIANTS = ["+a", "+ab", "~a", "+mpi", "~mpi", "cuda_arch=8", "cuda_arch=80", "cuda_arch=80,90", "cuda_arch:=80",
            "api=default", "build_system=cmake", "patches=0a1b2c3", "+shared", "~shared", "+x11", "~x11", "+z", "~z"]


def _reference(corpus: Corpus, indices: np.ndarray, column: str, descending: bool) -> np.ndarray:
    by = REGISTRY.keyed[column].sort
    if by == BY_HASH:
        keys = np.array([corpus.hashes[i] for i in indices], dtype=object)
    elif by == BY_VARIANTS:
        keys = np.array([" ".join(corpus.raw_variants(int(i))) for i in indices], dtype=object)
    else:
        keys = sort_key(corpus, indices, column)
    if descending:
        if keys.dtype == object:
            uniq = {v: i for i, v in enumerate(sorted(set(keys), reverse=True))}
            keys = np.fromiter((uniq[v] for v in keys), dtype=np.int64, count=len(keys))
        else:
            keys = -keys
    return indices[np.argsort(keys, kind="stable")]


def _write_varied(write_doc: WriteDoc, seed: int = 0) -> None:
    rng = random.Random(seed)
    shared = ["a" * 8 + "".join(rng.choice(ALPHABET) for _ in range(24)) for _ in range(6)]  # one first word
    pool = shared + ["".join(rng.choice(ALPHABET) for _ in range(32)) for _ in range(60)]
    combos = [rng.sample(VARIANTS, rng.randint(0, 12)) for _ in range(8)]
    for package in ("hdf5", "zlib", "py-numpy"):
        for tag in ("develop", "v0.22.0", "v0.21.0"):
            specs = []
            for _ in range(rng.randint(20, 40)):
                if rng.random() < 0.5:
                    variants = rng.choice(combos)
                else:
                    variants = [rng.choice(VARIANTS) for _ in range(rng.randint(0, 17))]
                specs.append(spec_entry(rng.choice(pool), variants=variants, size=rng.choice(["-", 1024, 2048]),
                                        versions=[rng.choice(["1.2.3", "1.10", "0.9"])]))
            write_doc(f"in/_cache/{tag}/{package}/specs.md", listing(package, tag, specs))


@pytest.fixture
def built(write_doc: WriteDoc) -> Corpus:
    _write_varied(write_doc)
    result = load_paths([write_doc("in/x", "").parent])
    return build_corpus(result.documents, result.report)


@pytest.fixture
def warm(write_doc: WriteDoc) -> Corpus:
    _write_varied(write_doc)
    root = write_doc("in/x", "").parent
    load_corpus([root], cache=CorpusCache())
    corpus = load_corpus([root], cache=CorpusCache())
    assert corpus.cache_status == "hit" and isinstance(corpus.hashes, StringTable)
    return corpus


def _selections(corpus: Corpus) -> dict[str, np.ndarray]:
    n = corpus.n_specs
    rng = np.random.default_rng(1)
    return {"all": np.arange(n, dtype=np.int64),
            "most": np.sort(rng.choice(n, n // 2, replace=False)).astype(np.int64),  # picked from the corpus order
            "few": np.sort(rng.choice(n, 5, replace=False)).astype(np.int64),  # their ranks sorted
            "shuffled": rng.permutation(n).astype(np.int64)[: n // 2],  # not in corpus order: ties as given
            "none": np.zeros(0, dtype=np.int64)}


def _same_order_as_before(corpus: Corpus) -> None:
    """Every column, both ways, over all, many, few, shuffled and no specs: with nothing ranked yet (a few are
    sorted as strings, more rank the corpus) and with the corpus ranked (a few then sort their ranks)."""
    assert corpus.n_specs > 200
    for name, indices in _selections(corpus).items():
        for column in SORT_COLUMNS:
            for descending in (False, True):
                want = _reference(corpus, indices, column, descending).tolist()
                corpus.memo.pop(HASH_RANKS, None)
                corpus.memo.pop(VARIANT_RANKS, None)
                assert sort_specs(corpus, indices, column, descending=descending).tolist() == want, (name, column)
                hash_ranks(corpus), variant_ranks(corpus)
                assert sort_specs(corpus, indices, column, descending=descending).tolist() == want, (name, column)


def test_every_column_sorts_as_before_when_built(built: Corpus) -> None:
    _same_order_as_before(built)


def test_every_column_sorts_as_before_when_warm(warm: Corpus) -> None:
    _same_order_as_before(warm)


def test_the_varied_corpus_has_ties_and_long_variant_lists(built: Corpus) -> None:
    """What the comparisons above lean on: repeated hashes and variant lists, hashes alike in their first 8
    characters, lists longer than eight strings, and specs with none."""
    hashes = list(built.hashes)
    assert len(set(hashes)) < len(hashes)
    assert len({h for h in hashes if h.startswith("a" * 8)}) > 1
    lists = [built.raw_variants(i) for i in range(built.n_specs)]
    assert len(set(lists)) < len(lists) and max(map(len, lists)) > 8 and () in lists


def test_a_variant_the_fast_ranks_cannot_order_is_sorted_as_strings(built: Corpus) -> None:
    """A space (or an empty string) in a raw variant: joined texts no longer compare as the lists do."""
    values = built.vocab[RAW_VARIANTS].values
    assert isinstance(values, list)
    values[values.index("+ab")] = "+a b"
    values[values.index("~z")] = ""
    _same_order_as_before(built)


@pytest.mark.parametrize("hashes", [
    ["b" * 32, "a" * 31, "a" * 33, "a" * 32, "b" * 32],  # widths differ
    ["é" * 32, "e" * 32, "z" * 32, "é" * 32],  # not ASCII
    ["abc", "abd", "abc", "ab" + "\x00", "a" * 3],  # a width not of whole words
    ["x" * 32],
    [],
])
def test_hashes_of_any_shape_rank_as_strings(hashes: list[str]) -> None:
    ranked = _rank_hashes(hashes)
    indices = np.arange(len(hashes), dtype=np.int64)
    keys = np.array(hashes, dtype=object)
    assert ranked.arrange(indices).tolist() == np.argsort(keys, kind="stable").tolist()
    down = {v: i for i, v in enumerate(sorted(set(hashes), reverse=True))}
    want = np.argsort(np.array([down[h] for h in hashes], dtype=np.int64), kind="stable")
    assert ranked.arrange(indices, descending=True).tolist() == want.tolist()
