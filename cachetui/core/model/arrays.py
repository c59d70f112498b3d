"""numpy helpers for the column builders: no Python loop over specs or edges."""

from __future__ import annotations

from array import array

import numpy as np


def as_numpy(values: array, dtype: type) -> np.ndarray:
    """An array.array as a numpy array of `dtype` (empty when it is)."""
    return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)


def expand_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate range(start, start + length) for each pair, without a Python loop.

    One array of the output's size, summed in place: steps of 1 within a range and a jump where
    the next begins. A load expands ~5 million entries at a time, and every temporary of that
    size is fresh memory the kernel must fault in (it showed as a third of finishing the model).
    """
    if not lengths.all():
        kept = lengths > 0
        starts, lengths = starts[kept], lengths[kept]
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = starts.astype(np.int64, copy=False)
    steps = np.ones(total, dtype=np.int64)
    steps[0] = starts[0]
    steps[np.cumsum(lengths[:-1])] = starts[1:] - starts[:-1] - lengths[:-1] + 1
    return np.cumsum(steps, out=steps)
