#!/usr/bin/env python3
"""config.toml's reader on hostile files of the largest size it reads (1 MiB): each is linear.

    .venv/bin/python benchmarks/settings_bench.py [--rounds 3]

Target: each file read and checked in at most 2 s (`read_settings`, as `cachetui config` and the
browser call it, against the app's bindings and Textual's key names); tomllib alone reads a megabyte
of dotted keys in about 1 s on the development VM, the rest is ours. Before issue 39 a line of 2,000
spaces took 10 s and one of 4,000 took 59 s (the key scan backtracked), and tomllib's work for a
dotted key grows with the square of its parts (one key of 5,000 parts: 0.7 s). The median of the
rounds is printed per file.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cachetui.present.config.known import known
from cachetui.present.config.settings import read_settings
from cachetui.present.config.settings_text import MAX_BYTES

KNOWN = known()  # the app's binding ids and Textual's names, as `cachetui config` checks with

TARGET_S = 2.0


def _lines(line: str) -> str:
    """`line` (a format for its number) on as many lines as fit under the cap."""
    out, size, i = [], 0, 0
    while size + len(line) + 10 < MAX_BYTES:
        out.append(line.format(i))
        size += len(out[-1])
        i += 1
    return "".join(out)


FILES = {
    "one line of spaces": " " * (MAX_BYTES - 1),
    "lines of spaces before an unknown setting": _lines(" " * 1_000 + "a{} = 1\n"),
    "dotted keys of 4 parts (the most read)": _lines("a{}.a.a.a = 0\n"),
    "one dotted key of 500,000 parts": "keymap." + ".".join(["a"] * (MAX_BYTES // 2 - 8)) + "= 1\n",
    "an unclosed quoted key": '"' + "a" * (MAX_BYTES - 2) + "\n",
    "an unclosed string of escaped quotes": 'x = "' + '\\"' * ((MAX_BYTES - 8) // 2) + "\n",
    "keymap of unknown ids": "[keymap]\n" + _lines('"x{}" = "f2"\n'),
    "keymap values naming no key": '[keymap]\n"browser.help" = "ctlr+h,' + "f2," * (MAX_BYTES // 3 - 20) + 'f2"\n',
    "nested arrays": "x = " + "[" * 400_000 + "]" * 400_000 + "\n",
    "a theme of a megabyte": "theme = '" + "a" * (MAX_BYTES - 20) + "'\n",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print("| config.toml | size | bad entries | median time (target ≤ 2 s) |", "|---|---|---|---|", sep="\n")
    missed = 0
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        for name, text in FILES.items():
            path.write_text(text)
            times = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                user = read_settings(path, KNOWN)
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            missed += median > TARGET_S
            print(f"| {name} | {path.stat().st_size:,} B | {len(user.bad)} | {median:.3f} s |")
    print(f"target: {'met' if not missed else f'missed by {missed}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
