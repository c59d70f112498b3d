#!/usr/bin/env python3
"""Cursor down and page-down as a user feels them, this code against another commit's, beside the bare app, in one run.

    git worktree add --detach /tmp/before REF
    .venv/bin/python benchmarks/keys_ab.py TREE /tmp/before [--rounds 3] [--presses 60]

Each round starts, one after the other in a pseudo-terminal (120x40): the browser on TREE as the other commit has it
(PYTHONPATH), as this tree has it, and the bare app (`bare_app.py`, fed TREE's package names). In each, `--presses`
cursor-down keys and then as many page-downs are timed as `pty_keys.py` times them, from the key's write to the end of
the last frame before the terminal is quiet for 0.15 s (longer than pty_keys.py waits, so that a key slowed by a full
collection is counted rather than lost). Each browser reads TREE through a warm cache of its own (written once first:
the code's digest keys it), both trees compiled to bytecode first. Prints p50 and p90 of each, the p90's ratio to the
bare app's cursor-down p90 (the basis of pty_keys.py's targets), and the slowest few.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.first_line import CACHETUI, names_file, warm_checkouts  # noqa: E402
from benchmarks.pty_keys import KEYS, LOADED, PYTHON, Session  # noqa: E402

QUIET_S = 0.15
KEYS_TIMED = ("down", "pagedown")


def _ms(times: list[float]) -> list[float]:
    return sorted(t * 1000 for t in times if t == t)  # nan: no frame came (none is expected here)


def _p50_p90(times: list[float]) -> tuple[float, float]:
    ordered = _ms(times) or [float("nan")]
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree")
    parser.add_argument("before", type=Path, help="a worktree of the commit to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--presses", type=int, default=60)
    args = parser.parse_args()
    envs = warm_checkouts(args.tree, args.before, "keys-ab")
    names = names_file(args.tree, envs["now"])
    found: dict[tuple[str, str], list[float]] = {(name, key): [] for name in (*envs, "bare") for key in KEYS_TIMED}
    for _ in range(args.rounds):
        for name in (*envs, "bare"):
            if name == "bare":
                session = Session.start([PYTHON, str(HERE / "bare_app.py"), names], 120, 40)
                session.wait_for(re.compile(rb"ready"), 60.0)
            else:
                session = Session.start([*CACHETUI, args.tree], 120, 40, envs[name])
                session.wait_for(LOADED, 600.0)
                session.press(KEYS["tab"])  # the package list has the focus at start; the table is next
            try:
                for key in KEYS_TIMED:
                    found[(name, key)] += [session.press(KEYS[key], QUIET_S).settled for _ in range(args.presses)]
            finally:
                session.stop()
    basis = _p50_p90(found[("bare", "down")])[1]
    print(f"keys on {Path(args.tree).name}, 120x40: {args.rounds} rounds of {args.presses} presses each, "
          f"alternating; load {os.getloadavg()[0]:.2f}")
    print("| app | key | p50 | p90 | p90 / bare down p90 | slowest |", "|---|---|---|---|---|---|", sep="\n")
    for (name, key), times in found.items():
        p50, p90 = _p50_p90(times)
        slowest = " ".join(f"{t:.0f}" for t in _ms(times)[-4:])
        print(f"| {name} | {key} | {p50:.1f} ms | {p90:.1f} ms | {p90 / basis:.2f}x | {slowest} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
