"""The browser's coverage view as plain state: the wanted DAG as a tree, each node's status, the status facet,
the nodes `/` finds by name.

Everything shown comes from `coverage()` (`core/query/coverage.py`), the rule `cachetui coverage` prints too:
this module only lays its answer out (roots first, a node reached twice shown once in full and then as a
reference), filters the lines by status and finds lines by name. One frozen `CoverageBrowsing`, changed by pure
transitions; how far a deep tree is scrolled sideways to keep the cursor's name in sight is a rule here too.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from cachetui.core.query.coverage import ABSENT, DIFFERS, EXTERNAL, HIT, REUSABLE, STATUSES, Coverage, NodeCoverage
from cachetui.core.query.search import search_packages

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
INDENT = 2  # cells a tree line is indented by per level
_SEPARATORS = str.maketrans("", "", "-_.")


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
    find: str = ""  # what `/` typed: the nodes whose package it names are the matches

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

    @cached_property
    def packages(self) -> tuple[str, ...]:
        """Every wanted package, once each: what a find searches."""
        return tuple(sorted({node.package for node in self.nodes.values()}))

    @cached_property
    def found(self) -> frozenset[str]:
        """The packages the find names (`found_packages`)."""
        return found_packages(self.find, self.packages)

    @cached_property
    def matches(self) -> tuple[int, ...]:
        """The lines shown of a node the find names, in the tree's order; each node once (not its `↑ above` lines)."""
        found = self.found
        if not found:
            return ()
        return tuple(row for row, line in enumerate(self.shown)
                     if not line.repeated and self.nodes[line.hash].package in found)

    def summary(self) -> str:
        """The CLI's summary line (`21 specs: 12 hit, …`), or what is being waited for."""
        return self.coverage.summary() if self.coverage is not None else "comparing with the sources once loaded…"


def compared(state: CoverageBrowsing, found: Coverage) -> CoverageBrowsing:
    """The answer of `coverage()` arrived: the statuses chosen stay chosen."""
    return replace(state, coverage=found)


def status_toggled(state: CoverageBrowsing, status: str) -> CoverageBrowsing:
    return _keeping(state, replace(state, chosen=state.chosen ^ {status}), "tree", "nodes", "counts", "packages")


def find_typed(state: CoverageBrowsing, text: str) -> CoverageBrowsing:
    """The find's text changed (or ended: ""); the tree and its narrowing stay as they are."""
    return _keeping(state, replace(state, find=text), "tree", "nodes", "counts", "packages", "shown")


def _keeping(state: CoverageBrowsing, new: CoverageBrowsing, *names: str) -> CoverageBrowsing:
    """`new`, with what `state` worked out already and the change leaves as it was (a tree of 50,000 lines is
    not laid out again at each key typed)."""
    for name in names:
        if name in state.__dict__:
            new.__dict__[name] = state.__dict__[name]
    return new


def found_packages(text: str, packages: Sequence[str]) -> frozenset[str]:
    """The packages a find names, as the package list's search reads what is typed: those whose name holds the
    text (separators aside: `zlibng` names zlib-ng), else those its fuzzy search ranks best (`ncurss`: ncurses,
    not curl), since Enter goes through every match."""
    typed = text.strip().lower()
    if not typed:
        return frozenset()
    squeezed = typed.translate(_SEPARATORS)
    held = frozenset(p for p in packages if typed in p.lower() or squeezed in p.lower().translate(_SEPARATORS))
    if held:
        return held
    ranked = search_packages(typed, packages)
    return frozenset(match.name for match in ranked if match.score == ranked[0].score)


def next_match(state: CoverageBrowsing, cursor: int, step: int, *, here: bool = False) -> int | None:
    """The line of the next match after `cursor` (the one before it, for a negative `step`), round the ends of the
    tree as `less` goes round; `here`: the cursor's own line is a match too. None: nothing matches."""
    matches = state.matches
    if not matches:
        return None
    if step > 0:
        at = (bisect_left if here else bisect_right)(matches, cursor)
        return matches[at] if at < len(matches) else matches[0]
    at = (bisect_right if here else bisect_left)(matches, cursor)
    return matches[at - 1] if at > 0 else matches[-1]


def match_said(state: CoverageBrowsing, cursor: int) -> str:
    """How the find stands: `2 of 5` on a match, `5 matches` elsewhere, `no match`."""
    matches = state.matches
    if not matches:
        return "no match" if state.find.strip() else ""
    at = bisect_left(matches, cursor)
    if at < len(matches) and matches[at] == cursor:
        return f"{at + 1} of {len(matches)}"
    return f"{len(matches)} match" + ("" if len(matches) == 1 else "es")


def sideways(offset: int, depth: int, label: int, width: int) -> int:
    """How far the tree is scrolled sideways once the cursor rests on a line at `depth` whose mark and name take
    `label` cells, in a pane `width` cells wide: as it was while that name shows whole (a cut line keeps a cell
    for its `‹`), else with the line's indent a quarter of the way in (whole levels), so a node 31 levels deep
    keeps its name in sight at 80 columns, and lines near it keep theirs."""
    indent, width = INDENT * depth, max(1, width)
    need = max(1, min(label, width * 3 // 4 - 1))  # a name wider than the pane shows its start
    left = offset + (1 if offset else 0)
    if left <= indent and indent + need <= offset + width - 1:
        return offset
    return max(0, indent - (width // 4) // INDENT * INDENT)
