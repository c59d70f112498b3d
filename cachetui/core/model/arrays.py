"""numpy helpers for the column builders: no Python loop over specs or edges.

A multi-valued column is CSR: row i owns flat[offsets[i]:offsets[i+1]]. The formulas for
offsets, each entry's owner and a reordering of rows live here, once.
"""

from __future__ import annotations

from array import array
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

T = TypeVar("T")

IndexArray = npt.NDArray[np.int64]  # offsets and positions
IdArray = npt.NDArray[np.int32]  # ids into a vocabulary, or spec numbers
BitsArray = npt.NDArray[np.uint8]  # deptype bits
BoolArray = npt.NDArray[np.bool_]  # a mask


def as_numpy(values: array, dtype: type) -> np.ndarray:
    """An array.array as a numpy array of `dtype` (empty when it is)."""
    return np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)


def gathered(values: list[T], index: npt.NDArray[Any]) -> list[T]:
    """`[values[i] for i in index]`, gathered by numpy rather than a Python step per item (strings, tuples: any
    objects)."""
    found: list[T] = np.fromiter(values, dtype=object, count=len(values))[index].tolist()
    return found


def joined(chunks: list[np.ndarray], dtype: type) -> np.ndarray:
    """The chunks end to end as one array of `dtype` (empty when there are none)."""
    return np.concatenate(chunks).astype(dtype, copy=False) if chunks else np.zeros(0, dtype=dtype)


def offsets_of(lengths: npt.ArrayLike) -> IndexArray:
    """CSR offsets of rows of these lengths: 0, then each row's end."""
    return np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)


def owners(lengths: npt.NDArray[Any], dtype: type = np.int32) -> np.ndarray:
    """The row each entry belongs to, for rows of these lengths."""
    return np.repeat(np.arange(len(lengths), dtype=dtype), lengths)


def expand_ranges(starts: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> IndexArray:
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


def permuted(offsets: IndexArray, order: npt.NDArray[Any]) -> tuple[IndexArray, IndexArray]:
    """Rows reordered so that row order[k] becomes row k: the new offsets, and the flat positions to take."""
    lengths = np.diff(offsets)[order]
    return offsets_of(lengths), expand_ranges(offsets[:-1][order], lengths)
