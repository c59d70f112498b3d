"""How many pairs of rows read alike: what a layout of the spec table is judged by, pure numpy."""

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
