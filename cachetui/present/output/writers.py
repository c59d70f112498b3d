"""The writers every output format goes through, so no format can let document text out raw.

Each applies `inert`'s rule (`cachetui.present.inert`) whatever the output is: a terminal,
a pipe, a file or a download, since a file is shown on a terminal sooner or later (`cat f`).
- Text lines and CSV cells show each unsafe character as its visible escape (`\\x1b`), as the
  screen does; a CSV cell therefore never holds a raw CR or line break either. Plain-text
  tables are written by `cachetui.present.output.table.write_table`, which makes each cell inert too.
- JSON is the lossless form: every non-ASCII character and every control comes out as a JSON
  escape (`\\u001b`, `\\u009b`, `\\u202e`), which parses back to the exact value. That escapes
  every character the rule calls unsafe (all are controls or non-ASCII) and, being ASCII,
  cannot be broken by a stdout that is not UTF-8.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from cachetui.present.inert import inert


def write_lines(out: TextIO, lines: Iterable[str]) -> None:
    """Each line made inert, then ended with `\\n` (a value's own line break shows as `\\x0a`)."""
    out.writelines(inert(line) + "\n" for line in lines)


def write_csv(out: TextIO, rows: Iterable[Sequence[str]]) -> None:
    """CSV with `\\n` line ends, every cell made inert (quoted as CSV quotes a comma or a `"`)."""
    csv.writer(out, lineterminator="\n").writerows([inert(cell) for cell in row] for row in rows)


def write_json(out: TextIO, data: Any) -> None:
    """Strict JSON (RFC 8259: no NaN), indented, ASCII only, then a line end.

    Python's encoder is C only without `indent` (indented, it is Python, line by line): a long list's items
    are encoded by it a batch at a time, then indented by msgspec, which changes whitespace alone (the text is
    what `json.dump(indent=2)` writes, byte for byte), so that a large answer is never held twice. A short
    answer is written as it always was (msgspec is not imported where a warm `check` answers)."""
    if not isinstance(data, list) or len(data) <= _BATCH:
        json.dump(data, out, indent=2, ensure_ascii=True, allow_nan=False)
    else:
        out.write("[\n")
        for start in range(0, len(data), _BATCH):
            inner = _indented(data[start : start + _BATCH])[2:-2]  # the items, without the list's own brackets
            out.write(inner if start == 0 else ",\n" + inner)
        out.write("\n]")
    out.write("\n")


_BATCH = 1000


def _indented(items: list[Any]) -> str:
    import msgspec  # here: only a long answer needs it

    compact = json.dumps(items, ensure_ascii=True, allow_nan=False)
    try:
        return msgspec.json.format(compact, indent=2)
    except msgspec.DecodeError:  # what it will not re-read (the escape of a lone surrogate, a file name's byte)
        return json.dumps(items, indent=2, ensure_ascii=True, allow_nan=False)
