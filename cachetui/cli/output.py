"""Write specs as a table, JSON or CSV; text fields are made inert for table and CSV."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import Any, TextIO

from cachetui.core.model import SpecView
from cachetui.present.format import human_size
from cachetui.present.inert import inert

FORMATS = ("table", "json", "csv")
COLUMNS = ("package", "tag", "hash", "version", "compiler", "platform", "os", "target", "variants", "stacks", "size")


def spec_record(spec: SpecView) -> dict[str, Any]:
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
    }


def _cells(spec: SpecView) -> list[str]:
    record = spec_record(spec)
    record["variants"] = " ".join(spec.raw_variants)
    record["stacks"] = ",".join(spec.stacks)
    record["size"] = human_size(spec.size)
    return [inert(str(record[column])) for column in COLUMNS]


def write_specs(out: TextIO, specs: Sequence[SpecView], fmt: str) -> None:
    if fmt == "json":
        # ensure_ascii: control and bidi characters come out as \\u escapes, inert by nature.
        json.dump([spec_record(s) for s in specs], out, indent=2, ensure_ascii=True)
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
