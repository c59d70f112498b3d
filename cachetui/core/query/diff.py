"""Compare two snapshots of a build cache: which binaries were added, removed or kept, by hash.

A side is a set of specs: one tag of a corpus, or a whole corpus (a source loaded on its own).
A binary is its hash: the same hash in both sides is kept, whatever documents or stacks list
it. A configuration is a package and its configuration fields (the registry's: version, compiler,
platform-os-target); a side covers it when it has at least one binary of it, so a configuration
gained or lost says what users of that platform and compiler can or can no longer install from the
cache.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from cachetui.core.model.corpus import Corpus, arch_triple
from cachetui.core.model.fields import REGISTRY
from cachetui.core.model.tables import strings_at

Configuration = tuple[str, ...]  # the package, then a value per configuration_parts()
ARCH = "arch"  # the architecture's fields said as one part, platform-os-target, as Spack writes it


def configuration_parts() -> tuple[str, ...]:
    """What a configuration names after its package, in the registry's order: each configuration field, but the
    architecture's as one `arch` where the first of them stands (version, compiler, arch)."""
    parts: list[str] = []
    for name in REGISTRY.marked("configuration"):
        part = ARCH if name in REGISTRY.marked("architecture") else name
        if part not in parts:
            parts.append(part)
    return tuple(parts)


@dataclass(frozen=True)
class Side:
    """The specs of one snapshot: `indices` into `corpus`, named `label`."""

    label: str
    corpus: Corpus
    indices: np.ndarray

    def binaries(self, package: str | None) -> dict[str, int]:
        """hash -> the first spec carrying it (a hash listed by several stacks counts once)."""
        found: dict[str, int] = {}
        indices = self.indices
        if package is not None:
            indices = indices[self.corpus.package_of[indices] == self.corpus.package_index.get(package, -1)]
        for hash_, i in zip(strings_at(self.corpus.hashes, indices), indices.tolist()):
            found.setdefault(hash_, i)
        return found

    def configurations(self, indices: Iterable[int]) -> set[Configuration]:
        """The configurations these specs cover: distinct id rows first (numpy), then their names."""
        rows = np.fromiter(indices, dtype=np.int64)
        corpus = self.corpus
        named = REGISTRY.marked("configuration")
        columns = [corpus.package_of[rows]] + [corpus.single[f][rows] for f in named]
        distinct = _distinct_rows(np.stack(columns, axis=1))
        values = [corpus.vocab[f].values for f in named]
        arch = [named.index(f) for f in REGISTRY.marked("architecture")]
        at = [None if part == ARCH else named.index(part) for part in configuration_parts()]
        found = set()
        for p, *ids in distinct.tolist():
            said = [vocabulary[i] for vocabulary, i in zip(values, ids)]
            found.add((corpus.packages[p],
                       *(arch_triple(*(said[a] for a in arch)) if k is None else said[k] for k in at)))
        return found

    def package(self, i: int) -> str:
        return self.corpus.packages[self.corpus.package_of[i]]

    def offline_copies(self, package: str | None) -> dict[str, list[str]]:
        """package -> the offline copies (their labels) its specs here were read from; {} when all are current."""
        corpus = self.corpus
        found: dict[str, set[str]] = {}
        if corpus.offline:
            for i in self.binaries(package).values():
                copy = corpus.offline_copy(i)
                if copy:
                    found.setdefault(self.package(i), set()).add(copy)
        return {name: sorted(copies) for name, copies in found.items()}


@dataclass
class PackageDiff:
    package: str
    added: list[str] = field(default_factory=list)  # hashes only in the new side
    removed: list[str] = field(default_factory=list)  # hashes only in the old side
    kept: int = 0
    gained: list[Configuration] = field(default_factory=list)  # configurations only the new side covers
    lost: list[Configuration] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Binaries added or removed."""
        return bool(self.added or self.removed)

    @property
    def differs(self) -> bool:
        """Binaries, or the configurations they cover (two sources may record one hash differently)."""
        return self.changed or bool(self.gained or self.lost)


@dataclass
class Diff:
    old: str
    new: str
    packages: list[PackageDiff]  # every package either side has, by name
    # Per side, package -> the offline copies it was read from: a comparison with an old copy says so.
    old_offline: dict[str, list[str]] = field(default_factory=dict)
    new_offline: dict[str, list[str]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        """Binaries added or removed, or (two sources whose records of one hash differ) coverage changed."""
        return any(p.differs for p in self.packages)

    @staticmethod
    def copies(offline: dict[str, list[str]], package: str | None = None) -> list[str]:
        """The offline copies of one side (`old_offline` or `new_offline`), of one package or all; [] when current."""
        return offline.get(package, []) if package is not None else sorted({c for cs in offline.values() for c in cs})

    def totals(self) -> dict[str, int]:
        return {
            "added": sum(len(p.added) for p in self.packages),
            "removed": sum(len(p.removed) for p in self.packages),
            "kept": sum(p.kept for p in self.packages),
            "gained": sum(len(p.gained) for p in self.packages),
            "lost": sum(len(p.lost) for p in self.packages),
        }


def _distinct_rows(table: np.ndarray) -> np.ndarray:
    """The distinct rows of a 2-D array of ids, in order: as `np.unique(axis=0)`, which first imports `numpy.ma`
    (a quarter of a first comparison's time at 500k specs)."""
    if not len(table):
        return table
    ordered = table[np.lexsort(table.T[::-1])]
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    return ordered[keep]


def tag_side(corpus: Corpus, tag: str) -> Side:
    """The specs of one tag (the caller has checked that the tag exists)."""
    tag_id = corpus.vocab["tag"].ids[tag]
    return Side(tag, corpus, np.flatnonzero(corpus.single["tag"] == tag_id))


def corpus_side(label: str, corpus: Corpus) -> Side:
    return Side(label, corpus, np.arange(corpus.n_specs))


def diff(old: Side, new: Side, package: str | None = None) -> Diff:
    """Per package: binaries added, removed and kept by hash, and configurations gained or lost."""
    before, after = old.binaries(package), new.binaries(package)
    by_package: dict[str, PackageDiff] = {}

    def entry(name: str) -> PackageDiff:
        return by_package.setdefault(name, PackageDiff(name))

    for hash_, i in after.items():
        if hash_ in before:
            entry(new.package(i)).kept += 1
        else:
            entry(new.package(i)).added.append(hash_)
    for hash_, i in before.items():
        if hash_ not in after:
            entry(old.package(i)).removed.append(hash_)
    covered_before = old.configurations(before.values())
    covered_after = new.configurations(after.values())
    for config in sorted(covered_after - covered_before):
        entry(config[0]).gained.append(config)
    for config in sorted(covered_before - covered_after):
        entry(config[0]).lost.append(config)
    for found in by_package.values():
        found.added.sort()
        found.removed.sort()
    return Diff(old.label, new.label, [by_package[name] for name in sorted(by_package)],
                old.offline_copies(package), new.offline_copies(package))


ADDED, REMOVED, KEPT = 1, 2, 3
MARKS = {ADDED: "added", REMOVED: "removed", KEPT: "kept"}


@dataclass(frozen=True, eq=False)
class Comparison:
    """Two tags of one corpus side by side, for the browser: which rows to show and how each changed.

    Rows are the new tag's listings (added or kept) and the old tag's listings of hashes the
    new tag lacks (removed): a kept binary shows as the new tag lists it, not twice. Counts
    are of binaries (distinct hashes), as `cachetui diff` counts them.
    """

    old: str
    new: str
    rows: np.ndarray  # spec indices, ascending
    marks: np.ndarray  # ADDED, REMOVED or KEPT, one per row
    changes: dict[str, tuple[int, int]]  # package -> binaries (added, removed), only packages that changed
    binaries: tuple[int, int, int]  # added, removed, kept

    def mark_of(self, spec: int) -> str:
        at = int(np.searchsorted(self.rows, spec))
        return MARKS[int(self.marks[at])] if at < len(self.rows) and self.rows[at] == spec else ""


def compare_tags(corpus: Corpus, old: str, new: str) -> Comparison:
    """Kept in `corpus.memo`: toggling filters in compare mode does not recompute it."""
    return corpus.memoised(("comparison", old, new),
                           lambda: _compare(corpus, tag_side(corpus, old), tag_side(corpus, new)))


def _compare(corpus: Corpus, old: Side, new: Side) -> Comparison:
    old_hashes, new_hashes = strings_at(corpus.hashes, old.indices), strings_at(corpus.hashes, new.indices)
    before, after = set(old_hashes), set(new_hashes)
    marks = {i: (KEPT if h in before else ADDED) for i, h in zip(new.indices.tolist(), new_hashes)}
    marks.update({i: REMOVED for i, h in zip(old.indices.tolist(), old_hashes) if h not in after})
    rows = np.array(sorted(marks), dtype=np.int64)
    counted = diff(old, new)  # the counts `cachetui diff` gives, so the two can never disagree
    changes = {p.package: (len(p.added), len(p.removed)) for p in counted.packages if p.changed}
    totals = counted.totals()
    return Comparison(old.label, new.label, rows, np.array([marks[i] for i in rows.tolist()], dtype=np.int64),
                      changes, (totals["added"], totals["removed"], totals["kept"]))
