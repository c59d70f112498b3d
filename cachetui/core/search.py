"""Fuzzy package search: typos and gaps forgiven, exact and prefix matches first."""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

MIN_SCORE = 70.0
_SEPARATORS = str.maketrans("", "", "-_.")


@dataclass(frozen=True, slots=True)
class PackageMatch:
    name: str
    score: float
    positions: tuple[int, ...]  # indices into `name` of the matched characters


def _scorer(query: str, choice: str, **kwargs: object) -> float:
    # Separators are noise when typing ("mldtypes" means py-ml-dtypes); compare both ways.
    squeezed = choice.translate(_SEPARATORS)
    return max(fuzz.partial_ratio(query, choice), fuzz.partial_ratio(query, squeezed), fuzz.WRatio(query, choice))


def search_packages(query: str, names: list[str], limit: int | None = None) -> list[PackageMatch]:
    """Rank `names` for `query`; an empty query lists every name A-Z."""
    query = query.strip().lower()
    if not query:
        return [PackageMatch(n, 100.0, ()) for n in sorted(names, key=str.lower)][:limit]
    lowered = [n.lower() for n in names]
    hits = process.extract(query, lowered, scorer=_scorer, score_cutoff=MIN_SCORE, limit=None)
    ranked = sorted(hits, key=lambda hit: (_tier(query, hit[0]), -hit[1], len(hit[0]), hit[0]))
    return [PackageMatch(names[i], score, match_positions(query, names[i])) for _, score, i in ranked[:limit]]


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
    start = name.lower().find(query.lower())
    if start >= 0 and query:
        return tuple(range(start, start + len(query)))
    positions: list[int] = []
    for tag, _, _, dest_start, dest_end in Indel.opcodes(query.lower(), name.lower()):
        if tag == "equal":
            positions.extend(range(dest_start, dest_end))
    return tuple(positions)
