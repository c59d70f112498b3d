"""The browser's coverage view as plain state: the wanted DAG as a tree, each node's status, the status facet.

Everything shown comes from `coverage()` (`core/query/coverage.py`), the rule `cachetui coverage` prints too:
this module only lays its answer out (roots first, a node reached twice shown once in full and then as a
reference) and filters the lines by status. One frozen `CoverageBrowsing`, changed by pure transitions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from cachetui.core.query.coverage import ABSENT, DIFFERS, EXTERNAL, HIT, REUSABLE, STATUSES, Coverage, NodeCoverage

# Each status as a character too, so a terminal without colour (NO_COLOR, a screen reader) reads it.
MARKS = {HIT: "✓", REUSABLE: "≈", DIFFERS: "≠", ABSENT: "✗", EXTERNAL: "⌂"}
MEANINGS = {
    HIT: "its exact hash is held",
    REUSABLE: "held but for build provenance",
    DIFFERS: "nearest binary differs",
    ABSENT: "no binary of the package",
    EXTERNAL: "an external in your spec",
}
FACET_TITLE = "Coverage"


@dataclass(frozen=True, slots=True)
class TreeLine:
    hash: str
    depth: int
    repeated: bool = False  # shown in full above: this line only refers to it
    context: bool = False  # shown only as the path to a node of a status chosen in the facet


def tree_lines(found: Coverage) -> tuple[TreeLine, ...]:
    """Roots first, each node's dependencies under it (every edge, in the file's order); a node met again
    is one reference line. Nodes no root reaches follow at the top level."""
    nodes, lines, seen = found.wanted.nodes, list[TreeLine](), set[str]()
    for start in [*(h for h in found.wanted.roots if h in nodes), *(n.hash for n in found.nodes)]:
        if start in seen:
            continue
        waiting = [(start, 0)]
        while waiting:
            hash_, depth = waiting.pop()
            if hash_ in seen:
                lines.append(TreeLine(hash_, depth, repeated=True))
                continue
            seen.add(hash_)
            lines.append(TreeLine(hash_, depth))
            children = list(dict.fromkeys(e.hash for e in nodes[hash_].edges if e.hash in nodes))
            waiting.extend((child, depth + 1) for child in reversed(children))
    return tuple(lines)


@dataclass(frozen=True)
class CoverageBrowsing:
    label: str = ""  # what the user named with --want
    coverage: Coverage | None = None  # None until the sources are loaded and compared
    chosen: frozenset[str] = frozenset()  # statuses the tree is narrowed to (none: every node)

    @cached_property
    def tree(self) -> tuple[TreeLine, ...]:
        return tree_lines(self.coverage) if self.coverage is not None else ()

    @cached_property
    def nodes(self) -> dict[str, NodeCoverage]:
        return {} if self.coverage is None else {n.hash: n for n in self.coverage.nodes}

    @cached_property
    def counts(self) -> dict[str, int]:
        """The facet's counts: wanted nodes of each status (each node once, however often the tree shows it)."""
        return dict(self.coverage.counts) if self.coverage is not None else dict.fromkeys(STATUSES, 0)

    @cached_property
    def shown(self) -> tuple[TreeLine, ...]:
        """The tree narrowed to the chosen statuses: a line of one of them, with the lines above it on its path."""
        if not self.chosen:
            return self.tree
        keep, path = [False] * len(self.tree), list[int]()  # path: the lines above the current one, by depth
        for i, line in enumerate(self.tree):
            del path[line.depth:]
            if self.nodes[line.hash].status in self.chosen:
                keep[i] = True
                for above in reversed(path):  # a line kept before had the same lines above it kept with it
                    if keep[above]:
                        break
                    keep[above] = True
            path.append(i)
        return tuple(line if self.nodes[line.hash].status in self.chosen else replace(line, context=True)
                     for line, kept in zip(self.tree, keep) if kept)

    def summary(self) -> str:
        """The CLI's summary line (`21 specs: 12 hit, …`), or what is being waited for."""
        return self.coverage.summary() if self.coverage is not None else "comparing with the sources once loaded…"


def compared(state: CoverageBrowsing, found: Coverage) -> CoverageBrowsing:
    """The answer of `coverage()` arrived: the statuses chosen stay chosen."""
    return replace(state, coverage=found)


def status_toggled(state: CoverageBrowsing, status: str) -> CoverageBrowsing:
    return replace(state, chosen=state.chosen ^ {status})
