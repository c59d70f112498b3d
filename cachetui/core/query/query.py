"""Faceted queries over a Corpus: OR within a facet, AND across facets.

Every operation works on the scope's contiguous slice (one package, or all specs),
so a package query costs what that package holds, not what the site holds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import REGISTRY
from cachetui.core.query.masks import facet_mask
from cachetui.core.query.pushed import PushedWithin, any_dated
from cachetui.core.query.resolve import QueryProblem, UnknownValue
from cachetui.core.query.specmatch import dependency_parts, root_parts, runs_on_mask
from cachetui.core.query.unrecorded import unknown_dependencies
from cachetui.core.spack.specquery import SpecQuery
from cachetui.core.spack.tags import sort_tags
from cachetui.core.spack.variants import atom_name
from cachetui.core.spack.versions import version_key
from cachetui.core.spack.words import echo


class Filters(Mapping[str, frozenset[str]]):
    """Facet -> chosen values. Immutable and hashable, so a Query can key a cache; empty choices drop out."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Iterable[str]] | None = None) -> None:
        self._items = {facet: frozenset(values) for facet, values in (items or {}).items() if values}

    def __getitem__(self, facet: str) -> frozenset[str]:
        return self._items[facet]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __repr__(self) -> str:
        return f"Filters({self._items!r})"


@dataclass(frozen=True, slots=True)
class RunsOn:
    """Binaries that run on a machine: its microarchitecture (and, for this host, its platform)."""

    machine: str
    platform: str | None = None

    def __str__(self) -> str:
        return f"runs on {self.machine}" + (f" ({self.platform})" if self.platform else "")


@dataclass(frozen=True, slots=True)
class Query:
    """What a user asked for: a package (None = all), facet filters, a spec query, a machine to run on, when the
    binaries were pushed.

    Filters are OR within a facet and AND across facets; the variant facet is one facet per
    variant name (`cuda_arch=80` or `cuda_arch=90`, and `+mpi`, and `~cuda`). The spec query,
    "runs on" and the push bounds are ANDed with everything (see cachetui.core.query.specmatch, .pushed).
    """

    package: str | None = None
    filters: Filters = field(default_factory=Filters)
    spec: SpecQuery | None = None
    runs_on: RunsOn | None = None
    pushed: PushedWithin | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.filters, Filters):
            object.__setattr__(self, "filters", Filters(self.filters))

    def active(self) -> dict[str, frozenset[str]]:
        return dict(self.filters)

    def toggled(self, facet: str, value: str) -> Query:
        values = set(self.filters.get(facet, frozenset()))
        values.symmetric_difference_update({value})
        return self.with_facet(facet, frozenset(values))

    def with_facet(self, facet: str, values: frozenset[str]) -> Query:
        filters = dict(self.filters)
        filters[facet] = values
        return replace(self, filters=Filters(filters))

    def cleared(self) -> Query:
        """Without facet filters and "runs on" (the spec query belongs to the search box)."""
        return Query(self.package, spec=self.spec)


def _variant_key(name: str) -> str:
    return f"variant:{name}"


def filter_groups(filters: Mapping[str, frozenset[str]]) -> dict[str, tuple[str, frozenset[str]]]:
    """Filter key -> (facet, values) whose specs are ORed; keys are ANDed.

    One key per facet, except variants: one key per variant name.
    """
    groups: dict[str, tuple[str, frozenset[str]]] = {}
    for facet, values in filters.items():
        if facet != "variant":
            groups[facet] = (facet, frozenset(values))
            continue
        by_name: dict[str, set[str]] = defaultdict(set)
        for value in values:
            by_name[atom_name(value)].add(value)
        for name, atoms in by_name.items():
            groups[_variant_key(name)] = ("variant", frozenset(atoms))
    return groups


@dataclass(frozen=True, eq=False)
class Selection:
    """A query's masks over its scope, built once: the matching specs and every facet count come from them."""

    corpus: Corpus
    query: Query
    scope: slice
    masks: dict[str, np.ndarray]  # filter key -> mask; keys are ANDed
    labels: dict[str, str] = field(default_factory=dict)  # filter key -> the constraint in spec syntax
    dependencies: frozenset[str] = frozenset()  # the keys of `^` constraints

    @property
    def size(self) -> int:
        return self.scope.stop - self.scope.start

    def indices(self) -> np.ndarray:
        """The matching specs, in corpus order."""
        return np.flatnonzero(_all_but(self.masks, self.size)) + self.scope.start

    def why_empty(self) -> str | None:
        """For an empty answer whose every part exists: which part emptied it, and what relaxing it gives.

        The parts are taken in the order the query reads; the first that leaves nothing is named.
        """
        size, masks = self.size, self.masks
        if _all_but(masks, size).any():
            return None
        running = np.ones(size, dtype=bool)
        package = self.query.package
        kept = [package] if package and package not in self.labels.values() else []  # said once
        whole = " ".join([*kept, *(echo(self.labels.get(key, key)) for key in masks)])
        for key, mask in masks.items():
            label = echo(self.labels.get(key, key))  # a part as typed: a long one is cut
            narrowed = running & mask
            if narrowed.any():
                running = narrowed
                kept.append(label)
                continue
            before = int(running.sum())
            among = f"{before} {_are(before)} {' '.join(kept)}" if kept else f"{before} {_are(before)} in scope"
            found = f"no binary is {whole}: {among}, none of them {label}"
            if key.startswith("pushed") and not any_dated(self.corpus, self.scope, running):
                found = f"no binary is {whole}: {among}, and no source of theirs says when any was pushed"
            if key in self.dependencies:  # none of those whose dependencies are recorded; the others: unknown
                recorded = int(np.count_nonzero(running & self.corpus.dependencies_recorded[self.scope]))
                if not recorded:
                    return None  # unknown for every one: dependencies_unknown says so
                if recorded < before:
                    found = (f"no binary is known to be {whole}: {among}; of the {recorded} whose dependencies "
                             f"are recorded, none is {label}")
            relaxed = int(_all_but(masks, size, skip=key).sum())
            return found if relaxed == before else f"{found}; without {label}: {relaxed}"
        return f"no binary in {self.query.package or 'the loaded sources'}" if not size else None

    def dependencies_unknown(self) -> str | None:
        """A `^` asked of binaries whose sources record no dependencies: how many they are, said whatever
        the answer (cachetui.core.query.unrecorded); None when there is no `^` or none of them."""
        if not self.dependencies:
            return None
        asked = _all_but(self.masks, self.size, skip=self.dependencies)
        constraint = " ".join(self.labels[key] for key in self.masks if key in self.dependencies)
        return unknown_dependencies(self.corpus, self.scope, asked, constraint, *_described(self, self.dependencies))

    def facet_counts(self, facets: tuple[str, ...] | None = None) -> dict[str, dict[str, int]]:
        """Counts for several facets (every facet when None), each under every other active filter."""
        corpus, scope, masks = self.corpus, self.scope, self.masks
        found = {}
        for facet in REGISTRY.facets() if facets is None else facets:
            if facet == "variant":
                counts = _variant_counts(corpus, scope, masks, self.size)
            else:
                counts = _bincount(corpus, scope, facet, _all_but(masks, self.size, skip=facet))
            found[facet] = _named_counts(corpus, facet, counts, self.query.filters.get(facet, frozenset()))
        return found


def select(corpus: Corpus, query: Query, within: np.ndarray | None = None,
           where: str = "in the comparison") -> Selection:
    """One mask per filter key; the spec query and "runs on" too.

    `within` (sorted spec indices) limits every answer and count to those specs, e.g. the rows
    a comparison of two tags shows; `where` says which they are when they leave nothing.
    """
    scope = corpus.package_slice(query.package)
    groups = filter_groups(query.filters).items()
    masks = {key: facet_mask(corpus, scope, facet, values) for key, (facet, values) in groups}
    labels = {key: filter_label(facet, values) for key, (facet, values) in groups}
    if query.spec is not None:
        for i, (label, part) in enumerate(root_parts(corpus, scope, query.spec, query.package)):
            masks[f"spec:{i}"], labels[f"spec:{i}"] = part, label
    after: dict[str, np.ndarray] = {}  # read after the spec query's `^` parts, worked out before them
    if query.pushed is not None:  # never a facet's key: the Pushed facet's counts are still narrowed by them
        for key, label, part in query.pushed.parts(corpus, scope):
            after[key], labels[key] = part, label
    if query.runs_on is not None:
        after["runs-on"] = runs_on_mask(corpus, scope, query.runs_on.machine, query.runs_on.platform)
        labels["runs-on"] = str(query.runs_on)
    if within is not None:  # never a facet's key, so no count leaves it out
        inside = np.zeros(scope.stop - scope.start, dtype=bool)
        inside[within[(within >= scope.start) & (within < scope.stop)] - scope.start] = True
        after["within"], labels["within"] = inside, where
    selection = Selection(corpus, query, scope, {**masks, **after}, labels)
    if query.spec is None or not query.spec.dependencies:
        return selection
    keys = [f"dependency:{i}" for i in range(len(query.spec.dependencies))]
    for key, (label, part) in zip(keys, _dependency_parts(selection, query.spec)):
        masks[key], labels[key] = part, label
    return replace(selection, masks={**masks, **after}, dependencies=frozenset(keys))


def _dependency_parts(selection: Selection, spec: SpecQuery) -> list[tuple[str, np.ndarray]]:
    """The `^` parts of a selection (of its other parts). A name no index records is an error, which says
    too for how many binaries it is unknown: a listing document's binary may still depend on it."""
    try:
        return dependency_parts(selection.corpus, selection.scope, spec)
    except UnknownValue as exc:
        said = unknown_dependencies(selection.corpus, selection.scope, _all_but(selection.masks, selection.size),
                                    " ".join(map(str, spec.dependencies)), *_described(selection, frozenset()))
        if said is None:
            raise
        text = str(exc)  # it may end with a question (`did you mean: zstd?`): then a new sentence
        raise QueryProblem(f"{text} {said[0].upper()}{said[1:]}" if text.endswith("?") else f"{text}; {said}") from exc


def _described(selection: Selection, skip: frozenset[str]) -> tuple[str, str]:
    """The binaries a selection's parts but `skip` stand for, in words: what they are (`hdf5 +mpi`; "" for
    any) and where (`in the comparison`; "" for everywhere)."""
    words = [selection.labels.get(key, key) for key in selection.masks if key not in skip and key != "within"]
    package = selection.query.package
    what = " ".join([package, *words] if package and package not in words else words)
    return what, selection.labels["within"] if "within" in selection.masks else ""


def said_beside(*notes: str | None) -> str | None:
    """The notes on one answer as the one line said beside it: on stderr, or beside the browser's query line."""
    return "; ".join(filter(None, notes)) or None


def filter_label(facet: str, values: frozenset[str]) -> str:
    """A facet filter as a user would type it: `@1.2,1.3`, `%gcc@13.2.0`, `+mpi`, `target=zen3,zen4`."""
    ordered = sorted(values)
    if facet == "version":
        return "@" + ",".join(ordered)
    if facet in REGISTRY.marked("compiler"):
        return " or ".join(f"%{value}" for value in ordered)
    if facet == "variant":
        return " or ".join(ordered)
    return f"{facet}={','.join(ordered)}"


def _are(count: int) -> str:
    return "is" if count == 1 else "are"


def _all_but(masks: dict[str, np.ndarray], size: int, skip: str | frozenset[str] = frozenset()) -> np.ndarray:
    skipped = {skip} if isinstance(skip, str) else skip
    mask = np.ones(size, dtype=bool)
    for key, facet_mask_ in masks.items():
        if key not in skipped:
            mask &= facet_mask_
    return mask


def match(corpus: Corpus, query: Query, within: np.ndarray | None = None) -> np.ndarray:
    """Indices of the matching specs, in corpus order."""
    return select(corpus, query, within).indices()


def facet_counts(corpus: Corpus, query: Query, facet: str) -> dict[str, int]:
    """Count per value of `facet` under every *other* active filter (so OR choices stay visible)."""
    return select(corpus, query).facet_counts((facet,))[facet]


def all_facet_counts(corpus: Corpus, query: Query) -> dict[str, dict[str, int]]:
    """Counts for every facet, each under every other active filter."""
    return select(corpus, query).facet_counts()


def _variant_counts(corpus: Corpus, scope: slice, masks: dict[str, np.ndarray], size: int) -> np.ndarray:
    """A variant value counts under every filter but its own variant's: its alternatives stay visible."""
    counts = _bincount(corpus, scope, "variant", _all_but(masks, size))
    names = corpus.variant_names
    for key in masks:
        if key.startswith("variant:"):
            own = names == corpus.variant_name_ids.get(key.removeprefix("variant:"), -1)
            counts[own] = _bincount(corpus, scope, "variant", _all_but(masks, size, skip=key))[own]
    return counts


def _bincount(corpus: Corpus, scope: slice, facet: str, mask: np.ndarray) -> np.ndarray:
    size = len(corpus.vocab[facet])
    if facet in REGISTRY.multi():
        col = corpus.multi[facet]
        lo, hi = col.offsets[scope.start], col.offsets[scope.stop]
        entries = col.flat[lo:hi][mask[col.owner[lo:hi] - scope.start]]
        return np.bincount(entries, minlength=size)
    return np.bincount(corpus.single[facet][scope][mask], minlength=size)


def _named_counts(corpus: Corpus, facet: str, counts: np.ndarray, chosen: frozenset[str]) -> dict[str, int]:
    values = corpus.vocab[facet].values
    found = {values[i]: int(counts[i]) for i in np.flatnonzero(counts)}
    for selected in chosen:
        found.setdefault(selected, 0)  # keep a chosen value visible, so it can be removed
    return found


def sort_values(facet: str, values: list[str]) -> list[str]:
    """Facet values in reading order: versions newest first, tags in site order, a derived facet's values as it
    declares them (`last day` before `older`), others A-Z."""
    if facet == "version":
        return sorted(values, key=version_key, reverse=True)
    if facet == "tag":
        return sort_tags(values)
    derivation = dict(REGISTRY.derived()).get(facet)
    if derivation is not None:
        declared = {value: i for i, value in enumerate(derivation.values)}
        return sorted(values, key=lambda v: (declared.get(v, len(declared)), v))
    return sorted(values, key=lambda v: (v.lower(), v))
