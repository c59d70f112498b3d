"""numpy helpers for the column builders: no Python loop over specs or edges."""

from __future__ import annotations

from array import array

import numpy as np


def as_numpy(values: array, dtype: type) -> np.ndarray:
    """An array.array as a numpy array of `dtype` (empty when it is)."""
    return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)


def expand_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate range(start, start + length) for each pair, without a Python loop."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    new_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.repeat(starts - new_starts, lengths) + np.arange(total, dtype=np.int64)
