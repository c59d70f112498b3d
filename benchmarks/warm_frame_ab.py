#!/usr/bin/env python3
"""The browser's warm first useful frame, this code against another commit's, beside a bare Textual app, in one run.

    git worktree add --detach /tmp/before REF
    .venv/bin/python benchmarks/warm_frame_ab.py SOURCE /tmp/before [--rounds 7]

Each round starts them in a pseudo-terminal, alternating: the browser on SOURCE as the other commit has it
(PYTHONPATH), as this tree has it, and the bare app (`bare_app.py`, fed SOURCE's package names). A browser is timed
from its start to its first useful frame (the filled package list: the glance's `N specs as last read`, or the
status line's count of the answer, `362 of 362 specs`, once the corpus is shown) and, in a start of its own, to the
corpus shown; each reads SOURCE through a warm cache of its own (written once first: the code's digest keys it).
Both trees are compiled to bytecode first, as an installed package is. Medians, and their ratio to the bare app's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.first_line import CACHETUI, SHOWN, USEFUL, first_output, names_file, warm_checkouts  # noqa: E402
from benchmarks.pty_keys import PYTHON  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("before", type=Path, help="a worktree of the commit to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    runs = warm_checkouts(args.source, args.before, "warm-frame")
    names = names_file(args.source, runs["now"])
    times: dict[str, list[float]] = {f"{name}, {what}": [] for name in runs for what in ("useful", "corpus")}
    times["bare"] = []
    for _ in range(args.rounds):
        for name, env in runs.items():
            times[f"{name}, useful"].append(first_output([*CACHETUI, args.source], True, USEFUL, env))
            times[f"{name}, corpus"].append(first_output([*CACHETUI, args.source], True, SHOWN, env))
        times["bare"].append(first_output([PYTHON, str(HERE / "bare_app.py"), names], True))
    bare = statistics.median(times["bare"])
    print(f"warm first useful frame on {Path(args.source).name}: medians of {args.rounds} rounds, alternating")
    print("| | median | / bare app | rounds |", "|---|---|---|---|", sep="\n")
    for name, found in times.items():
        median = statistics.median(found)
        print(f"| {name} | {median:.2f} s | {median / bare:.2f}x | {' '.join(f'{t:.2f}' for t in found)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
