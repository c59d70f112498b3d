"""The corpus model: packages -> one document per tag -> specs, stored by column.

A whole site is ~500k specs, so specs are not objects: each facet is a column of
small integers into a vocabulary of interned strings (numpy arrays), and the two
multi-valued facets (stack, variant) are CSR lists. Specs are ordered by package,
then tag, then document order, so one package's specs are one contiguous slice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from operator import itemgetter
from types import MappingProxyType
from typing import NamedTuple, TypeVar, cast

import numpy as np

from cachetui.core.model.arrays import IdArray, IndexArray
from cachetui.core.model.dependency_columns import DependencyColumns
from cachetui.core.model.documents import Document, generations, mirror_generation
from cachetui.core.model.problems import LoadReport
from cachetui.core.model.records import (
    UNKNOWN_PUSHED,
    UNKNOWN_SIZE,
    BinaryStore,
    Dependency,
    MirrorOrigin,
    build_provenance_parts,
)
from cachetui.core.spack.variants import atom_name

T = TypeVar("T")

# The facets, and every other field of a spec, are declared in cachetui.core.model.fields.
RAW_VARIANTS = "variant_raw"  # variant strings as documents wrote them; not a facet
BUILD_PROVENANCE = "build_provenance"  # package hash, namespace and flags (records.provenance_text); not a facet
UNIQUE_HASHES = "unique-hashes"  # the memo of unique_hashes
ANY_PUSHED_KNOWN = "any-pushed-known"  # the memo of `any_pushed_known`


def arch_triple(platform: str, os: str, target: str) -> str:
    """`linux-ubuntu22.04-zen3`, as Spack writes an architecture; a part a source left out shows as `?`."""
    return "-".join((platform or "?", os or "?", target or "?"))


class Vocabulary:
    """Interned strings of one facet: id <-> value."""

    __slots__ = ("values", "ids", "_growing")

    def __init__(self) -> None:
        self.values: list[str] = []
        self.ids: dict[str, int] = {}
        self._growing = True  # the last batch held a value never seen: the next one likely does too

    def intern(self, value: str) -> int:
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = len(self.values)
            self.values.append(value)
        return found

    def ids_of(self, values: list[str]) -> np.ndarray:
        """Ids of many values as an int32 array: lookups in C, Python only for each value never seen before."""
        ids = self.ids
        # All known, the usual batch once a site's load is under way: looked up at once, quicker than dict.get one
        # by one. Not tried while the vocabulary grows (a mirror's parameter texts): it would stop at the first new
        # value, and the lookups up to it would be made again below. (One value: itemgetter gives it bare.)
        if len(values) > 1 and not self._growing:
            try:
                return np.fromiter(itemgetter(*values)(ids), dtype=np.int32, count=len(values))
            except KeyError:
                pass  # a value never seen: found below, with the rest
        found = np.fromiter(map(ids.get, values, repeat(-1)), dtype=np.int32, count=len(values))
        self._growing = bool(len(found)) and found.min() < 0
        if self._growing:  # new values: each distinct one interned once, in order, in C
            new = list(dict.fromkeys(compress(values, (found < 0).tolist())))  # a mirror's is a hundred thousand
            start = len(self.values)
            ids.update(zip(new, range(start, start + len(new))))
            self.values += new
            if len(new) == len(values):  # every value new, each once: their ids are the next ones
                return np.arange(start, start + len(new), dtype=np.int32)
            found = np.fromiter(map(ids.__getitem__, values), dtype=np.int32, count=len(values))
        return found

    def __len__(self) -> int:
        return len(self.values)


@dataclass(slots=True)
class MultiColumn:
    """A multi-valued facet in CSR form: spec i owns flat[offsets[i]:offsets[i+1]]."""

    offsets: IndexArray  # n_specs + 1
    flat: IdArray  # value ids
    owner: IdArray  # the spec of each flat entry (facet columns; empty for raw variants, read per spec)

    def of(self, spec: int) -> IdArray:
        return self.flat[self.offsets[spec] : self.offsets[spec + 1]]


class SpecView(NamedTuple):
    """One spec resolved to strings, for the detail pane and the CLI."""

    index: int  # type: ignore[assignment]  # the spec's position; it shadows tuple.index, which nothing calls
    package: str
    tag: str
    hash: str
    version: str
    compiler: str
    compiler_name: str
    platform: str
    os: str
    target: str
    variants: tuple[str, ...]  # facet atoms: `+mpi`, `cuda_arch=80`, `cuda_arch=90`
    raw_variants: tuple[str, ...]  # as the document wrote them
    stacks: tuple[str, ...]
    size: int | None
    path: str
    installable: str = "unknown"  # yes, no, unknown: its link/run closure held by the loaded sources
    values: Mapping[str, str] = MappingProxyType({})  # every facet with one value a spec -> its value


@dataclass(repr=False)
class Corpus:
    packages: list[str]
    package_ranges: list[tuple[int, int]]
    documents: Sequence[Document]  # a list when built; a DocumentTable when mapped from the warm cache
    tags: list[str]  # display order
    hashes: Sequence[str]  # a list when built; a StringTable when mapped from the warm cache
    vocab: dict[str, Vocabulary]
    single: dict[str, np.ndarray]
    multi: dict[str, MultiColumn]
    package_of: np.ndarray
    document_of: np.ndarray
    size: np.ndarray
    deps: DependencyColumns
    report: LoadReport = field(default_factory=LoadReport)
    # Per spec, an id into vocab[BUILD_PROVENANCE]; 0 ("") where the source records none (site documents).
    build_provenance: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    # Per spec, when its storage says it was pushed (seconds since the epoch, UTC); UNKNOWN_PUSHED where it does
    # not say. Empty for a corpus built without the column: every spec unknown.
    pushed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # Per spec, whether it is new since the user last looked; empty: nothing is new. Set by each load, never cached.
    new: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False, compare=False)
    # When this corpus was loaded (seconds since the epoch, UTC): what "pushed in the last day" is counted from, so
    # the CLI and the browser of one load agree. Set by each load, warm or cold (its construction time until then).
    loaded_at: int = field(default_factory=lambda: int(time.time()), repr=False, compare=False)
    memo: dict[object, object] = field(default_factory=dict, repr=False, compare=False)

    cache_status: str = "off"  # how this corpus was loaded: off, miss, hit, partial
    # Document path -> the mirror it was loaded from (for the commands users copy); set by each load.
    origins: dict[str, MirrorOrigin] = field(default_factory=dict, repr=False, compare=False)
    # Document path -> where its mirror keeps binaries and signed records, in the order the sources were named
    # (site documents have none); set by each load, never cached.
    stores: dict[str, BinaryStore] = field(default_factory=dict, repr=False, compare=False)
    # Document path -> "offline copy from <date>" for documents read from an old copy of their index; set by each load.
    offline: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def memoised(self, key: Hashable, compute: Callable[[], T]) -> T:
        """What `compute` gives, worked out once per corpus."""
        if key not in self.memo:
            self.memo[key] = compute()
        return cast(T, self.memo[key])

    def __repr__(self) -> str:
        # A summary: the generated repr of 500k specs took seconds (Textual reprs a worker's arguments).
        return f"<Corpus {self.n_specs} specs, {len(self.packages)} packages, {len(self.tags)} tags>"

    @property
    def n_specs(self) -> int:
        return len(self.hashes)

    @property
    def nothing_loaded(self) -> bool:
        """No source gave a document, and some failed: any answer would be about nothing, not about the sources."""
        return not self.documents and bool(self.report.errors)

    def offline_copy(self, i: int) -> str:
        """Spec i's label "offline copy from <date>" when it was read from an offline copy of its index, else empty."""
        return self.offline.get(self.documents[self.document_of[i]].path, "") if self.offline else ""

    @cached_property
    def package_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.packages)}

    def package_sizes(self) -> dict[str, int]:
        """Each package -> its number of specs (the package list's counts for every spec, known without an answer)."""
        return {name: stop - start for name, (start, stop) in zip(self.packages, self.package_ranges)}

    def package_slice(self, package: str | None) -> slice:
        if package is None:
            return slice(0, self.n_specs)
        start, stop = self.package_ranges[self.package_index[package]]
        return slice(start, stop)

    @cached_property
    def variant_name_ids(self) -> dict[str, int]:
        """Variant name -> id: `mpi` for `+mpi` and `~mpi`, `cuda_arch` for `cuda_arch=80`."""
        return {name: i for i, name in enumerate(dict.fromkeys(map(atom_name, self.vocab["variant"].values)))}

    @cached_property
    def variant_names(self) -> np.ndarray:
        """Per variant atom id, the id of the variant it belongs to (see `variant_name_ids`)."""
        ids = self.variant_name_ids
        values = self.vocab["variant"].values
        return np.fromiter((ids[atom_name(v)] for v in values), dtype=np.int32, count=len(values))

    def value(self, facet: str, value_id: int) -> str:
        return self.vocab[facet].values[value_id]

    def spec(self, i: int) -> SpecView:
        def single(facet: str) -> str:
            return self.vocab[facet].values[self.single[facet][i]]

        def multi(facet: str) -> tuple[str, ...]:
            values = self.vocab[facet].values
            return tuple(values[v] for v in self.multi[facet].of(i))

        size = int(self.size[i])
        values = {facet: single(facet) for facet in self.single}
        return SpecView(
            index=i,
            package=self.packages[self.package_of[i]],
            tag=values["tag"],
            hash=self.hashes[i],
            version=values["version"],
            compiler=values["compiler"],
            compiler_name=values["compiler_name"],
            platform=values["platform"],
            os=values["os"],
            target=values["target"],
            variants=multi("variant"),
            raw_variants=self.raw_variants(i),
            stacks=multi("stack"),
            size=None if size == UNKNOWN_SIZE else size,
            path=self.documents[self.document_of[i]].path,
            installable=values["installable"],
            values=values,
        )

    def build_provenance_of(self, i: int) -> tuple[str, str, tuple[str, ...]] | None:
        """Spec i's (package hash, namespace, compiler flags); None when its source records none."""
        if not len(self.build_provenance):
            return None
        return build_provenance_parts(self.vocab[BUILD_PROVENANCE].values[self.build_provenance[i]])

    def pushed_of(self, i: int) -> int | None:
        """When spec i was pushed (seconds since the epoch, UTC); None when its storage does not say."""
        if not len(self.pushed):
            return None
        when = int(self.pushed[i])
        return None if when == UNKNOWN_PUSHED else when

    def forget_facet(self, facet: str) -> None:
        """The memos of a facet whose column was replaced: by convention, those whose key is a tuple naming the
        facet second (`("rank", facet)`, `("scope-values", facet, package)`)."""
        for key in [k for k in self.memo if isinstance(k, tuple) and len(k) > 1 and k[1] == facet]:
            del self.memo[key]

    def any_pushed_known(self) -> bool:
        """Whether a loaded source says when any of the binaries was pushed (worked out once per push-date column:
        `with_pushed` gives a corpus its column after the load)."""
        return self.memoised(ANY_PUSHED_KNOWN, lambda: bool(len(self.pushed)) and bool(
            (self.pushed != UNKNOWN_PUSHED).any()))

    def with_pushed(self, pushed: np.ndarray) -> None:
        """The push-date column, put in after the load (dates looked up once the corpus was shown)."""
        self.pushed = pushed
        self.memo.pop(ANY_PUSHED_KNOWN, None)

    def raw_variants(self, i: int) -> tuple[str, ...]:
        """Spec i's variant strings as its document wrote them."""
        values = self.vocab[RAW_VARIANTS].values
        return tuple(values[v] for v in self.multi[RAW_VARIANTS].of(i))

    @cached_property
    def _hash_keys(self) -> tuple[np.ndarray, np.ndarray]:
        """Python's hash of every spec hash, sorted, with the spec each came from: a binary search finds
        a hash's occurrences (a dependency tree asks once per edge). Cheaper to build than a dict of lists.
        """
        keys = np.fromiter(map(hash, self.hashes), dtype=np.int64, count=len(self.hashes))
        order = np.argsort(keys, kind="stable")
        return keys[order], order

    def prepare_lookups(self) -> None:
        """Build what looking one binary up uses (where its hash occurs, who depends on it) once, ahead of the first
        lookup: the browser calls it in a thread as the corpus is shown, so the details of the first spec do not pay
        for indexes over every spec on the screen's thread."""
        _ = self._hash_keys
        if self.has_dependencies:
            _ = self._dependents_by_hash, self.vocab["dep_hash"].ids

    def occurrences(self, hash_: str) -> list[int]:
        """Every spec index carrying this hash, in corpus order: one binary seen in several snapshots."""
        keys, order = self._hash_keys
        key = hash(hash_)
        candidates = order[np.searchsorted(keys, key, "left"):np.searchsorted(keys, key, "right")].tolist()
        return [i for i in candidates if self.hashes[i] == hash_]

    def tags_of_hash(self, hash_: str) -> list[str]:
        """The tags in which a hash appears, in tag display order."""
        seen = {self.value("tag", self.single["tag"][i]) for i in self.occurrences(hash_)}
        return [t for t in self.tags if t in seen]

    @property
    def unique_hashes(self) -> int:
        """How many distinct binaries (a warm corpus has the count from its cache file: no string built)."""
        return self.memoised(UNIQUE_HASHES, lambda: len(set(self.hashes)))

    # -- dependencies ------------------------------------------------------------------------------

    @property
    def has_dependencies(self) -> bool:
        """Whether any source carried dependency data (mirror indexes do; site documents do not)."""
        return len(self.deps.hash) > 0

    @cached_property
    def dependencies_recorded(self) -> np.ndarray:
        """Per spec, whether its source records what it depends on. A mirror's index does; a site listing
        document records no dependencies, so for its binaries what they depend on is unknown, not nothing."""
        generation = generations(self.documents)  # per document
        by_generation = {g: mirror_generation(g) for g in set(generation)}
        from_mirror = np.fromiter(map(by_generation.__getitem__, generation), dtype=bool, count=len(generation))
        return from_mirror[self.document_of] if self.n_specs else np.zeros(0, dtype=bool)

    def dependencies(self, i: int) -> list[Dependency]:
        """Spec i's dependency edges, as its index recorded them."""
        d = self.deps
        return self._edges(d.rows(i), d.hash, d.types, d.virtuals)

    def unheld_dependencies(self, hash_: str) -> list[Dependency]:
        """The edges of a record an index holds without its binary; [] for any other hash."""
        hash_id = self.vocab["dep_hash"].ids.get(hash_)
        return [] if hash_id is None else self._edges(self.deps.unheld_rows(hash_id), self.deps.unheld_hash,
                                                      self.deps.unheld_types, self.deps.unheld_virtuals)

    def is_external(self, hash_: str) -> bool:
        hash_id = self.vocab["dep_hash"].ids.get(hash_)
        return hash_id is not None and bool(self.deps.external[hash_id])

    def _edges(self, rows: range, targets: np.ndarray, types: np.ndarray, virtuals: np.ndarray) -> list[Dependency]:
        d, vocab = self.deps, self.vocab
        hashes, names, versions = vocab["dep_hash"].values, vocab["dep_name"].values, vocab["dep_version"].values
        virtual_names = vocab["dep_virtuals"].values
        return [Dependency(names[d.name_of[h]], hashes[h], versions[d.version_of[h]], int(bits), virtual_names[v])
                for h, bits, v in zip(targets[rows.start : rows.stop].tolist(), types[rows.start : rows.stop].tolist(),
                                      virtuals[rows.start : rows.stop].tolist())]

    @cached_property
    def _dependents_by_hash(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Edges sorted by the hash they point to, with each edge's spec and deptypes."""
        order = np.argsort(self.deps.hash, kind="stable")
        return self.deps.hash[order], self.deps.owners()[order], self.deps.types[order]

    def dependents(self, hash_: str) -> list[tuple[int, int]]:
        """(spec, deptype bits) of every spec in the corpus with an edge to this hash, in corpus order."""
        hash_id = self.vocab["dep_hash"].ids.get(hash_)
        if hash_id is None:
            return []
        targets, owners, types = self._dependents_by_hash
        lo, hi = np.searchsorted(targets, hash_id, "left"), np.searchsorted(targets, hash_id, "right")
        return sorted(zip(owners[lo:hi].tolist(), types[lo:hi].tolist()))

    def spec_with_hash(self, hash_: str, tag: str | None = None) -> int | None:
        """A spec carrying this hash, in `tag` when it is there; None when the corpus lacks it."""
        found = self.occurrences(hash_)
        same_tag = [i for i in found if self.value("tag", self.single["tag"][i]) == tag]
        return next(iter(same_tag or found), None)
