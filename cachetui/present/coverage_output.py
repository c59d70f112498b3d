"""`coverage` as a table, JSON or CSV, each through the inert writers (`present/writers.py`, `present/table.py`).

JSON is one list, an object per wanted node; CSV one row per difference (a node without one: one row, its
difference cells empty); the table one line per node, then `NOT_A_PREDICTION` when a node is reusable,
then the summary line and one line per root. What a source cannot tell is null in JSON, `cached_known`
false in CSV and `?` in the table: never shown as equal.
"""

from __future__ import annotations

from typing import Any, TextIO

from cachetui.core.query.coverage import NOT_A_PREDICTION, Coverage, Difference, NodeCoverage, RootCoverage
from cachetui.core.spack.hashes import short_hash
from cachetui.present.table import write_table
from cachetui.present.writers import write_csv, write_json, write_lines

FORMATS = ("table", "json", "csv")
CSV_HEADER = ("hash", "package", "version", "root", "status", "tags", "nearest_hash", "nearest_tag",
              "category", "name", "wanted", "cached", "cached_known")
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


def write_coverage(out: TextIO, found: Coverage, fmt: str) -> None:
    if fmt == "json":
        write_json(out, [node_record(node) for node in found.nodes])
    elif fmt == "csv":
        write_csv(out, [CSV_HEADER, *(row for node in found.nodes for row in _csv_rows(node))])
    else:
        _write_table(out, found)


def write_no_answer(out: TextIO, fmt: str) -> None:
    """`[]` for JSON, the header for CSV: a pipe into jq or a CSV reader never breaks (the table prints nothing)."""
    if fmt == "json":
        write_json(out, [])
    elif fmt == "csv":
        write_csv(out, [CSV_HEADER])


def _csv_rows(node: NodeCoverage) -> list[list[str]]:
    nearest = node.nearest
    start = [node.hash, node.package, node.version, str(node.root).lower(), node.status, ",".join(node.tags),
             nearest.hash if nearest else "", nearest.tag if nearest else ""]
    if nearest is None or not nearest.differences:
        return [[*start, "", "", "", "", ""]]
    return [[*start, d.category, d.name or "", d.wanted or "", d.cached or "", str(d.cached is not None).lower()]
            for d in nearest.differences]


def difference_text(d: Difference) -> str:
    """`version 1.0 -> 1.1`, `variant_value shared: +shared -> ~shared`; `?` where the source cannot tell."""
    said = f"{d.category} {d.name}:" if d.name else f"{d.category}:"
    return f"{said} {d.wanted or '(none)'} -> {UNKNOWN if d.cached is None else d.cached or '(none)'}"


def root_line(root: RootCoverage) -> str:
    spec = f"{root.package}@{root.version}/{short_hash(root.hash)}"
    return f"{spec}: {'installable' if root.installable else 'not installable'} from the caches alone"


def _write_table(out: TextIO, found: Coverage) -> None:
    rows = [["status", "spec", "hash", "held in / nearest", "differences"]]
    for node in found.nodes:
        nearest = node.nearest
        where = ",".join(node.tags) if nearest is None else f"/{short_hash(nearest.hash)} ({nearest.tag})"
        differences = "; ".join(map(difference_text, nearest.differences)) if nearest else ""
        rows.append([node.status, f"{node.package}@{node.version}", short_hash(node.hash), where, differences])
    write_table(out, rows)
    tail = [NOT_A_PREDICTION] if found.counts["reusable"] else []
    write_lines(out, [*tail, found.summary(), *map(root_line, found.roots)])
