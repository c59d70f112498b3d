"""`plan` as a table, JSON or CSV, each through the inert writers; and `--export`'s spack.yaml, written whole.

JSON is one list, an object per root (`plan_record`); CSV one row per root; the table one line per root, then
what `cached` means and what a plan does not model, the platform planned for, and the summary line. `width`, the
terminal's, fits the table to it with short hashes (None, piped: nothing is cut). The export is YAML with every
character outside printable ASCII escaped (so it is inert too), written beside its target and moved into place,
never over an existing file unless asked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import yaml

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.plan import BUILD, CACHED_MEANS, NOT_MODELLED, PARTLY, UNKNOWN, Plan, RootPlan
from cachetui.core.query.plan_export import exported
from cachetui.core.spack.hashes import short_hash
from cachetui.present.inert import inert
from cachetui.present.output.export import ExportExists, write_whole
from cachetui.present.output.table import write_table
from cachetui.present.output.writers import write_csv, write_json, write_lines

FORMATS = ("table", "json", "csv")


def plan_record(root: RootPlan) -> dict[str, Any]:
    """A root as `plan --format json` prints it."""
    binary = root.binary
    return {
        "spec": root.spec, "package": root.package, "status": root.status,
        "binary": None if binary is None else {"hash": binary.hash, "spec": binary.spec, "tag": binary.tag},
        "candidates": root.candidates, "closure": root.closure or None, "missing": list(root.missing),
        "failing": [{"hash": f.hash, "spec": f.spec, "excluded_by": f.excluded_by} for f in root.failing],
        "failing_count": root.failing_count,
        "why": [{"hash": e.hash, "spec": e.spec, "category": e.category, "excluded_by": e.excluded_by}
                for e in root.why],
        "note": root.note or None,
    }


_CSV_CELLS: dict[str, Callable[[RootPlan], str]] = {
    "spec": lambda r: r.spec, "package": lambda r: r.package or "", "status": lambda r: r.status,
    "binary_hash": lambda r: r.binary.hash if r.binary else "",
    "binary_spec": lambda r: r.binary.spec if r.binary else "",
    "binary_tag": lambda r: r.binary.tag if r.binary else "",
    "candidates": lambda r: str(r.candidates), "closure": lambda r: r.closure,
    "missing": lambda r: " ".join(r.missing),
    "failing": lambda r: "; ".join(f"{f.hash} {f.excluded_by}" for f in r.failing),
    "failing_count": lambda r: str(r.failing_count),
    "why": lambda r: "; ".join(f"{e.hash} {e.category}: {e.excluded_by}" for e in r.why),
    "note": lambda r: r.note,
}
CSV_HEADER = tuple(_CSV_CELLS)


def write_plan(out: TextIO, found: Plan, fmt: str, *, width: int | None = None) -> None:
    if fmt == "json":
        write_json(out, [plan_record(root) for root in found.roots])
    elif fmt == "csv":
        write_csv(out, [CSV_HEADER, *([cell(root) for cell in _CSV_CELLS.values()] for root in found.roots)])
    else:
        _write_table(out, found, width)


def write_no_answer(out: TextIO, fmt: str) -> None:
    """`[]` for JSON, the header for CSV: a pipe into jq or a CSV reader never breaks (the table prints nothing)."""
    if fmt == "json":
        write_json(out, [])
    elif fmt == "csv":
        write_csv(out, [CSV_HEADER])


def _write_table(out: TextIO, found: Plan, width: int | None) -> None:
    shown = short_hash if width is not None else str
    rows = [["status", "spec", "binary", "candidates", "why / what is missing"]]
    for root in found.roots:
        binary = root.binary
        where = "" if binary is None else f"{binary.spec.split(' ', 1)[0]}/{shown(binary.hash)} ({binary.tag})"
        rows.append([root.status, root.spec, where, str(root.candidates), _said(root, shown)])
    if found.roots:
        write_table(out, rows, right=(3,), width=width, whole=(0, 3))
    write_lines(out, [f"{CACHED_MEANS}.", f"{NOT_MODELLED[0].upper()}{NOT_MODELLED[1:]}.",
                      f"platform: {found.platform()}", found.summary()])


def _said(root: RootPlan, shown: Callable[[str], str]) -> str:
    """What keeps a root from `cached`, in a few words: what is missing and what fails, or why each nearest binary
    cannot serve it."""
    if root.status == PARTLY and root.closure == UNKNOWN:
        return root.note
    if root.status == PARTLY:
        said = [f"missing {len(root.missing)}: " + " ".join(f"/{shown(h)}" for h in root.missing)] if root.missing \
            else []
        said += [f"/{shown(f.hash)} {f.spec.split(' ', 1)[0]} fails {f.excluded_by}" for f in root.failing]
        if root.failing_count > len(root.failing):
            said.append(f"{root.failing_count - len(root.failing)} more fail their requirements")
        return "; ".join(said)
    if root.status == BUILD and root.why:
        by_binary: dict[str, list[str]] = {}
        for exclusion in root.why:
            by_binary.setdefault(exclusion.hash, []).append(exclusion.excluded_by)
        return " | ".join(f"/{shown(h)}: {'; '.join(reasons)}" for h, reasons in by_binary.items())
    return root.note


# -- the export -------------------------------------------------------------------------------------------------


def export_text(found: Plan, corpus: Corpus) -> tuple[str, list[str]]:
    """The spack.yaml `--export` writes, and what it could not write as asked (see `exported`)."""
    data, unplaced = exported(found, corpus)
    pinned = sum(1 for root in found.roots if root.binary is not None)
    header = [f"# Written by `cachetui plan` from {found.environment.path} for {found.arch}.",
              f"# {pinned} of {len(found.roots)} roots pinned to a binary Spack can reuse; the others as written.",
              "# A plan is not a concretization: run `spack concretize` on this environment."]
    body = yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=False, width=100)
    return "\n".join(inert(line) for line in header) + "\n" + body, unplaced


def write_export(target: Path, text: str, *, replace: bool = False) -> int:
    """`--export`'s file, written whole (`export.write_whole`); the bytes written."""
    try:
        return write_whole(target, text.encode("utf-8"), replace=replace)
    except ExportExists as exc:
        raise ExportExists(f"{exc}: --force replaces it") from None
