"""Why isn't my spec in the cache? Each wanted node against the binaries a Corpus holds: one rule.

`coverage(corpus, wanted)` decides every node's status and differences; the CLI's `coverage` command
and the browser both show what it returns, so they cannot disagree.

- `hit`: the node's exact hash is held (in these tags);
- `reusable`: a held binary of the package differs only in build provenance (package hash, namespace,
  build-only dependencies), its link/run dependencies being the wanted ones or themselves reusable
  matches for them. Spack's concretizer with `reuse` does not hold such differences against a binary;
  this is not a prediction of what the concretizer will choose;
- `differs`: the nearest held binary (fewest differences that block reuse, then fewest in all; among those,
  one of the wanted target's family, then one whose target the wanted target runs, then tag and hash order)
  and exactly what differs;
- `absent`: no binary of the package is held; `external`: an external in the wanted spec.

Differences are named as `spack diff` names its facts. A dependency that differs is said once, where it
differs; its dependents carry one `depends_on` pointing to it (or one `external` naming it, where one side's
dependency is an external and the other's is built). What a source cannot tell (site documents record no
dependencies, package hash, namespace or flags) is a difference with `cached` None, never equal, so nothing
held only by site documents is `reusable`.

Candidates are one package's slice of the corpus, scored column by column with numpy; the exact
differences are then worked out for the nearest alone. Each package's columns are prepared once, and each
distinct question (what a node is, which binaries match its dependencies) scored once, so the cost follows
what is asked, and every walk of the wanted DAG is one walk, whatever its shape (cycles, thousands of roots).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from cachetui.core.model.corpus import BUILD_PROVENANCE, RAW_VARIANTS, Corpus
from cachetui.core.model.records import BUILD_PROVENANCE_SEPARATOR, Dependency, build_provenance_parts
from cachetui.core.model.wanted import LINK_RUN, WantedDag, WantedNode
from cachetui.core.spack.diff_categories import CATEGORIES, NODE_CATEGORIES, PROVENANCE_CATEGORIES
from cachetui.core.spack.hashes import short_hash
from cachetui.core.spack.targets import known, runs_on, target_family
from cachetui.core.spack.variants import atom_name, canonical_variant
from cachetui.core.spack.words import counted

HIT, REUSABLE, DIFFERS, ABSENT, EXTERNAL = "hit", "reusable", "differs", "absent", "external"
STATUSES = (HIT, REUSABLE, DIFFERS, ABSENT, EXTERNAL)
NOT_A_PREDICTION = ("`reusable`: a cached binary differing only in build provenance, which Spack's concretizer "
                    "with reuse does not hold against it; not a prediction of what the concretizer will choose")


@dataclass(frozen=True, slots=True)
class Difference:
    category: str  # one of CATEGORIES
    name: str | None  # the variant, flag or dependency; None for a category that names nothing more
    wanted: str | None
    cached: str | None  # None: the source cannot tell (never read as equal); "" where the binary has none

    @property
    def blocks_reuse(self) -> bool:
        return self.cached is None or self.category not in PROVENANCE_CATEGORIES


@dataclass(frozen=True, slots=True)
class Nearest:
    index: int  # the binary's position in the corpus
    hash: str
    tag: str
    differences: tuple[Difference, ...]


@dataclass(frozen=True, slots=True)
class NodeCoverage:
    hash: str
    package: str
    version: str
    root: bool
    status: str  # one of STATUSES
    tags: tuple[str, ...]  # where a hit is held; () otherwise
    nearest: Nearest | None  # for `reusable` and `differs`


@dataclass(frozen=True, slots=True)
class RootCoverage:
    hash: str
    package: str
    version: str
    installable: bool  # every node of its link/run closure is a hit or an external


@dataclass(frozen=True)
class Coverage:
    wanted: WantedDag
    nodes: tuple[NodeCoverage, ...]  # in the wanted DAG's order: roots first
    roots: tuple[RootCoverage, ...]

    @cached_property
    def counts(self) -> dict[str, int]:
        found = Counter(node.status for node in self.nodes)
        return {status: found[status] for status in STATUSES}

    @property
    def complete(self) -> bool:
        """Every node a hit or an external: the caches alone install everything wanted."""
        return all(node.status in (HIT, EXTERNAL) for node in self.nodes)

    def summary(self) -> str:
        """`81 specs: 63 hit, 2 reusable, 10 differ, 2 absent, 4 external`."""
        c = self.counts
        return (f"{counted(len(self.nodes), 'spec')}: {c[HIT]} hit, {c[REUSABLE]} reusable, "
                f"{counted(c[DIFFERS], 'differs', 'differ')}, {c[ABSENT]} absent, {c[EXTERNAL]} external")


def coverage(corpus: Corpus, wanted: WantedDag) -> Coverage:
    """Every wanted node's status, and for a node that is not held its nearest binary and what differs."""
    decided = _Comparison(corpus, wanted).run()
    roots = set(wanted.roots)
    nodes = tuple(replace(decided[h], root=True) if h in roots else decided[h] for h in wanted.order())
    blocked = wanted.needing(n.hash for n in nodes if n.status not in (HIT, EXTERNAL))
    root_lines = tuple(RootCoverage(h, wanted.nodes[h].name, wanted.nodes[h].version, h not in blocked)
                       for h in wanted.roots)
    return Coverage(wanted, nodes, root_lines)


def reference(package: str, version: str, hash_: str) -> str:
    """A node as a `depends_on` difference names it: `zlib@1.3.1/abcdefg`."""
    return f"{package}@{version}/{short_hash(hash_)}" if version else f"{package}/{short_hash(hash_)}"


@dataclass(frozen=True, slots=True)
class _Package:
    """What scoring one package's binaries takes that no wanted node changes, worked out once per package: a
    lockfile of 50,000 nodes asks about a few thousand packages, many times each."""

    window: slice
    variants: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]  # distinct, inverse,
    # lengths, owner, and each distinct variant in one spelling
    dep_owner: np.ndarray  # per link/run edge of the window's binaries: whose it is
    dep_hash: np.ndarray  # per link/run edge: the dependency's dep_hash id
    held_deps: np.ndarray  # per binary: how many link/run edges it has
    recorded: np.ndarray  # per binary: whether its source records dependencies
    provenance: tuple[np.ndarray, np.ndarray, tuple[str, ...]]  # distinct, inverse, values
    targets: tuple[np.ndarray, np.ndarray]  # distinct target ids, inverse
    order: np.ndarray  # per binary: its rank in tag order, then hash order (the last tie-break)


_Key = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class _Nearest:
    """One answer of `_nearest_for`: alike for every wanted node of the same key."""

    index: int
    matches: frozenset[int]  # dep_hash ids of the binaries with no difference blocking reuse
    differences: tuple[Difference, ...]  # but the dependencies' (which name the wanted node's own edges)


class _Comparison:
    """One comparison: nodes decided dependencies first, so a dependent knows which held binaries match each.

    What scoring a node finds depends only on what it is (name, version, arch, compiler, variants, build
    provenance) and on which held binaries match its dependencies, so it is worked out once per distinct such
    key, and what a package's binaries are, once per package: the comparison costs the distinct questions
    asked, never wanted nodes x binaries."""

    def __init__(self, corpus: Corpus, wanted: WantedDag) -> None:
        self.corpus, self.wanted = corpus, wanted
        self.decided: dict[str, NodeCoverage] = {}
        # Per wanted node: the dep_hash ids of held binaries that are it (its own hash) or reusable matches for it.
        self.matches: dict[str, frozenset[int]] = {}
        self.tag_rank = {corpus.vocab["tag"].ids[t]: r for r, t in enumerate(corpus.tags)}
        self.packages: dict[str, _Package] = {}
        self.answers: dict[_Key, _Nearest] = {}
        self.held_edges: dict[int, dict[str, Dependency]] = {}

    def run(self) -> dict[str, NodeCoverage]:
        for hash_ in self._dependencies_first():
            self.decided[hash_] = self._decide(self.wanted.nodes[hash_])
        return self.decided

    def _dependencies_first(self) -> list[str]:
        """Post-order over every node; an edge back into the current path (a cycle, warned of on reading) is cut."""
        done: dict[str, None] = {}
        on_path: set[str] = set()
        nodes = self.wanted.nodes
        for start in nodes:
            if start in done:
                continue
            stack = [(start, iter(nodes[start].edges))]
            on_path.add(start)
            while stack:
                hash_, edges = stack[-1]
                edge = next(edges, None)
                if edge is None:
                    stack.pop()
                    on_path.discard(hash_)
                    done[hash_] = None
                elif edge.hash in nodes and edge.hash not in done and edge.hash not in on_path:
                    on_path.add(edge.hash)
                    stack.append((edge.hash, iter(nodes[edge.hash].edges)))
        return list(done)

    def _decide(self, node: WantedNode) -> NodeCoverage:
        corpus = self.corpus
        own = corpus.vocab["dep_hash"].ids.get(node.hash)
        mine = frozenset((own,)) if own is not None and not self.wanted.old_hashes else frozenset()
        if node.external:
            self.matches[node.hash] = mine | self._externals_like(node)
            return self._node(node, EXTERNAL)
        self.matches[node.hash] = mine
        if not self.wanted.old_hashes and corpus.occurrences(node.hash):
            return self._node(node, HIT, tuple(corpus.tags_of_hash(node.hash)))
        if node.name not in corpus.package_index:
            return self._node(node, ABSENT)
        found = self._nearest_for(node)
        self.matches[node.hash] = mine | found.matches
        differences = tuple(sorted((*found.differences, *self._dependency_differences(node, found.index)),
                                   key=_difference_order))
        status = DIFFERS if any(d.blocks_reuse for d in differences) else REUSABLE
        tag = corpus.value("tag", corpus.single["tag"][found.index])
        return self._node(node, status, (), Nearest(found.index, corpus.hashes[found.index], tag, differences))

    def _nearest_for(self, node: WantedNode) -> _Nearest:
        package = self._package(node.name)
        wanted_deps = node.dependencies
        accepted = frozenset(m for e in wanted_deps for m in self.matches.get(e.hash, ()))
        # Everything the scores read of the node, its own values by the same categories `_scores` compares.
        key = (node.name, *(getattr(node, field) for field in NODE_CATEGORIES), node.variants,
               node.build_provenance, len(wanted_deps), accepted if package.dep_hash.size else None)
        found = self.answers.get(key)
        if found is None:
            blocking, total = self._scores(node, package, accepted)
            dep_hash, start = self.corpus.vocab["dep_hash"].ids, package.window.start
            matches = (dep_hash.get(self.corpus.hashes[start + i]) for i in np.flatnonzero(blocking == 0).tolist())
            best = self._nearest(node, package, blocking, total)
            found = self.answers[key] = _Nearest(best, frozenset(m for m in matches if m is not None),
                                                 self._own_differences(node, best))
        return found

    def _externals_like(self, node: WantedNode) -> frozenset[int]:
        """The externals of this name and version the indexes record: a binary linked to one was built against
        what the wanted external is (whatever hash each side gave it)."""
        d, vocab = self.corpus.deps, self.corpus.vocab
        name, version = vocab["dep_name"].ids.get(node.name, -1), vocab["dep_version"].ids.get(node.version, -1)
        return frozenset(np.flatnonzero(d.external & (d.name_of == name) & (d.version_of == version)).tolist())

    @staticmethod
    def _node(node: WantedNode, status: str, tags: tuple[str, ...] = (),
              nearest: Nearest | None = None) -> NodeCoverage:
        return NodeCoverage(node.hash, node.name, node.version, False, status, tags, nearest)

    # -- scoring every candidate of the package at once -----------------------------------------------------

    def _package(self, name: str) -> _Package:
        found = self.packages.get(name)
        if found is not None:
            return found
        c = self.corpus
        window = c.package_slice(name)
        start, stop = window.start, window.stop
        column = c.multi[RAW_VARIANTS]
        lo, hi = int(column.offsets[start]), int(column.offsets[stop])
        # Compared in one spelling (`k:=v` is `k=v`), once per distinct variant string of the package.
        distinct, inverse = np.unique(column.flat[lo:hi], return_inverse=True)
        values = c.vocab[RAW_VARIANTS].values
        lengths = np.diff(column.offsets[start : stop + 1])
        variants = (distinct, inverse, lengths, np.repeat(np.arange(stop - start), lengths),
                    tuple(canonical_variant(values[i]) for i in distinct.tolist()))
        d = c.deps
        lo, hi = int(d.offsets[start]), int(d.offsets[stop])
        owner = np.repeat(np.arange(stop - start), np.diff(d.offsets[start : stop + 1]))
        link_run = (d.types[lo:hi] & LINK_RUN) != 0
        recorded = np.asarray(c.dependencies_recorded[window], dtype=bool)
        tag_rank = np.array([self.tag_rank[int(t)] for t in c.single["tag"][window].tolist()], dtype=np.int64)
        hashes = np.array([c.hashes[i] for i in range(start, stop)], dtype=object)
        order = np.empty(stop - start, dtype=np.int64)
        order[np.lexsort((hashes, tag_rank))] = np.arange(stop - start)
        provenance = np.unique(c.build_provenance[window], return_inverse=True)
        targets = np.unique(c.single["target"][window], return_inverse=True)
        found = self.packages[name] = _Package(
            window, variants, owner[link_run], d.hash[lo:hi][link_run],
            np.bincount(owner[link_run], minlength=stop - start), recorded,
            (*provenance, tuple(c.vocab[BUILD_PROVENANCE].values[v] for v in provenance[0].tolist())),
            targets, order)
        return found

    def _scores(self, node: WantedNode, package: _Package, accepted: frozenset[int]) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate binary: (differences that block reuse, differences in all), counted column-wise."""
        c, window = self.corpus, package.window
        blocking = np.zeros(window.stop - window.start, dtype=np.int64)
        for facet in NODE_CATEGORIES:  # the node's own values, each a facet of the corpus
            blocking += c.single[facet][window] != c.vocab[facet].ids.get(getattr(node, facet), -1)
        blocking += self._variant_scores(node, package)
        blocking += np.where(package.recorded, self._dependency_scores(node, package, accepted),
                             len(node.dependencies))
        provenance = self._provenance_scores(node, package)
        blocking += provenance[0]
        return blocking, blocking + provenance[1]

    @staticmethod
    def _variant_scores(node: WantedNode, package: _Package) -> np.ndarray:
        distinct, inverse, lengths, owner, spelled = package.variants
        wanted = {canonical_variant(v) for v in node.variants}
        same = np.fromiter((v in wanted for v in spelled), dtype=bool, count=len(distinct))
        matched = np.bincount(owner[same[inverse]], minlength=len(lengths))
        return np.maximum(lengths - matched, len(node.variants) - matched)

    @staticmethod
    def _dependency_scores(node: WantedNode, package: _Package, accepted: frozenset[int]) -> np.ndarray:
        wanted = len(node.dependencies)
        if not accepted:
            return np.maximum(package.held_deps, wanted)
        hit = np.isin(package.dep_hash, np.fromiter(accepted, dtype=np.int64, count=len(accepted)))
        matched = np.bincount(package.dep_owner[hit], minlength=len(package.held_deps))
        return np.maximum(package.held_deps - matched, wanted - matched)

    @staticmethod
    def _provenance_scores(node: WantedNode, package: _Package) -> tuple[np.ndarray, np.ndarray]:
        """(blocking, not blocking): flags block reuse; package hash and namespace do not, unless unknown.
        Compared once per distinct provenance of the package's binaries (a handful: one per build)."""
        distinct, inverse, values = package.provenance
        blocking, other = np.zeros(len(distinct), dtype=np.int64), np.zeros(len(distinct), dtype=np.int64)
        package_hash, namespace, flags = node.build_provenance.split(BUILD_PROVENANCE_SEPARATOR, 2)
        for k, value in enumerate(values):
            if not value:  # the source records none
                blocking[k] = len(_UNKNOWN_PROVENANCE)
                continue
            held_hash, held_namespace, held_flags = value.split(BUILD_PROVENANCE_SEPARATOR, 2)
            blocking[k] = held_flags != flags
            other[k] = (held_hash != package_hash) + (held_namespace != namespace)
        return blocking[inverse], other[inverse]

    def _nearest(self, node: WantedNode, package: _Package, blocking: np.ndarray, total: np.ndarray) -> int:
        """Fewest differences blocking reuse, then fewest in all; among those, a binary of the wanted target's
        family (x86_64, aarch64, ppc64le…), then one whose target the wanted target runs, then tag order,
        then hash order."""
        best = np.flatnonzero(blocking == blocking.min())
        best = best[total[best] == total[best].min()]
        if len(best) > 1:
            distinct, inverse = package.targets
            family = target_family(node.target)
            values = self.corpus.vocab["target"].values
            other_family = np.array([family is None or target_family(values[t]) != family
                                     for t in distinct.tolist()], dtype=np.int64)
            runs_here = known(node.target)  # a wanted target archspec does not know runs nothing it can name
            cannot_run = np.array([not (runs_here and runs_on(values[t], node.target)) for t in distinct.tolist()],
                                  dtype=np.int64)
            n = len(blocking)
            rank = (other_family[inverse[best]] * 2 + cannot_run[inverse[best]]) * n + package.order[best]
            return package.window.start + int(best[np.argmin(rank)])
        return package.window.start + int(best[0])

    # -- what differs, exactly, for the nearest ---------------------------------------------------------------

    def _own_differences(self, node: WantedNode, i: int) -> tuple[Difference, ...]:
        """What differs between the node and binary i, but its dependencies (`_dependency_differences`)."""
        spec = self.corpus.spec(i)
        found = [Difference(category, None, getattr(node, field), getattr(spec, field))
                 for field, category in NODE_CATEGORIES.items() if getattr(node, field) != getattr(spec, field)]
        found += _variant_differences(node.variants, self.corpus.raw_variants(i))
        found += _provenance_differences(build_provenance_parts(node.build_provenance),
                                         self.corpus.build_provenance_of(i))
        return tuple(found)

    def _dependency_differences(self, node: WantedNode, i: int) -> list[Difference]:
        nodes = self.wanted.nodes
        wanted = {e.name: e for e in node.dependencies}

        def wanted_reference(name: str) -> str:
            edge = wanted[name]
            target = nodes.get(edge.hash)
            return reference(name, target.version if target else "", edge.hash)

        if not self.corpus.dependencies_recorded[i]:
            return [Difference("depends_on", name, wanted_reference(name), None) for name in sorted(wanted)]
        dep_hash = self.corpus.vocab["dep_hash"].ids
        held = self.held_edges.get(i)
        if held is None:
            held = self.held_edges[i] = {e.name: e for e in self.corpus.dependencies(i) if e.deptypes & LINK_RUN}
        found = []
        for name in sorted(wanted.keys() | held.keys()):
            edge, binary = wanted.get(name), held.get(name)
            if edge is not None and binary is not None and dep_hash.get(binary.hash) in self.matches.get(edge.hash, ()):
                continue
            target = nodes.get(edge.hash) if edge is not None else None
            if target is not None and binary is not None and target.external != self.corpus.is_external(binary.hash):
                found.append(Difference("external", name, str(target.external).lower(),
                                        str(not target.external).lower()))  # an external against a built one
                continue
            found.append(Difference("depends_on", name, wanted_reference(name) if edge else "",
                                    reference(name, binary.version, binary.hash) if binary else ""))
        return found


_UNKNOWN_PROVENANCE = ("node_flag", "package_hash", "namespace")  # what a source without provenance cannot tell
_CATEGORY_RANK = {category: rank for rank, category in enumerate(CATEGORIES)}


def _difference_order(d: Difference) -> tuple[int, str]:
    return _CATEGORY_RANK[d.category], d.name or ""


def _variant_differences(wanted: tuple[str, ...], cached: tuple[str, ...]) -> list[Difference]:
    """One difference per variant whose value differs (patches too); "" where one side lacks the variant."""
    # Keyed and compared in one spelling (`cuda_arch:=80` is `cuda_arch=80`), said as each side wrote it.
    ours = {atom_name(canonical_variant(v)): v for v in wanted}
    theirs = {atom_name(canonical_variant(v)): v for v in cached}
    return [Difference("variant_value", name, ours.get(name, ""), theirs.get(name, ""))
            for name in sorted(ours.keys() | theirs.keys())
            if canonical_variant(ours.get(name, "")) != canonical_variant(theirs.get(name, ""))]


def _provenance_differences(wanted: tuple[str, str, tuple[str, ...]] | None,
                            cached: tuple[str, str, tuple[str, ...]] | None) -> list[Difference]:
    """Flags, package hash and namespace; each a difference with `cached` None when the source records none."""
    package_hash, namespace, flags = wanted or ("", "", ())
    if cached is None:
        wanted_parts = {"node_flag": " ".join(flags), "package_hash": package_hash, "namespace": namespace}
        return [Difference(category, None, wanted_parts[category], None) for category in _UNKNOWN_PROVENANCE]
    ours, theirs = {atom_name(f): f for f in flags}, {atom_name(f): f for f in cached[2]}
    found = [Difference("node_flag", name, ours.get(name, ""), theirs.get(name, ""))
             for name in sorted(ours.keys() | theirs.keys()) if ours.get(name) != theirs.get(name)]
    found += [Difference(category, None, w, h) for category, w, h in (
        ("package_hash", package_hash, cached[0]), ("namespace", namespace, cached[1])) if w != h]
    return found
