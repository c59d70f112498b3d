"""A corpus as of the moment of its load: the facets declared to be worked out at each load, worked out again.

A module of its own: the registry (`fields`) names the columns `freshness` works out, so what walks the
registry to work them out cannot live in `freshness` without an import circle.
"""

from __future__ import annotations

import time

import numpy as np

from cachetui.core.model.corpus import Corpus, Vocabulary
from cachetui.core.model.fields import REGISTRY


def clock() -> int:
    """Now, in seconds since the epoch: a load's moment (a test replaces it to load "later")."""
    return int(time.time())


def at_load(corpus: Corpus, now: int | None = None) -> Corpus:
    """The corpus as of its load at `now` (else the clock): `loaded_at` set, and every facet declared to be worked
    out at each load (`Facet.each_load`) worked out again. A column that comes out the same is kept: a cold load's
    is the very array its cache file holds, and a warm one's is mapped, never copied for nothing."""
    corpus.loaded_at = clock() if now is None else now
    derivations = dict(REGISTRY.derived())
    for facet in REGISTRY.facets_marked("each_load"):
        derivation = derivations[facet]
        vocabulary = corpus.vocab.get(facet)
        if vocabulary is None or list(vocabulary.values[: len(derivation.values)]) != list(derivation.values):
            vocabulary = corpus.vocab[facet] = Vocabulary()  # a facet declared after the cache file was written
            for value in derivation.values:
                vocabulary.intern(value)
        column = derivation.column(corpus)
        held = corpus.single.get(facet)
        if held is None or not np.array_equal(held, column):
            corpus.single[facet] = column
            corpus.forget_facet(facet)  # what was worked out over the column it replaces
    return corpus
