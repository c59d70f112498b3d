"""Why isn't my spec in the cache? Each wanted node against the binaries a Corpus holds: one rule.

`coverage(corpus, wanted)` decides every node's status and differences; the CLI's `coverage` command
and the browser both show what it returns, so they cannot disagree.

- `hit`: the node's exact hash is held (in these tags);
- `reusable`: a held binary of the package differs only in build provenance (package hash, namespace,
  build-only dependencies), its link/run dependencies being the wanted ones or themselves reusable
  matches for them. Spack's concretizer with `reuse` does not hold such differences against a binary;
  this is not a prediction of what the concretizer will choose;
- `differs`: the nearest held binary (fewest differences that block reuse, then fewest in all, then
  tag and hash order) and exactly what differs;
- `absent`: no binary of the package is held; `external`: an external in the wanted spec.

Differences are named as `spack diff` names its facts. A dependency that differs is said once, where it
differs; its dependents carry one `depends_on` pointing to it (or one `external` naming it, where one side's
dependency is an external and the other's is built). What a source cannot tell (site documents record no
dependencies, package hash, namespace or flags) is a difference with `cached` None, never equal, so nothing
held only by site documents is `reusable`.

Candidates are one package's slice of the corpus, scored column by column with numpy; the exact
differences are then worked out for the nearest alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from cachetui.core.model.corpus import BUILD_PROVENANCE, RAW_VARIANTS, Corpus
from cachetui.core.model.records import BUILD_PROVENANCE_SEPARATOR, build_provenance_parts
from cachetui.core.model.wanted import LINK_RUN, WantedDag, WantedNode
from cachetui.core.spack.hashes import short_hash
from cachetui.core.spack.variants import atom_name, canonical_variant
from cachetui.core.spack.words import counted

HIT, REUSABLE, DIFFERS, ABSENT, EXTERNAL = "hit", "reusable", "differs", "absent", "external"
STATUSES = (HIT, REUSABLE, DIFFERS, ABSENT, EXTERNAL)
# `spack diff`'s names (cmd/diff.py). The last two are build provenance: they alone never block reuse.
CATEGORIES = ("version", "variant_value", "node_platform", "node_os", "node_target", "node_flag",
              "node_compiler_version", "depends_on", "external", "package_hash", "namespace")
PROVENANCE_CATEGORIES = frozenset({"package_hash", "namespace"})
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
    nodes = tuple(replace(decided[h], root=h in roots) for h in wanted.order())
    by_hash = {n.hash: n for n in nodes}
    root_lines = tuple(
        RootCoverage(h, wanted.nodes[h].name, wanted.nodes[h].version,
                     all(by_hash[k].status in (HIT, EXTERNAL) for k in wanted.link_run_closure(h)))
        for h in wanted.roots)
    return Coverage(wanted, nodes, root_lines)


def reference(package: str, version: str, hash_: str) -> str:
    """A node as a `depends_on` difference names it: `zlib@1.3.1/abcdefg`."""
    return f"{package}@{version}/{short_hash(hash_)}" if version else f"{package}/{short_hash(hash_)}"


class _Comparison:
    """One comparison: nodes decided dependencies first, so a dependent knows which held binaries match each."""

    def __init__(self, corpus: Corpus, wanted: WantedDag) -> None:
        self.corpus, self.wanted = corpus, wanted
        self.decided: dict[str, NodeCoverage] = {}
        # Per wanted node: the dep_hash ids of held binaries that are it (its own hash) or reusable matches for it.
        self.matches: dict[str, set[int]] = {}
        self.tag_rank = {corpus.vocab["tag"].ids[t]: r for r, t in enumerate(corpus.tags)}

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
        self.matches[node.hash] = {own} if own is not None and not self.wanted.old_hashes else set()
        if node.external:
            self.matches[node.hash] |= self._externals_like(node)
            return self._node(node, EXTERNAL)
        if not self.wanted.old_hashes and corpus.occurrences(node.hash):
            return self._node(node, HIT, tuple(corpus.tags_of_hash(node.hash)))
        if node.name not in corpus.package_index:
            return self._node(node, ABSENT)
        window = corpus.package_slice(node.name)
        blocking, total = self._scores(node, window)
        dep_hash = corpus.vocab["dep_hash"].ids
        for i in np.flatnonzero(blocking == 0).tolist():
            found = dep_hash.get(corpus.hashes[window.start + i])
            if found is not None:
                self.matches[node.hash].add(found)
        best = self._nearest(window, blocking, total)
        differences = self._differences(node, best)
        status = DIFFERS if any(d.blocks_reuse for d in differences) else REUSABLE
        tag = corpus.value("tag", corpus.single["tag"][best])
        return self._node(node, status, (), Nearest(best, corpus.hashes[best], tag, differences))

    def _externals_like(self, node: WantedNode) -> set[int]:
        """The externals of this name and version the indexes record: a binary linked to one was built against
        what the wanted external is (whatever hash each side gave it)."""
        d, vocab = self.corpus.deps, self.corpus.vocab
        name, version = vocab["dep_name"].ids.get(node.name, -1), vocab["dep_version"].ids.get(node.version, -1)
        return set(np.flatnonzero(d.external & (d.name_of == name) & (d.version_of == version)).tolist())

    @staticmethod
    def _node(node: WantedNode, status: str, tags: tuple[str, ...] = (),
              nearest: Nearest | None = None) -> NodeCoverage:
        return NodeCoverage(node.hash, node.name, node.version, False, status, tags, nearest)

    # -- scoring every candidate of the package at once -----------------------------------------------------

    def _scores(self, node: WantedNode, window: slice) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate binary: (differences that block reuse, differences in all), counted column-wise."""
        c, start, stop = self.corpus, window.start, window.stop
        n = stop - start
        blocking = np.zeros(n, dtype=np.int64)
        for facet, value in (("version", node.version), ("platform", node.platform), ("os", node.os),
                             ("target", node.target), ("compiler", node.compiler)):
            blocking += c.single[facet][window] != c.vocab[facet].ids.get(value, -1)
        blocking += self._variant_scores(node, start, stop)
        known_deps = c.dependencies_recorded[window]
        blocking += np.where(known_deps, self._dependency_scores(node, start, stop), len(node.dependencies))
        provenance = self._provenance_scores(node, window)
        blocking += provenance[0]
        return blocking, blocking + provenance[1]

    def _variant_scores(self, node: WantedNode, start: int, stop: int) -> np.ndarray:
        column, values = self.corpus.multi[RAW_VARIANTS], self.corpus.vocab[RAW_VARIANTS].values
        lo, hi = int(column.offsets[start]), int(column.offsets[stop])
        # Compared in one spelling (`k:=v` is `k=v`), once per distinct variant string of the package.
        wanted = {canonical_variant(v) for v in node.variants}
        distinct, inverse = np.unique(column.flat[lo:hi], return_inverse=True)
        same = np.fromiter((canonical_variant(values[i]) in wanted for i in distinct.tolist()), dtype=bool,
                           count=len(distinct))
        lengths = np.diff(column.offsets[start : stop + 1])
        owner = np.repeat(np.arange(stop - start), lengths)
        matched = np.bincount(owner[same[inverse]], minlength=stop - start)
        return np.maximum(lengths - matched, len(node.variants) - matched)

    def _dependency_scores(self, node: WantedNode, start: int, stop: int) -> np.ndarray:
        d = self.corpus.deps
        lo, hi = int(d.offsets[start]), int(d.offsets[stop])
        owner = np.repeat(np.arange(stop - start), np.diff(d.offsets[start : stop + 1]))
        link_run = (d.types[lo:hi] & LINK_RUN) != 0
        wanted = node.dependencies
        accepted = np.array(sorted({m for e in wanted for m in self.matches.get(e.hash, ())}), dtype=np.int64)
        matched = np.bincount(owner[link_run & np.isin(d.hash[lo:hi], accepted)], minlength=stop - start)
        held = np.bincount(owner[link_run], minlength=stop - start)
        return np.maximum(held - matched, len(wanted) - matched)

    def _provenance_scores(self, node: WantedNode, window: slice) -> tuple[np.ndarray, np.ndarray]:
        """(blocking, not blocking): flags block reuse; package hash and namespace do not, unless unknown.
        Compared once per distinct provenance of the package's binaries (a handful: one per build)."""
        values = self.corpus.vocab[BUILD_PROVENANCE].values
        distinct, inverse = np.unique(self.corpus.build_provenance[window], return_inverse=True)
        blocking, other = np.zeros(len(distinct), dtype=np.int64), np.zeros(len(distinct), dtype=np.int64)
        package_hash, namespace, flags = node.build_provenance.split(BUILD_PROVENANCE_SEPARATOR, 2)
        for k, value_id in enumerate(distinct.tolist()):
            if not values[value_id]:  # the source records none
                blocking[k] = len(_UNKNOWN_PROVENANCE)
                continue
            held_hash, held_namespace, held_flags = values[value_id].split(BUILD_PROVENANCE_SEPARATOR, 2)
            blocking[k] = held_flags != flags
            other[k] = (held_hash != package_hash) + (held_namespace != namespace)
        return blocking[inverse], other[inverse]

    def _nearest(self, window: slice, blocking: np.ndarray, total: np.ndarray) -> int:
        """Fewest differences blocking reuse, then fewest in all, then tag order, then hash order."""
        best = np.flatnonzero((blocking == blocking.min()))
        best = best[total[best] == total[best].min()]
        c = self.corpus
        return min((window.start + int(i) for i in best),
                   key=lambda i: (self.tag_rank[int(c.single["tag"][i])], c.hashes[i]))

    # -- what differs, exactly, for the nearest ---------------------------------------------------------------

    def _differences(self, node: WantedNode, i: int) -> tuple[Difference, ...]:
        spec = self.corpus.spec(i)
        found = [Difference(category, None, wanted, cached) for category, wanted, cached in (
            ("version", node.version, spec.version), ("node_platform", node.platform, spec.platform),
            ("node_os", node.os, spec.os), ("node_target", node.target, spec.target),
            ("node_compiler_version", node.compiler, spec.compiler)) if wanted != cached]
        found += _variant_differences(node.variants, self.corpus.raw_variants(i))
        found += self._dependency_differences(node, i)
        found += _provenance_differences(build_provenance_parts(node.build_provenance),
                                         self.corpus.build_provenance_of(i))
        order = {category: rank for rank, category in enumerate(CATEGORIES)}
        return tuple(sorted(found, key=lambda d: (order[d.category], d.name or "")))

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
        held = {e.name: e for e in self.corpus.dependencies(i) if e.deptypes & LINK_RUN}
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
