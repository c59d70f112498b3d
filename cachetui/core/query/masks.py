"""The mask of one facet filter over a scope: the building block of every query."""

from __future__ import annotations

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import REGISTRY


def facet_mask(corpus: Corpus, scope: slice, facet: str, values: frozenset[str]) -> np.ndarray:
    """Boolean mask over the scope: specs having any of `values` in `facet`."""
    vocab = corpus.vocab[facet].ids
    ids = np.fromiter((vocab[v] for v in values if v in vocab), dtype=np.int32)
    n = scope.stop - scope.start
    if facet in REGISTRY.multi():
        col = corpus.multi[facet]
        lo, hi = col.offsets[scope.start], col.offsets[scope.stop]
        hit = np.isin(col.flat[lo:hi], ids)
        mask = np.zeros(n, dtype=bool)
        mask[col.owner[lo:hi][hit] - scope.start] = True
        return mask
    return np.isin(corpus.single[facet][scope], ids)
