"""Rows of a whole answer that are alike in full, found with numpy over every row rather than a sample.

A layout is planned on a sample of rows; two rows the sample missed may still be alike in every
column shown — variants and all — and differ only in a column with no room (a target, an os).
Each row gets a number per column, equal where the cells are equal (a multi-valued column such as
the stacks or the variants by a sum of random numbers, one per value), so such rows are found in
one pass and the differs cell can say what tells them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from cachetui.core.model.corpus import RAW_VARIANTS, Corpus
from cachetui.core.model.fields import DERIVED, MULTI, REGISTRY, SINGLE
from cachetui.present.spec_table.separate import separating
from cachetui.present.spec_table.table_cells import SpecRows

WHOLE_ROWS = 50_000  # above, every n-th row: the numbers cost what this many rows cost
DEPENDENCY_ROWS = 2_000  # rows alike but for their dependencies whose dependencies are read, to name them
# The variants column, and the differs cell made of them, are told apart by the variants as documents wrote them
# (the variant facet holds their atoms, which two different lists can share).
AS_WRITTEN = {"variants": RAW_VARIANTS, "differs": RAW_VARIANTS}

Keys = dict[str, np.ndarray]


def keyed(rows: SpecRows) -> np.ndarray:
    """The rows `row_keys` numbers: up to WHOLE_ROWS of the answer, spread over it."""
    step = max(1, len(rows.indices) // WHOLE_ROWS)
    return np.asarray(rows.indices[::step], dtype=np.int64)


def row_keys(rows: SpecRows) -> Keys:
    """Per column, a number per row (of `keyed` rows), equal where the cells are equal; with `dependencies`
    (equal where the direct dependencies are the same binaries) when the sources record them."""
    corpus = rows.corpus
    shown = keyed(rows)
    keys: Keys = {"package": corpus.package_of[shown], "size": corpus.size[shown]}
    keys |= {facet: corpus.single[facet][shown] for facet in REGISTRY.shown(SINGLE, DERIVED)}
    for key, facet in _summed().items():
        keys[key] = corpus.memoised(("value-sums", facet), partial(_value_sums, corpus, facet))[shown]
    if corpus.has_dependencies:
        keys["dependencies"] = corpus.memoised("dependency-sums", partial(_dependency_sums, corpus))[shown]
    return keys


def varying_dependencies(corpus: Corpus, specs: np.ndarray, keys: Keys) -> tuple[str, ...]:
    """The names of the direct dependencies that tell apart rows alike in every other column (`specs`: the rows
    of `keys`), in name order: a dependency another row of their kind lacks, or has as another binary."""
    if "dependencies" not in keys:
        return ()
    group = _groups(keys, [key for key in keys if key != "dependencies"])
    alike = np.flatnonzero(np.bincount(group)[group] > 1)[:DEPENDENCY_ROWS]
    groups: dict[int, list[dict[str, str]]] = {}
    for position in alike.tolist():
        edges = {edge.name: edge.hash for edge in corpus.dependencies(int(specs[position]))}
        groups.setdefault(int(group[position]), []).append(edges)
    found: set[str] = set()
    for members in groups.values():
        for name in set().union(*members) - found:
            if len({edges.get(name, "") for edges in members}) > 1:
                found.add(name)
    return tuple(sorted(found))


def still_alike(keys: Keys, shown: Sequence[str], candidates: Sequence[str]) -> list[str]:
    """Of `candidates` (columns with no room), the fewest that tell apart rows alike in full in every `shown` one."""
    group = _groups(keys, [key for key in shown if key in keys])
    alike = np.bincount(group)[group] > 1
    candidates = [key for key in candidates if key in keys]
    if not alike.any() or not candidates:
        return []
    features = np.stack([_dense(keys[key][alike]) + 1 for key in candidates], axis=1)
    chosen, _ = separating(group[alike], features)
    return [candidates[j] for j in chosen]


def _summed() -> dict[str, str]:
    """Column key -> the multi-valued list whose values number its rows: a multi facet's column its own values."""
    return {REGISTRY.named[name].key: name for name in REGISTRY.shown(MULTI)} | AS_WRITTEN


def _value_sums(corpus: Corpus, facet: str) -> np.ndarray:
    """Per spec, the sum of a random number per value of a multi-valued column: it names the spec's set of values."""
    column = corpus.multi[facet]
    weights = np.random.default_rng(0).integers(1, 2**62, size=len(corpus.vocab[facet]), dtype=np.int64)
    return _row_sums(weights, column.flat, column.offsets)


def _dependency_sums(corpus: Corpus) -> np.ndarray:
    """Per spec, the sum of a random number per dependency binary: it names the spec's set of direct dependencies."""
    weights = np.random.default_rng(1).integers(1, 2**62, size=len(corpus.vocab["dep_hash"]), dtype=np.int64)
    return _row_sums(weights, corpus.deps.hash, corpus.deps.offsets)


def _row_sums(weights: np.ndarray, flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each CSR row's sum of its entries' weights (wrapping: equal sets, equal sums). Only the rows' sums are
    kept: the prefix sums over every entry were 34 MB at site scale, in every process that showed a table."""
    sums = np.zeros(len(flat) + 1, dtype=np.uint64)
    np.cumsum(weights.view(np.uint64)[flat], dtype=np.uint64, out=sums[1:])
    return sums[offsets[1:]] - sums[offsets[:-1]]


def _dense(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _groups(keys: Keys, columns: Sequence[str]) -> np.ndarray:
    """One number per row, equal for rows equal in every one of `columns`."""
    rows = len(next(iter(keys.values())))
    group = np.zeros(rows, dtype=np.int64)
    for key in columns:
        dense = _dense(keys[key])
        group = _dense(group * (int(dense.max(initial=0)) + 1) + dense)
    return group
