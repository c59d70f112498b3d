"""A field declared only by tests: registered in the registry, it must show everywhere a spec field shows.

`hash_start` says whether a binary's hash starts with a digit or a letter: worked out over the whole
load, a facet, a `query` option, a JSON/CSV field and a table column, and a configuration field (two
builds alike but for it are two configurations, so `diff` counts them apart). Test modules import its
fixtures: `registered` holds it in the registry for one test, `corpus` is the sample built meanwhile.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import DERIVED, REGISTRY, Column, Derivation, Facet, Field, Option, Output

DIGIT, LETTER = "digit", "letter"  # Spack writes hashes in base32: a-z, 2-7


def hash_start(corpus: Corpus) -> np.ndarray:
    """Per spec, 0 when its hash starts with a digit, else 1 (ids into DIGIT, LETTER)."""
    return np.fromiter((h[0].isalpha() for h in corpus.hashes), dtype=np.int32, count=corpus.n_specs)


def start_of(hash_: str) -> str:
    return LETTER if hash_[0].isalpha() else DIGIT


THROWAWAY = Field(
    "hash_start",
    Facet(DERIVED, "Hash starts with", 20, derive=Derivation((DIGIT, LETTER), hash_start)),
    Option("digit or letter: how the hash starts", 20),
    Output("hash_start", 20),
    Column("hash_start", "hash starts", 11, 6, 11),
    configuration=True,
)


@pytest.fixture
def registered() -> Iterator[Field]:
    REGISTRY.register(THROWAWAY)
    try:
        yield THROWAWAY
    finally:
        REGISTRY.unregister(THROWAWAY.name)


@pytest.fixture
def corpus(registered: Field) -> Corpus:
    """The sample, built while the throwaway field is registered."""
    result = load_paths([sample_path()])
    return build_corpus(result.documents, result.report)
