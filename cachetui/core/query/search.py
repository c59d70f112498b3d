"""Fuzzy package search: typos and gaps forgiven, exact and prefix matches first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

# numpy and rapidfuzz are imported by the first query that ranks: the package list's first frame (every name
# A-Z) is drawn before either is loaded (start-up as felt).

MIN_SCORE = 70.0
_SEPARATORS = str.maketrans("", "", "-_.")


@dataclass(frozen=True)
class PackageMatch:
    name: str
    score: float
    query: str = ""

    @cached_property
    def positions(self) -> tuple[int, ...]:
        """Indices into `name` of the matched characters (computed only when a row is painted)."""
        return match_positions(self.query, self.name)


class _Choices:
    """Lower-cased and separator-free spellings of a name list, kept between keystrokes."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.lowered = [n.lower() for n in names]
        self.squeezed = [n.translate(_SEPARATORS) for n in self.lowered]


_last: list[_Choices] = []  # the spellings of the last name list searched (callers keep passing the same one)


def choices_for(names: Sequence[str]) -> _Choices:
    """The spellings of `names`, reused while the same list object is searched keystroke after keystroke."""
    if not _last or _last[0].names is not names:
        _last[:] = [_Choices(names)]
    return _last[0]


def search_packages(query: str, names: Sequence[str], limit: int | None = None) -> list[PackageMatch]:
    """Rank `names` for `query`; an empty query lists every name A-Z."""
    query = query.strip().lower()
    if not query:
        return [PackageMatch(n, 100.0) for n in sorted(names, key=str.lower)][:limit]
    import numpy as np
    from rapidfuzz import fuzz, process

    choices = choices_for(names)
    # Separators are noise when typing ("mldtypes" means py-ml-dtypes): score both spellings, keep the best.
    scores = np.maximum.reduce([
        process.cdist([query], choices.lowered, scorer=fuzz.partial_ratio, dtype=np.float32)[0],
        process.cdist([query], choices.squeezed, scorer=fuzz.partial_ratio, dtype=np.float32)[0],
        process.cdist([query], choices.lowered, scorer=fuzz.WRatio, dtype=np.float32)[0],
    ])
    hits = np.flatnonzero(scores >= MIN_SCORE)
    ranked = sorted(hits.tolist(), key=lambda i: (_tier(query, choices.lowered[i]), -scores[i],
                                                   len(names[i]), choices.lowered[i]))
    return [PackageMatch(names[i], float(scores[i]), query) for i in ranked[:limit]]


def _tier(query: str, name: str) -> int:
    """0 exact, 1 prefix (also after a `py-`-style namespace), 2 substring, 3 fuzzy."""
    if name == query:
        return 0
    if name.startswith(query) or name.partition("-")[2].startswith(query):
        return 1
    if query in name:
        return 2
    return 3


def match_positions(query: str, name: str) -> tuple[int, ...]:
    """Characters of `name` that line up with the query (for highlighting)."""
    if not query:
        return ()
    start = name.lower().find(query.lower())
    if start >= 0:
        return tuple(range(start, start + len(query)))
    from rapidfuzz.distance import Indel

    positions: list[int] = []
    for opcode in Indel.opcodes(query.lower(), name.lower()):
        if opcode.tag == "equal":
            positions.extend(range(opcode.dest_start, opcode.dest_end))
    return tuple(positions)
