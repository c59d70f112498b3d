"""Write specs as a table, JSON, CSV or `spack find -lv` text.

Every format goes through an inert writer (`cachetui.present.output.writers`, `table`): table, `spack`
text and CSV show control characters as visible escapes, JSON as JSON escapes (the lossless form).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from operator import attrgetter
from typing import Any, TextIO

from cachetui.core.model.corpus import Corpus, SpecView
from cachetui.core.model.fields import REGISTRY, RegistryView
from cachetui.core.model.freshness import iso_utc
from cachetui.core.model.records import Dependency
from cachetui.core.query.spack_find import FindLine, find_lines
from cachetui.core.spack.deptypes import deptype_names
from cachetui.core.spack.tags import named_stacks
from cachetui.present.format import human_size
from cachetui.present.output.table import write_table
from cachetui.present.output.writers import write_csv, write_json, write_lines

FORMATS = ("table", "json", "csv", "spack")
# The fields of a record, declared with each field of a spec (cachetui.core.model.fields), in their order.
OUTPUT_FIELDS = RegistryView(lambda: tuple(REGISTRY.outputs()))
_UNKNOWN_SIZE = human_size(None)  # as the table shows a size no source gives
# A record's fields that are not one value of a facet (those are the spec's `values`, as the corpus has them).
_VALUES: dict[str, Callable[[SpecView], Any]] = {
    "package": attrgetter("package"),
    "hash": attrgetter("hash"),
    "variants": lambda spec: list(spec.raw_variants),
    "stacks": lambda spec: named_stacks(spec.stacks),
    "size": attrgetter("size"),
}
_PUSHED = "pushed"  # the output holding the moment of the push (spec_record's `pushed`)


def spec_record(spec: SpecView, dependencies: list[Dependency] | None = None,
                pushed: int | None = None) -> dict[str, Any]:
    """A spec as `query --format json` prints it; `dependencies` None (null) where its source records none (site
    documents): unknown, never the empty list that says it depends on nothing.

    `installable` is yes, no, or unknown (site documents record no dependencies). `pushed` (seconds since the
    epoch; the spec does not carry it) is said in ISO 8601, UTC (`2026-11-20T14:03:00Z`), null when unknown: the
    moment, not the facet's "last day", which says only how long before this load.
    """
    record = {output: _value(spec, output, name) for output, name in REGISTRY.outputs().items()}
    if _PUSHED in record:
        record[_PUSHED] = iso_utc(pushed)
    return record | {
        "path": spec.path,
        "dependencies": None if dependencies is None else [
            {"name": d.name, "hash": d.hash, "deptypes": list(deptype_names(d.deptypes)),
             "virtuals": d.virtuals.split(",") if d.virtuals else []}
            for d in dependencies
        ],
    }


def _value(spec: SpecView, output: str, name: str) -> Any:
    held = _VALUES.get(output)
    return held(spec) if held is not None else spec.values[name]


def _cells(spec: SpecView, pushed: int | None, unknown: str) -> list[str]:
    """The cells of `OUTPUT_FIELDS`, as the document has them (the writers make them inert); `unknown` where the
    source does not say (an unknown size): `-` in the table, an empty cell in CSV, what a spreadsheet means by
    unknown (JSON's null), in `query --format csv` and the browser's export alike."""
    record = spec_record(spec, pushed=pushed)
    del record["dependencies"]
    record["variants"] = " ".join(spec.raw_variants)
    record["stacks"] = ",".join(named_stacks(spec.stacks))
    size = human_size(spec.size)
    record["size"] = unknown if size == _UNKNOWN_SIZE else size
    if _PUSHED in record and record[_PUSHED] is None:
        record[_PUSHED] = unknown
    return [str(record[column]) for column in OUTPUT_FIELDS]


# A cell a spreadsheet would run as a formula (`+mpi`, `=cmd|…`): documents are others' text.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: str) -> str:
    """Prefixed with `'` when a spreadsheet would read it as a formula (OWASP's advice for CSV injection)."""
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def write_specs(out: TextIO, corpus: Corpus, indices: Sequence[int], fmt: str, *, spreadsheet: bool = False) -> None:
    """`spreadsheet`: CSV cells are kept from being read as formulas (the browser's export)."""
    specs = [corpus.spec(i) for i in indices]
    if fmt == "json":
        recorded = corpus.dependencies_recorded
        write_json(out, [spec_record(s, corpus.dependencies(s.index) if recorded[s.index] else None,
                                     corpus.pushed_of(s.index)) for s in specs])
    elif fmt == "spack":  # as `spack buildcache list -lv` prints: grouped by architecture and compiler
        header = f"==> {len(indices)} cached build{'' if len(indices) == 1 else 's'}."
        write_lines(out, chain([header], (_with_offline_copy(corpus, line) for line in find_lines(corpus, indices))))
    elif fmt == "csv":
        safe = spreadsheet_safe if spreadsheet else str
        cells = ([safe(cell) for cell in [*_cells(s, corpus.pushed_of(s.index), ""), s.path]] for s in specs)
        write_csv(out, [[*OUTPUT_FIELDS, "path"], *cells])
    else:
        columns, rows = list(OUTPUT_FIELDS), [_cells(s, corpus.pushed_of(s.index), _UNKNOWN_SIZE) for s in specs]
        copies = [corpus.offline_copy(s.index) for s in specs]
        if any(copies):  # a row read from an offline copy says so itself: never shown as current
            columns.append("offline")
            rows = [[*row, copy] for row, copy in zip(rows, copies)]
        write_table(out, [columns, *rows])


def write_no_answer(out: TextIO, fmt: str) -> None:
    """What a machine-read format prints when there is no answer to give (an unknown value, a usage error):
    `[]`, or CSV's header, so a pipe into jq or a CSV reader never breaks; the other formats print nothing."""
    if fmt == "json":
        write_json(out, [])
    elif fmt == "csv":
        write_csv(out, [[*OUTPUT_FIELDS, "path"]])


def _with_offline_copy(corpus: Corpus, line: FindLine) -> str:
    """A `spack find` line, and after a spec read from an offline copy, which copy (JSON and CSV: its `path`)."""
    copy = corpus.offline_copy(line.spec) if line.spec is not None else ""
    return f"{line.text}  ({copy})" if copy else line.text
