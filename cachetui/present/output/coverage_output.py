"""`coverage` as a table, JSON or CSV, each through the inert writers (`present/output/writers.py`,
`present/output/table.py`).

JSON is one list, an object per wanted node; CSV one row per difference (a node without one: one row, its
difference cells empty); the table one line per node, those that are not hits first, then `NOT_A_PREDICTION`
when a node is reusable, then the summary line and one line per root. What a source cannot tell is null in
JSON, `cached_known` false in CSV and `?` in the table: never shown as equal. `statuses` keeps only the nodes of
those statuses in every format (the summary and the roots' lines still speak of all); `width`, the terminal's,
fits the table to it with short hashes (None, piped: nothing is cut).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, TextIO

from cachetui.core.query.coverage import (
    HIT,
    NOT_A_PREDICTION,
    REUSABLE,
    Coverage,
    Difference,
    NodeCoverage,
    RootCoverage,
)
from cachetui.core.spack.hashes import short_hash
from cachetui.present.output.table import write_table
from cachetui.present.output.writers import write_csv, write_json, write_lines

FORMATS = ("table", "json", "csv")
# A CSV row is a wanted node's cells, then one difference's (empty when its nearest differs in nothing):
# each column beside what fills it, so the header and the rows cannot fall out of step.
_NODE_CELLS: dict[str, Callable[[NodeCoverage], str]] = {
    "hash": lambda n: n.hash, "package": lambda n: n.package, "version": lambda n: n.version,
    "root": lambda n: str(n.root).lower(), "status": lambda n: n.status, "tags": lambda n: ",".join(n.tags),
    "nearest_hash": lambda n: n.nearest.hash if n.nearest else "",
    "nearest_tag": lambda n: n.nearest.tag if n.nearest else "",
}
_DIFFERENCE_CELLS: dict[str, Callable[[Difference], str]] = {
    "category": lambda d: d.category, "name": lambda d: d.name or "", "wanted": lambda d: d.wanted or "",
    "cached": lambda d: d.cached or "", "cached_known": lambda d: str(d.cached is not None).lower(),
}
CSV_HEADER = (*_NODE_CELLS, *_DIFFERENCE_CELLS)
UNKNOWN = "?"  # what the source cannot tell (never shown as equal): the CLI's table and the browser's details


def node_record(node: NodeCoverage) -> dict[str, Any]:
    """A wanted node as `coverage --format json` prints it."""
    nearest = node.nearest
    return {
        "hash": node.hash, "package": node.package, "version": node.version, "root": node.root,
        "status": node.status, "tags": list(node.tags),
        "nearest": None if nearest is None else {
            "hash": nearest.hash, "tag": nearest.tag,
            "differences": [{"category": d.category, "name": d.name, "wanted": d.wanted, "cached": d.cached}
                            for d in nearest.differences],
        },
    }


def write_coverage(out: TextIO, found: Coverage, fmt: str, *, statuses: Collection[str] | None = None,
                   width: int | None = None) -> None:
    nodes = shown_nodes(found, statuses)
    if fmt == "json":
        write_json(out, [node_record(node) for node in nodes])
    elif fmt == "csv":
        write_csv(out, [CSV_HEADER, *(row for node in nodes for row in _csv_rows(node))])
    else:
        _write_table(out, found, nodes, width)


def shown_nodes(found: Coverage, statuses: Collection[str] | None) -> list[NodeCoverage]:
    """The nodes of `statuses` (None: all), in the answer's order."""
    return [node for node in found.nodes if statuses is None or node.status in statuses]


def write_no_answer(out: TextIO, fmt: str) -> None:
    """`[]` for JSON, the header for CSV: a pipe into jq or a CSV reader never breaks (the table prints nothing)."""
    if fmt == "json":
        write_json(out, [])
    elif fmt == "csv":
        write_csv(out, [CSV_HEADER])


def _csv_rows(node: NodeCoverage) -> list[list[str]]:
    start = [cell(node) for cell in _NODE_CELLS.values()]
    if node.nearest is None or not node.nearest.differences:
        return [[*start, *("" for _ in _DIFFERENCE_CELLS)]]
    return [[*start, *(cell(d) for cell in _DIFFERENCE_CELLS.values())] for d in node.nearest.differences]


def difference_text(d: Difference) -> str:
    """`version 1.0 -> 1.1`, `variant_value shared: +shared -> ~shared`; `?` where the source cannot tell."""
    said = f"{d.category} {d.name}:" if d.name else f"{d.category}:"
    return f"{said} {d.wanted or '(none)'} -> {UNKNOWN if d.cached is None else d.cached or '(none)'}"


def root_line(root: RootCoverage) -> str:
    spec = f"{root.package}@{root.version}/{short_hash(root.hash)}"
    return f"{spec}: {'installable' if root.installable else 'not installable'} from the caches alone"


def _write_table(out: TextIO, found: Coverage, nodes: list[NodeCoverage], width: int | None) -> None:
    """The nodes that are not hits first (what to act on), each group in the answer's order; on a terminal
    (`width`), short hashes and the table fitted to it."""
    shown = short_hash if width is not None else str
    rows = [["status", "spec", "hash", "held in / nearest", "differences"]]
    for node in sorted(nodes, key=lambda node: node.status == HIT):
        nearest = node.nearest
        where = ",".join(node.tags) if nearest is None else f"/{shown(nearest.hash)} ({nearest.tag})"
        differences = "; ".join(map(difference_text, nearest.differences)) if nearest else ""
        rows.append([node.status, f"{node.package}@{node.version}", shown(node.hash), where, differences])
    if nodes:
        write_table(out, rows, width=width, whole=(0, 2))  # the status and the hash are never cut
    tail = [NOT_A_PREDICTION] if any(node.status == REUSABLE for node in nodes) else []
    write_lines(out, [*tail, found.summary(), *map(root_line, found.roots)])
