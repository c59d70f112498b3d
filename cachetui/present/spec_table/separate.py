"""Which few properties tell rows apart: a greedy choice over numbered values, pure numpy.

A table row can show only so much. Given which rows already look alike (the columns on screen) and
candidate properties (variants, as numbers per row), `separating` picks the fewest that tell every
pair apart, in the order that tells most of them apart soonest, so a cell cut short still shows what
matters first.
"""

from __future__ import annotations

import numpy as np


def alike_pairs(keys: np.ndarray) -> np.ndarray:
    """Per column of `keys` (rows x columns), the pairs of rows holding equal values."""
    if keys.shape[0] < 2:
        return np.zeros(keys.shape[1], dtype=np.int64)
    ordered = np.sort(keys, axis=0)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    position = np.arange(ordered.shape[0], dtype=np.int64)[:, None]
    run_start = np.maximum.accumulate(np.where(starts, position, 0), axis=0)
    return (position - run_start).sum(axis=0)  # a run of n equal values adds 0 + 1 + ... + n-1 pairs


def evenness(values: np.ndarray) -> np.ndarray:
    """Per column, the chance that two rows drawn at random hold different values (1 - sum of squared shares)."""
    n = values.shape[0]
    if n < 2:
        return np.zeros(values.shape[1])
    return 1.0 - (2 * alike_pairs(values) + n) / (n * n)  # sum of squared counts = 2 * pairs + n


def separating(groups: np.ndarray, features: np.ndarray) -> tuple[list[int], np.ndarray]:
    """The features (columns of `features`) that tell apart the rows `groups` leaves alike, in order.

    `groups`: one number per row, equal for rows that look alike so far. `features`: one number per
    row and candidate, equal for rows whose values are equal. Callers order the candidates by how
    evenly they split the rows (then by name). The first pick is the most even one that tells some
    pair apart; each next one tells apart the most pairs still alike (ties: the earlier). It stops
    when no pair is alike or no candidate helps. Returns the picks and the refined groups.
    """
    current = np.unique(groups, return_inverse=True)[1].reshape(-1).astype(np.int64)
    alike = int(alike_pairs(current[:, None])[0])
    chosen: list[int] = []
    scale = np.int64(int(features.max(initial=0)) + 1)
    while alike and len(chosen) < features.shape[1]:
        split = alike_pairs(current[:, None] * scale + features)
        split[chosen] = alike
        helps = np.flatnonzero(split < alike)
        if not len(helps):
            break
        best = int(helps[0]) if not chosen else int(np.argmin(split))
        chosen.append(best)
        alike = int(split[best])
        current = np.unique(current * scale + features[:, best], return_inverse=True)[1].reshape(-1).astype(np.int64)
    return chosen, current
