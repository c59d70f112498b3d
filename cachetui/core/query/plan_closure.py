"""Whether a binary's whole link/run closure is in the sources, each dependency meeting its own package's
requirements: the rule `installable` follows (cachetui.core.model.installable), with a failed requirement counted
as a hole too.

A hole is a record no loaded source holds (externals aside: Spack uses them where they are, and never installs
what they depend on), a held binary that fails its package's rules, or an edge providing a virtual with a binary
the virtual's rules exclude. Only what the candidates of a plan reach is walked, over the corpus's own dependency
columns (no graph of the whole corpus is built): down from every candidate at once, a level at a time in numpy,
then back up from the holes found, so each candidate's verdict costs its share of one walk. The closures of the
binaries a plan chooses and finds incomplete are then walked again, together, to say what is missing and what
fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat

import numpy as np

from cachetui.core.model.arrays import expand_ranges
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.dependencies import RUNTIME
from cachetui.core.model.environment import Rule
from cachetui.core.query.plan_rules import Requirements

HOLES_AT_ONCE = 64  # closures walked together to say their holes (a bool per dependency each)


@dataclass(frozen=True, slots=True)
class Holes:
    """What keeps one binary's closure from the caches alone."""

    missing: tuple[str, ...]  # hashes of records no loaded source holds
    failing: tuple[int, ...]  # held dependencies (specs, in corpus order) that fail their rules
    virtual: dict[int, tuple[Rule, ...]]  # of those, the ones failing a virtual's rule an edge asks of them


@dataclass(frozen=True, slots=True)
class _Edges:
    """Edges found by one step of a walk: for each, the position of its source among the nodes expanded."""

    source: np.ndarray
    target: np.ndarray  # dep_hash ids
    virtual_hole: np.ndarray  # provides a virtual with a binary the virtual's rules exclude


class Closures:
    """The closures of a corpus's binaries under one environment's rules (see the module)."""

    def __init__(self, corpus: Corpus, requirements: Requirements) -> None:
        self.corpus, self.requirements = corpus, requirements
        d = corpus.deps
        ids = corpus.vocab["dep_hash"].ids
        id_of_spec = np.fromiter(map(ids.get, corpus.hashes, repeat(-1)), dtype=np.int64, count=corpus.n_specs)
        self.spec_of_id = np.full(len(d.name_of), -1, dtype=np.int64)  # a binary holding each dependency, or -1
        named = id_of_spec >= 0
        self.spec_of_id[id_of_spec[named]] = np.flatnonzero(named)
        held = self.spec_of_id >= 0
        self.external = np.asarray(d.external, dtype=bool)
        self.missing = ~held & ~self.external
        meets = requirements.meets()
        self.failing = held & ~self.external & ~meets[np.maximum(self.spec_of_id, 0)]
        self.virtual_rules = requirements.virtual_rules()
        self.reaches_hole = np.zeros(len(d.name_of), dtype=bool)  # for dependencies walked by `verdicts`

    def recorded(self, spec: int) -> bool:
        """Whether binary `spec`'s source records its dependencies (site documents do not)."""
        return bool(self.corpus.dependencies_recorded[spec])

    # -- every candidate at once ----------------------------------------------------------------------------

    def complete(self, specs: np.ndarray) -> np.ndarray:
        """Per binary of `specs`: its closure is all held (or external) and meets its rules, its dependencies
        recorded. One walk down from them all, then back up from the holes it meets."""
        specs = np.asarray(specs, dtype=np.int64)
        if not len(specs):
            return np.zeros(0, dtype=bool)
        first = self._from_specs(specs)
        sources, targets = [first.source], [first.target]
        hole_edges = [self._hole(first)]
        seen = np.zeros(len(self.spec_of_id), dtype=bool)
        frontier = np.unique(first.target)
        seen[frontier] = True
        while len(frontier):
            step = self._from_ids(frontier)
            sources.append(len(specs) + frontier[step.source])  # node keys: specs first, then dependencies
            targets.append(step.target)
            hole_edges.append(self._hole(step))
            frontier = np.unique(step.target)
            frontier = frontier[~seen[frontier]]
            seen[frontier] = True
        source, target, hole = (np.concatenate(parts) for parts in (sources, targets, hole_edges))
        tainted = self._upwards(source, target, hole, len(specs), len(self.spec_of_id))
        self.reaches_hole |= tainted[len(specs):]
        recorded = np.asarray(self.corpus.dependencies_recorded[specs], dtype=bool)
        return recorded & ~tainted[: len(specs)]

    def _hole(self, edges: _Edges) -> np.ndarray:
        return self.missing[edges.target] | self.failing[edges.target] | edges.virtual_hole

    @staticmethod
    def _upwards(source: np.ndarray, target: np.ndarray, hole: np.ndarray, n_specs: int, n_ids: int) -> np.ndarray:
        """Node keys (the binaries asked, then the dependencies' ids after them) with a path to a hole edge, walked
        up the edges found (sorted by target once)."""
        tainted = np.zeros(n_specs + n_ids, dtype=bool)
        order = np.argsort(target, kind="stable")
        by_target, sources = target[order], source[order]
        frontier = np.unique(source[hole])
        while len(frontier):
            tainted[frontier] = True
            ids = frontier[frontier >= n_specs] - n_specs  # the binaries asked are no edge's target
            lo, hi = np.searchsorted(by_target, ids, "left"), np.searchsorted(by_target, ids, "right")
            frontier = np.unique(sources[expand_ranges(lo, hi - lo)])
            frontier = frontier[~tainted[frontier]]
        return tainted

    # -- the chosen ones' holes -----------------------------------------------------------------------------

    def holes(self, specs: list[int]) -> list[Holes]:
        """What is missing from each binary's closure and what in it fails its rules (each asked of `complete`
        first): the closures walked down together, only through dependencies that reach a hole."""
        found: list[Holes] = []
        for start in range(0, len(specs), HOLES_AT_ONCE):
            found += self._holes(specs[start : start + HOLES_AT_ONCE])
        return found

    def _holes(self, specs: list[int]) -> list[Holes]:
        n = len(self.spec_of_id)
        seen = np.zeros((len(specs), n), dtype=bool)  # per binary asked, the dependencies of its closure reached
        first = self._from_specs(np.asarray(specs, dtype=np.int64))
        owner, node = first.source, first.target
        virtual = [(first.source[first.virtual_hole], first.target[first.virtual_hole])]
        while len(node):
            fresh = ~seen[owner, node]
            pairs = np.unique(owner[fresh] * n + node[fresh])
            owner, node = pairs // n, pairs % n
            seen[owner, node] = True
            expand = self.reaches_hole[node]  # a dependency that reaches no hole has none below it
            owner, node = owner[expand], node[expand]
            step = self._from_ids(node)
            owner, node = owner[step.source], step.target
            virtual.append((owner[step.virtual_hole], node[step.virtual_hole]))
        hashes = self.corpus.vocab["dep_hash"].values
        virtual_owner, virtual_node = (np.concatenate(parts) for parts in zip(*virtual))
        found = []
        for k in range(len(specs)):
            reached = seen[k]
            missing = tuple(sorted(hashes[i] for i in np.flatnonzero(reached & self.missing).tolist()))
            by_virtual = self.spec_of_id[virtual_node[virtual_owner == k]]
            failing = np.unique(np.concatenate((self.spec_of_id[reached & self.failing], by_virtual)))
            found.append(Holes(missing, tuple(failing.tolist()), self._virtual_rules_failed(np.unique(by_virtual))))
        return found

    def _virtual_rules_failed(self, specs: np.ndarray) -> dict[int, tuple[Rule, ...]]:
        return {spec: tuple(rule for rule, _, holds in self.virtual_rules if not holds[spec])
                for spec in specs.tolist()}

    # -- one step down --------------------------------------------------------------------------------------

    def _from_specs(self, specs: np.ndarray) -> _Edges:
        """The link/run edges of these binaries."""
        d = self.corpus.deps
        starts = d.offsets[specs]
        lengths = d.offsets[specs + 1] - starts
        rows = expand_ranges(starts, lengths)
        source = np.repeat(np.arange(len(specs)), lengths)
        return self._edges(source, d.hash[rows], d.types[rows], d.virtuals[rows])

    def _from_ids(self, ids: np.ndarray) -> _Edges:
        """The link/run edges of these dependencies: a held one's binary's, an unheld record's own; none of an
        external's (Spack does not install what it depends on)."""
        d = self.corpus.deps
        ids = np.asarray(ids, dtype=np.int64)
        spec = self.spec_of_id[ids]
        held = (spec >= 0) & ~self.external[ids]
        unheld = (spec < 0) & ~self.external[ids]
        held_at, unheld_at = np.flatnonzero(held), np.flatnonzero(unheld)
        starts, stops = d.offsets[spec[held_at]], d.offsets[spec[held_at] + 1]
        rows = expand_ranges(starts, stops - starts)
        unheld_starts = d.unheld_offsets[ids[unheld_at]]
        unheld_lengths = d.unheld_offsets[ids[unheld_at] + 1] - unheld_starts
        unheld_rows = expand_ranges(unheld_starts, unheld_lengths)
        source = np.concatenate((np.repeat(held_at, stops - starts), np.repeat(unheld_at, unheld_lengths)))
        return self._edges(source, np.concatenate((d.hash[rows], d.unheld_hash[unheld_rows])),
                           np.concatenate((d.types[rows], d.unheld_types[unheld_rows])),
                           np.concatenate((d.virtuals[rows], d.unheld_virtuals[unheld_rows])))

    def _edges(self, source: np.ndarray, target: np.ndarray, types: np.ndarray, virtuals: np.ndarray) -> _Edges:
        through = (types & RUNTIME) > 0
        source, target, virtuals = source[through], target[through].astype(np.int64), virtuals[through]
        virtual_hole = np.zeros(len(target), dtype=bool)
        for _, virtual_ids, holds in self.virtual_rules:
            spec = self.spec_of_id[target]
            asked = np.isin(virtuals, virtual_ids) & (spec >= 0)
            virtual_hole[asked] |= ~holds[spec[asked]]
        return _Edges(source, target, virtual_hole)
