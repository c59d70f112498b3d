"""Sort spec indices by a table column; versions sort the Spack way."""

from __future__ import annotations

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import (
    BY_COUNT,
    BY_HASH,
    BY_PACKAGE,
    BY_PUSHED,
    BY_SIZE,
    BY_VALUES,
    BY_VARIANTS,
    REGISTRY,
    RegistryView,
)
from cachetui.core.model.records import UNKNOWN_PUSHED
from cachetui.core.query.query import sort_values
from cachetui.core.query.sort_ranks import by_hash, by_variants, hash_ranks, variant_ranks

SORT_COLUMNS = RegistryView(lambda: tuple(dict(REGISTRY.sorts())))  # the table's sortable columns (not "change")


def _ranks(corpus: Corpus, facet: str) -> np.ndarray:
    """rank[value_id] = position of that value in ascending reading order (memoised)."""
    return corpus.memoised(("rank", facet), lambda: _compute_ranks(corpus, facet))


def version_ranks(corpus: Corpus) -> np.ndarray:
    """rank[version id]: ascending as Spack orders versions."""
    return _ranks(corpus, "version")


def _compute_ranks(corpus: Corpus, facet: str) -> np.ndarray:
    values = corpus.vocab[facet].values
    ordered = sort_values(facet, list(values))
    if facet in REGISTRY.facets_marked("dated"):
        ordered.reverse()  # sort_values gives releases newest first; ranks ascend oldest -> newest
    position = {v: i for i, v in enumerate(ordered)}
    return np.fromiter((position[v] for v in values), dtype=np.int64, count=len(values))


def sort_key(corpus: Corpus, indices: np.ndarray, column: str) -> np.ndarray:
    """One sortable number per spec in `indices` (hashes and variants: their rank, see sort_ranks)."""
    field = REGISTRY.keyed[column]
    by, name = field.sort, field.name
    if by == BY_VALUES:
        return _ranks(corpus, name)[corpus.single[name][indices]]
    if by == BY_SIZE:
        return corpus.size[indices]
    if by == BY_PUSHED:
        return _pushed_key(corpus, indices)
    if by == BY_PACKAGE:
        return corpus.package_of[indices]
    if by == BY_HASH:
        return hash_ranks(corpus).rank[indices]
    if by == BY_VARIANTS:  # alike configurations side by side (what differs is in the text)
        return variant_ranks(corpus).rank[indices]
    if by == BY_COUNT:
        col = corpus.multi[name]
        return (col.offsets[indices + 1] - col.offsets[indices]).astype(np.int64)
    raise ValueError(f"no way to sort by {by!r}")


def _pushed_key(corpus: Corpus, indices: np.ndarray) -> np.ndarray:
    """Seconds since the epoch, NaN where unknown: numpy sorts NaN last, and -NaN too, so a binary whose storage
    does not say when it was pushed comes after every known one, oldest or newest first."""
    if not len(corpus.pushed):
        return np.full(len(indices), np.nan)
    when = corpus.pushed[indices].astype(np.float64)  # exact: seconds stay far below 2**53
    when[corpus.pushed[indices] == UNKNOWN_PUSHED] = np.nan
    return when


def sort_specs(corpus: Corpus, indices: np.ndarray, column: str, *, descending: bool = False) -> np.ndarray:
    """`indices` reordered by `column`; ties keep corpus order (stable)."""
    if column not in SORT_COLUMNS:
        raise ValueError(f"cannot sort by {column!r}")
    by = REGISTRY.keyed[column].sort
    if by == BY_HASH:  # strings: ranked once per corpus (the first sort of many ranks them all), see sort_ranks
        return by_hash(corpus, indices, descending=descending)
    if by == BY_VARIANTS:
        return by_variants(corpus, indices, descending=descending)
    keys = sort_key(corpus, indices, column)
    # Descending reverses the key order but keeps ties in corpus order.
    order = np.argsort(-keys if descending else keys, kind="stable")
    return indices[order]
