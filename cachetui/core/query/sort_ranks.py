"""Per-spec ranks for the columns whose keys are strings (hashes, variants), worked out once per corpus in numpy.

Sorting 500,000 Python strings took seconds (a string built per spec from its raw variants, then compared in
Python); the ranks give the same order as those strings did, ties in corpus order, as numbers:

- hashes: each string's bytes as big-endian 64-bit words, when every hash is ASCII and of one width (a spec hash
  is 32): bytes compare as the characters did;
- variants: the text sorted is a spec's raw variant strings joined by spaces. When no string is empty and no
  character is a space or below one, that text compares as the sequence of its strings does (a string that
  ends first, or a sequence that ends first, is the smaller), so each distinct string gets its rank among the
  vocabulary's (1 up; 0 is "ended") and a spec's sequence of ranks is laid out one byte (or more) a position,
  big-endian, in 64-bit words.

Rows of words are ordered by their first word, and only the rows tied so far by the next (so the work is a sort
of one number per spec when the first word tells nearly every spec apart, as it does). Anything else (a hash of
another width, a variant with a space) is ranked by sorting its strings in Python, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

import numpy as np

from cachetui.core.model.corpus import RAW_VARIANTS, Corpus
from cachetui.core.model.tables import StringTable, encoded

HASH_RANKS = ("sort-ranks", "hash")
VARIANT_RANKS = ("sort-ranks", "variants")
_SUBSET = 16  # fewer indices than 1/16 of the corpus: sort their ranks; more: pick them from the corpus's order
_FEW = 2048  # at most this many to sort, and nothing ranked yet: sort their strings, and rank nothing


class Ranked:
    """A corpus's specs ranked by one key: every spec in ascending order of it (ties in corpus order), and which
    neighbours in that order tie. Ranks, and the descending order, are worked out when first asked for."""

    def __init__(self, ascending: np.ndarray, tied: np.ndarray) -> None:
        self.ascending = ascending
        self.tied = tied  # tied[k]: the specs at ascending[k] and ascending[k + 1] have one key

    @cached_property
    def _starts(self) -> np.ndarray:
        """Where each tie (a key's specs) starts in the ascending order, and which tie each position is in."""
        return np.concatenate(([True], ~self.tied)) if len(self.ascending) else np.zeros(0, dtype=bool)

    @cached_property
    def rank(self) -> np.ndarray:
        """rank[spec]: dense, 0 up."""
        rank = np.empty(len(self.ascending), dtype=np.int64)
        rank[self.ascending] = np.cumsum(self._starts) - 1
        return rank

    @cached_property
    def descending(self) -> np.ndarray:
        """Every spec in descending order: the ties reversed, each tie's specs kept in corpus order."""
        n = len(self.ascending)
        group = np.cumsum(self._starts) - 1
        firsts = np.flatnonzero(self._starts)
        ends = np.append(firsts[1:], n)
        descending = np.empty(n, dtype=self.ascending.dtype)
        descending[n - ends[group] + (np.arange(n, dtype=np.int64) - firsts[group])] = self.ascending
        return descending

    def arrange(self, indices: np.ndarray, *, descending: bool = False) -> np.ndarray:
        """`indices` in the key's order, ties kept in the order given (what a stable sort of their ranks gives)."""
        n = len(self.ascending)
        if len(indices) * _SUBSET >= n and _ascending_unique(indices):
            chosen = np.zeros(n, dtype=bool)
            chosen[indices] = True
            order = self.descending if descending else self.ascending
            return order[chosen[order]].astype(indices.dtype, copy=False)
        keys = self.rank[indices]
        return indices[np.argsort(-keys if descending else keys, kind="stable")]


def by_hash(corpus: Corpus, indices: np.ndarray, *, descending: bool = False) -> np.ndarray:
    if len(indices) <= _FEW and HASH_RANKS not in corpus.memo:
        return _few(indices, [corpus.hashes[i] for i in indices.tolist()], descending)
    return hash_ranks(corpus).arrange(indices, descending=descending)


def by_variants(corpus: Corpus, indices: np.ndarray, *, descending: bool = False) -> np.ndarray:
    if len(indices) <= _FEW and VARIANT_RANKS not in corpus.memo:
        return _few(indices, [" ".join(corpus.raw_variants(i)) for i in indices.tolist()], descending)
    return variant_ranks(corpus).arrange(indices, descending=descending)


def _few(indices: np.ndarray, keys: list[str], descending: bool) -> np.ndarray:
    """A few specs (a package's answer, before anything asked for the whole corpus): their strings sorted."""
    ranked = _rank_strings(keys)
    return indices[ranked.descending if descending else ranked.ascending]


def hash_ranks(corpus: Corpus) -> Ranked:
    return corpus.memoised(HASH_RANKS, lambda: _rank_hashes(corpus.hashes))


def variant_ranks(corpus: Corpus) -> Ranked:
    return corpus.memoised(VARIANT_RANKS, lambda: _rank_variants(corpus))


def _ascending_unique(indices: np.ndarray) -> bool:
    return bool((indices[1:] > indices[:-1]).all())


def _rank_hashes(hashes: Sequence[str]) -> Ranked:
    if isinstance(hashes, StringTable):
        data, offsets, ascii = hashes.data, hashes.offsets, hashes.ascii
    else:
        data, offsets, ascii = encoded(hashes)
    n = len(offsets) - 1
    width = int(offsets[1] - offsets[0]) if n else 0
    start = int(offsets[0]) if n else 0
    fixed = n > 0 and width > 0 and int(offsets[-1]) - start == n * width and bool((np.diff(offsets) == width).all())
    # ASCII through and through: a damaged byte (read as one replacement character) is left to Python.
    if not (fixed and ascii and int(data[start : start + n * width].max()) < 0x80):
        return _rank_strings(list(hashes))
    rows = np.zeros((n, -(-width // 8) * 8), dtype=np.uint8)
    rows[:, :width] = np.asarray(data[start : start + n * width]).reshape(n, width)
    return _rank_rows(rows.view(">u8").astype(np.uint64))


def _rank_variants(corpus: Corpus) -> Ranked:
    values = corpus.vocab[RAW_VARIANTS].values
    column = corpus.multi[RAW_VARIANTS]
    if not all(value and min(value) > " " for value in values):
        return _rank_strings([" ".join(corpus.raw_variants(i)) for i in range(corpus.n_specs)])
    distinct = sorted(set(values))
    position = {v: i + 1 for i, v in enumerate(distinct)}
    size = 1 if len(distinct) <= 0xFF else 2 if len(distinct) <= 0xFFFF else 4
    symbols = np.array([position[v] for v in values], dtype=f">u{size}")
    offsets = np.asarray(column.offsets)
    n = len(offsets) - 1
    lengths = np.diff(offsets)
    widest = int(lengths.max()) if n else 0
    per_row = max(1, -(-widest * size // 8)) * 8 // size  # positions a row: whole 64-bit words of them
    rows = np.zeros(n * per_row, dtype=symbols.dtype)
    first = int(offsets[0]) if n else 0
    flat = column.flat[first : int(offsets[-1])] if n else column.flat[:0]
    # Entry k of the flat buffer (spec i's, at its position p) goes to row i, position p: k + i * per_row - start_i.
    kind = np.dtype(np.int32 if len(rows) < 2**31 else np.int64)  # narrow: half the memory to go through
    move: np.ndarray = np.arange(n, dtype=kind) * per_row - (offsets[:-1] - first).astype(kind)
    target: np.ndarray = np.arange(len(flat), dtype=kind)
    target += np.repeat(move, lengths)
    rows[target] = symbols[flat]
    return _rank_rows(rows.view(">u8").reshape(n, per_row * size // 8).astype(np.uint64))


def _rank_rows(words: np.ndarray) -> Ranked:
    """Rows of unsigned words ranked as sequences (first word first), ties in row order."""
    width = words.shape[1]
    order = np.argsort(words[:, 0])  # not stable (several times faster): ties are put in row order below
    first = words[order, 0]
    tied = first[1:] == first[:-1]  # tied[k]: sorted rows k and k + 1 are equal so far
    for w in range(1, max(width, 2)):  # one word: its ties are put in row order all the same
        if not tied.any():
            break
        # The rows in a tie so far, each tie a group, sorted by the next word, then by row.
        members = np.flatnonzero(np.concatenate((tied, [False])) | np.concatenate(([False], tied)))
        group = np.cumsum(np.concatenate(([True], ~tied)))[members]
        rows = order[members]
        after = words[rows, w] if w < width else rows
        order[members] = rows[np.lexsort((rows, after, group))]
        if w < width:
            pairs = np.flatnonzero(tied)
            tied[pairs] = words[order[pairs], w] == words[order[pairs + 1], w]
    return Ranked(order, tied)


def _rank_strings(keys: list[str]) -> Ranked:
    """The straightforward way: Python sorts the strings."""
    order = np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)  # stable
    in_order = [keys[i] for i in order.tolist()]
    tied = np.fromiter((a == b for a, b in zip(in_order, in_order[1:])), dtype=bool, count=max(len(keys) - 1, 0))
    return Ranked(order, tied)
