"""Strings kept as one flat buffer and its offsets, read one at a time: a warm corpus maps them from a file.

Half a million spec hashes as Python strings cost ~40 MB in every process that holds them; as one
buffer mapped from the warm cache they cost nothing until read, and every process of the user that
maps the same file shares its pages. String i is data[offsets[i]:offsets[i+1]], UTF-8.
"""

from __future__ import annotations

import hashlib
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

import numpy as np

from cachetui.core.model.arrays import IndexArray

T = TypeVar("T")


class ReadOnDemand(Sequence[T]):
    """A sequence whose items are made when read: `_item(i)` makes one, `_items(start, stop)` a run."""

    __slots__ = ()

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _item(self, i: int) -> T: ...

    def _items(self, start: int, stop: int) -> list[T]:
        return [self._item(i) for i in range(start, stop)]

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self._item(i) for i in range(start, stop, step)]
            return self._items(start, stop) if stop > start else []
        i = int(index)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"{type(self).__name__} index out of range")
        return self._item(i)


class StringTable(ReadOnDemand[str]):
    """A read-only sequence of strings over a byte buffer and its offsets (checked in bounds by whoever made them)."""

    __slots__ = ("data", "offsets", "ascii")

    def __init__(self, data: np.ndarray, offsets: IndexArray, *, ascii: bool) -> None:
        self.data = data  # uint8
        self.offsets = offsets  # len + 1, from 0 to len(data), never decreasing
        self.ascii = ascii  # every string ASCII: a byte offset is a character offset, so one decode serves all

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def _item(self, i: int) -> str:
        return _decode(self.data[int(self.offsets[i]) : int(self.offsets[i + 1])].tobytes())

    def _items(self, start: int, stop: int) -> list[str]:
        return self._decoded(start, stop)

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded(0, len(self)))

    def tolist(self) -> list[str]:
        return self._decoded(0, len(self))

    def __eq__(self, other: object) -> bool:
        """Equal to a list or table of the same strings, as the list a built corpus holds would be."""
        if isinstance(other, StringTable | list | tuple):
            return len(self) == len(other) and self.tolist() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def _decoded(self, start: int, stop: int) -> list[str]:
        """Strings start..stop: one decode of their bytes, then slices (per string only when not ASCII)."""
        bounds = self.offsets[start : stop + 1]
        base = int(bounds[0])
        chunk = self.data[base : int(bounds[-1])].tobytes()
        cuts = (bounds - base).tolist()
        if self.ascii:
            # A byte that is not ASCII (a damaged file) decodes to one replacement character: offsets still hold.
            text = chunk.decode("ascii", "replace")
            return [text[a:b] for a, b in zip(cuts, cuts[1:])]
        return [_decode(chunk[a:b]) for a, b in zip(cuts, cuts[1:])]


def strings_at(strings: Sequence[str], indices: np.ndarray) -> list[str]:
    """`[strings[i] for i in indices]` (indices in range, any order): from a table, their bytes gathered in one
    pass and decoded once, not each string read on its own (a tag's 10,000 hashes, for a comparison)."""
    if not isinstance(strings, StringTable):
        return [strings[i] for i in indices.tolist()]
    indices = np.asarray(indices, dtype=np.int64)
    starts = strings.offsets[indices]
    lengths = strings.offsets[indices + 1] - starts
    cuts = np.zeros(len(indices) + 1, dtype=np.int64)
    np.cumsum(lengths, out=cuts[1:])
    positions = np.repeat(starts - cuts[:-1], lengths) + np.arange(int(cuts[-1]), dtype=np.int64)
    chunk = strings.data[positions].tobytes()
    bounds = cuts.tolist()
    if strings.ascii:
        text = chunk.decode("ascii", "replace")
        return [text[a:b] for a, b in zip(bounds, bounds[1:])]
    return [_decode(chunk[a:b]) for a, b in zip(bounds, bounds[1:])]


def encoded(strings: Sequence[str]) -> tuple[np.ndarray, IndexArray, bool]:
    """Strings as one UTF-8 buffer, their offsets, and whether all are ASCII (what a StringTable reads)."""
    text = "".join(strings)
    data = text.encode("utf-8", "surrogatepass")
    ascii = len(data) == len(text)
    pieces = map(len, strings) if ascii else (len(s.encode("utf-8", "surrogatepass")) for s in strings)
    lengths = np.fromiter(pieces, dtype=np.int64, count=len(strings))
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return np.frombuffer(data, dtype=np.uint8), offsets, ascii


def _decode(data: bytes) -> str:
    """UTF-8 as it was encoded (a lone surrogate a document escaped included); a damaged byte is a replacement."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


# Odd 64-bit multipliers that mix a string's 8-byte words into one key (hash_keys).
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93], dtype=np.uint64)


def hash_keys(strings: Sequence[str]) -> np.ndarray:
    """A 64-bit key of each string (uint64) that depends on that string alone, the same in every process (Python's
    `hash` of a str is salted per process), so keys kept in a file compare with keys made later, whatever else is
    loaded beside. Strings of 32 bytes (a spec hash) are keyed over their bytes in numpy; any other one digest each
    (an odd one among them leaves the others' keys as they are)."""
    if isinstance(strings, StringTable):
        data, offsets = strings.data, strings.offsets
    else:
        data, offsets, _ = encoded(strings)
    n = len(offsets) - 1
    keys = np.empty(n, dtype=np.uint64)
    lengths = np.diff(offsets)
    usual = lengths == HASH_BYTES
    if usual.all():  # the usual case: one run of 32-byte rows
        keys[:] = _mixed(np.ascontiguousarray(data[: n * HASH_BYTES]).view(np.uint64).reshape(n, -1))
    elif usual.any():
        starts = offsets[:-1][usual]
        rows = data[starts[:, None] + np.arange(HASH_BYTES)].reshape(-1, HASH_BYTES)
        keys[usual] = _mixed(np.ascontiguousarray(rows).view(np.uint64))
    for i in np.flatnonzero(~usual).tolist():
        digest = hashlib.blake2b(data[int(offsets[i]):int(offsets[i + 1])].tobytes(), digest_size=8).digest()
        keys[i] = int.from_bytes(digest, "little")
    return keys


HASH_BYTES = 32  # a Spack hash: 32 base32 characters


def _mixed(words: np.ndarray) -> np.ndarray:
    """Each row of words mixed into one 64-bit key."""
    key = words[:, 0] * _MIX[0]
    for j in range(1, words.shape[1]):
        key ^= words[:, j] * _MIX[j % len(_MIX)]
    return key
