"""What a user wants installed (a lockfile, specfiles, an install database): a DAG of concrete nodes.

The load layer reads it (`cachetui.core.load.read_wanted`); a query compares it with a Corpus
(`cachetui.core.query.coverage`). Nodes are keyed by the hash their file gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
    # The link/run edges, but the compiler's (its compiler is compared as the node's, never as an edge); made
    # once, since every comparison of the node asks for them.
    dependencies: tuple[WantedEdge, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dependencies",
                           tuple(e for e in self.edges if e.link_run and e.hash != self.compiler_edge))


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

    def needing(self, hashes: Iterable[str]) -> set[str]:
        """The nodes whose link/run closure (what installing one needs at run time) holds any of `hashes`:
        those nodes and everything that reaches one through link/run edges, in one walk of the reversed edges
        (each root's closure walked on its own costs roots x nodes: 8,000 roots over one chain)."""
        dependents: dict[str, list[str]] = {}
        for node in self.nodes.values():
            for edge in node.dependencies:
                dependents.setdefault(edge.hash, []).append(node.hash)
        found = self._reached(hashes, lambda node: dependents.get(node.hash, ()))
        return set(found)

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


class MixedHashes(ValueError):
    """WANTED files keyed by different hash generations cannot be one DAG (an old hash is never a hit)."""


def merged(dags: Sequence[WantedDag]) -> WantedDag:
    """Several WANTED files as one DAG: a hash names one concrete spec, so a node two files share is one node
    (shown and counted once); the roots of each file in turn. Files keyed by old hashes (lockfile v1-3) and
    files keyed by today's cannot be merged honestly: `old_hashes` is one flag for the whole DAG."""
    if len(dags) == 1:
        return dags[0]
    if len({dag.old_hashes for dag in dags}) > 1:
        old = ", ".join(dag.label for dag in dags if dag.old_hashes)
        raise MixedHashes(f"{old}: keyed by hashes of Spack 0.17 and older, which the other WANTED files are not; "
                          "name them in separate runs")
    nodes: dict[str, WantedNode] = {}
    for dag in dags:
        nodes |= {h: node for h, node in dag.nodes.items() if h not in nodes}
    return WantedDag(" + ".join(dag.label for dag in dags), ", ".join(dict.fromkeys(dag.kind for dag in dags)),
                     nodes, tuple(dict.fromkeys(h for dag in dags for h in dag.roots)), dags[0].old_hashes,
                     [problem for dag in dags for problem in dag.problems])
