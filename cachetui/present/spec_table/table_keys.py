"""Each column of the spec table as a number per spec: equal where the cells are equal, found with numpy.

A single-valued column is its facet's value numbers; a multi-valued one (the stacks, the variants as
documents wrote them) a sum of random numbers, one per value, so equal sets of values sum alike. Which
rows read alike is then worked out over numbers, not over text (`distinguish`).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from cachetui.core.model.corpus import RAW_VARIANTS, Corpus
from cachetui.core.model.fields import MULTI, REGISTRY

# The variants column, and the differs cell made of them, are told apart by the variants as documents wrote them
# (the variant facet holds their atoms, which two different lists can share).
AS_WRITTEN = {"variants": RAW_VARIANTS, "differs": RAW_VARIANTS}


def column_numbers(corpus: Corpus, key: str) -> np.ndarray | None:
    """Per spec of the corpus, a number equal where the column's cells are equal; None for a column with none."""
    if key == "package":
        return corpus.package_of
    if key == "size":
        return corpus.size
    if key in corpus.single:
        return corpus.single[key]
    facet = _summed().get(key)
    return None if facet is None else corpus.memoised(("value-sums", facet), partial(_value_sums, corpus, facet))


def _summed() -> dict[str, str]:
    """Column key -> the multi-valued list whose values number its rows: a multi facet's column its own values."""
    return {REGISTRY.named[name].key: name for name in REGISTRY.shown(MULTI)} | AS_WRITTEN


def _value_sums(corpus: Corpus, facet: str) -> np.ndarray:
    """Per spec, the sum of a random number per value of a multi-valued column: it names the spec's set of values."""
    column = corpus.multi[facet]
    weights = np.random.default_rng(0).integers(1, 2**62, size=len(corpus.vocab[facet]), dtype=np.int64)
    return _row_sums(weights, column.flat, column.offsets)


def _row_sums(weights: np.ndarray, flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each CSR row's sum of its entries' weights (wrapping: equal sets, equal sums). Only the rows' sums are
    kept: the prefix sums over every entry were 34 MB at site scale, in every process that showed a table."""
    sums = np.zeros(len(flat) + 1, dtype=np.uint64)
    np.cumsum(weights.view(np.uint64)[flat], dtype=np.uint64, out=sums[1:])
    return sums[offsets[1:]] - sums[offsets[:-1]]
