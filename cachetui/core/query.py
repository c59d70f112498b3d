"""Faceted queries over a Corpus: OR within a facet, AND across facets.

Every operation works on the scope's contiguous slice (one package, or all specs),
so a package query costs what that package holds, not what the site holds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from cachetui.core.model import FACETS, MULTI_FACETS, Corpus
from cachetui.core.tags import sort_tags
from cachetui.core.versions import version_key

Filters = Mapping[str, frozenset[str]]


@dataclass(frozen=True, slots=True)
class Query:
    """What a user asked for: a package (None = all) and facet filters."""

    package: str | None = None
    filters: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def active(self) -> dict[str, frozenset[str]]:
        return {facet: values for facet, values in self.filters.items() if values}

    def toggled(self, facet: str, value: str) -> Query:
        values = set(self.filters.get(facet, frozenset()))
        values.symmetric_difference_update({value})
        return self.with_facet(facet, frozenset(values))

    def with_facet(self, facet: str, values: frozenset[str]) -> Query:
        filters = dict(self.filters)
        filters[facet] = values
        return Query(self.package, {f: v for f, v in filters.items() if v})

    def cleared(self) -> Query:
        return Query(self.package, {})


def facet_mask(corpus: Corpus, scope: slice, facet: str, values: frozenset[str]) -> np.ndarray:
    """Boolean mask over the scope: specs having any of `values` in `facet`."""
    vocab = corpus.vocab[facet].ids
    ids = np.fromiter((vocab[v] for v in values if v in vocab), dtype=np.int32)
    n = scope.stop - scope.start
    if facet in MULTI_FACETS:
        col = corpus.multi[facet]
        lo, hi = col.offsets[scope.start], col.offsets[scope.stop]
        hit = np.isin(col.flat[lo:hi], ids)
        mask = np.zeros(n, dtype=bool)
        mask[col.owner[lo:hi][hit] - scope.start] = True
        return mask
    return np.isin(corpus.single[facet][scope], ids)


def _masks(corpus: Corpus, scope: slice, active: Filters) -> dict[str, np.ndarray]:
    """One mask per active facet, computed once and combined as needed."""
    return {facet: facet_mask(corpus, scope, facet, values) for facet, values in active.items()}


def _all_but(masks: dict[str, np.ndarray], size: int, skip: str | None = None) -> np.ndarray:
    mask = np.ones(size, dtype=bool)
    for facet, facet_mask_ in masks.items():
        if facet != skip:
            mask &= facet_mask_
    return mask


def match(corpus: Corpus, query: Query) -> np.ndarray:
    """Indices of the matching specs, in corpus order."""
    scope = corpus.package_slice(query.package)
    mask = _all_but(_masks(corpus, scope, query.active()), scope.stop - scope.start)
    return np.flatnonzero(mask) + scope.start


def facet_counts(corpus: Corpus, query: Query, facet: str) -> dict[str, int]:
    """Count per value of `facet` under every *other* active filter (so OR choices stay visible)."""
    return all_facet_counts(corpus, query, (facet,))[facet]


def all_facet_counts(
    corpus: Corpus, query: Query, facets: tuple[str, ...] = FACETS
) -> dict[str, dict[str, int]]:
    """Counts for several facets, each under every other active filter; masks are built once."""
    scope = corpus.package_slice(query.package)
    active = query.active()
    masks = _masks(corpus, scope, active)
    size = scope.stop - scope.start
    return {f: _counts(corpus, scope, f, _all_but(masks, size, skip=f), active) for f in facets}


def _counts(corpus: Corpus, scope: slice, facet: str, mask: np.ndarray, active: Filters) -> dict[str, int]:
    size = len(corpus.vocab[facet])
    if facet in MULTI_FACETS:
        col = corpus.multi[facet]
        lo, hi = col.offsets[scope.start], col.offsets[scope.stop]
        entries = col.flat[lo:hi][mask[col.owner[lo:hi] - scope.start]]
        counts = np.bincount(entries, minlength=size)
    else:
        counts = np.bincount(corpus.single[facet][scope][mask], minlength=size)
    values = corpus.vocab[facet].values
    found = {values[i]: int(counts[i]) for i in np.flatnonzero(counts)}
    for selected in active.get(facet, ()):
        found.setdefault(selected, 0)  # keep a chosen value visible, so it can be removed
    return found


def package_counts(corpus: Corpus, tags: frozenset[str] = frozenset()) -> dict[str, int]:
    """Specs per package, within the chosen tags (all tags when empty)."""
    everything = slice(0, corpus.n_specs)
    owners = corpus.package_of
    if tags:
        owners = owners[facet_mask(corpus, everything, "tag", tags)]
    counts = np.bincount(owners, minlength=len(corpus.packages))
    return {name: int(counts[i]) for i, name in enumerate(corpus.packages)}


def sort_values(facet: str, values: list[str]) -> list[str]:
    """Facet values in reading order: versions newest first, tags in site order, others A-Z."""
    if facet == "version":
        return sorted(values, key=version_key, reverse=True)
    if facet == "tag":
        return sort_tags(values)
    return sorted(values, key=lambda v: (v.lower(), v))
