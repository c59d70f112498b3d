"""What a user wants installed (a lockfile, specfiles, an install database): a DAG of concrete nodes.

The load layer reads it (`cachetui.core.load.read_wanted`); a query compares it with a Corpus
(`cachetui.core.query.coverage`). Nodes are keyed by the hash their file gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from cachetui.core.model.problems import Problem
from cachetui.core.spack.deptypes import DEPTYPES

LINK_RUN = 1 << DEPTYPES.index("link") | 1 << DEPTYPES.index("run")


@dataclass(frozen=True, slots=True)
class WantedEdge:
    name: str  # the dependency's package, as its own node names it (else as the edge does)
    hash: str  # a key of WantedDag.nodes when the file holds that node (else a dangling edge)
    deptypes: int  # bits over DEPTYPES
    virtuals: str  # comma-joined

    @property
    def link_run(self) -> bool:
        """A link or run dependency: what the installed binary uses (a build-only one is build provenance)."""
        return bool(self.deptypes & LINK_RUN)


@dataclass(frozen=True, slots=True)
class WantedNode:
    hash: str
    name: str
    version: str
    platform: str
    os: str
    target: str
    compiler: str  # normalised `gcc@13.2.0`, or `none`: the compiler attribute or the compiler edge alike
    variants: tuple[str, ...]  # as `parameters_variants` renders them (patches too)
    build_provenance: str  # package hash, namespace and flags (`records.provenance_text`)
    external: bool
    edges: tuple[WantedEdge, ...]
    compiler_edge: str = ""  # the hash of the edge that provides the compiler (Spack 1.x); "" for none

    @property
    def dependencies(self) -> tuple[WantedEdge, ...]:
        """The link/run edges, but the compiler's (its compiler is compared as the node's, never as an edge)."""
        return tuple(e for e in self.edges if e.link_run and e.hash != self.compiler_edge)


@dataclass(slots=True)
class WantedDag:
    label: str  # what the user named (a path, or `-` for standard input)
    kind: str  # `lockfile v6`, `specfile`, `install database`…
    nodes: dict[str, WantedNode]
    roots: tuple[str, ...]
    old_hashes: bool = False  # lockfile v1-3: keyed by hashes no build cache uses, so no node can be a hit
    problems: list[Problem] = field(default_factory=list)  # warnings: a root naming another package, a cycle…

    def order(self) -> list[str]:
        """Every node once: the roots, then what they reach depth first, then any node no root reaches."""
        reached = self._reached(self.roots, lambda node: reversed([e.hash for e in node.edges]))
        return list({**dict.fromkeys(h for h in self.roots if h in self.nodes), **reached, **dict.fromkeys(self.nodes)})

    def link_run_closure(self, root: str) -> list[str]:
        """The root and every node it reaches through link/run edges (what installing it needs at run time)."""
        return list(self._reached([root], lambda node: [e.hash for e in node.dependencies]))

    def _reached(self, starts: Iterable[str], next_of: Callable[[WantedNode], Iterable[str]]) -> dict[str, None]:
        """The nodes reached from `starts`, each once, in the order a depth-first walk meets them."""
        found: dict[str, None] = {}
        for start in starts:
            waiting = [start]
            while waiting:
                hash_ = waiting.pop()
                if hash_ not in found and hash_ in self.nodes:
                    found[hash_] = None
                    waiting.extend(next_of(self.nodes[hash_]))
        return found
