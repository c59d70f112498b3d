"""Write specs as a table, JSON or CSV; text fields are made inert for table and CSV."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import Any, TextIO

from cachetui.core.model import Corpus, SpecView
from cachetui.core.records import Dependency, deptype_names
from cachetui.present.format import human_size
from cachetui.present.inert import inert

FORMATS = ("table", "json", "csv")
COLUMNS = ("package", "tag", "hash", "version", "compiler", "platform", "os", "target", "variants", "stacks", "size")


def spec_record(spec: SpecView, dependencies: list[Dependency] | None = None) -> dict[str, Any]:
    """A spec as `query --format json` prints it; `dependencies` is empty for site documents."""
    return {
        "package": spec.package,
        "tag": spec.tag,
        "hash": spec.hash,
        "version": spec.version,
        "compiler": spec.compiler,
        "platform": spec.platform,
        "os": spec.os,
        "target": spec.target,
        "variants": list(spec.raw_variants),
        "stacks": list(spec.stacks),
        "size": spec.size,
        "path": spec.path,
        "dependencies": [
            {"name": d.name, "hash": d.hash, "deptypes": list(deptype_names(d.deptypes)),
             "virtuals": d.virtuals.split(",") if d.virtuals else []}
            for d in dependencies or []
        ],
    }


def _cells(spec: SpecView) -> list[str]:
    record = spec_record(spec)
    del record["dependencies"]
    record["variants"] = " ".join(spec.raw_variants)
    record["stacks"] = ",".join(spec.stacks)
    record["size"] = human_size(spec.size)
    return [inert(str(record[column])) for column in COLUMNS]


def write_specs(out: TextIO, corpus: Corpus, indices: Sequence[int], fmt: str) -> None:
    specs = [corpus.spec(i) for i in indices]
    if fmt == "json":
        records = [spec_record(s, corpus.dependencies(s.index)) for s in specs]
        # ensure_ascii: control and bidi characters come out as \\u escapes, inert by nature.
        json.dump(records, out, indent=2, ensure_ascii=True)
        out.write("\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([*COLUMNS, "path"])
        writer.writerows(_cells(s) + [inert(s.path)] for s in specs)
    else:
        _write_table(out, [list(COLUMNS)] + [_cells(s) for s in specs])


def _write_table(out: TextIO, rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n")
