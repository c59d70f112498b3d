#!/usr/bin/env python3
"""How soon a cold start says something: the first progress line of `cachetui check` and the browser's first
frame, beside a bare Textual app's first frame, each in a pseudo-terminal, in one run.

    .venv/bin/python benchmarks/first_line.py [SOURCE] [--rounds 5]

SOURCE defaults to the 120,000-record benchmark mirror (benchmarks/generate_mirror.py), read with --no-cache, so
every round is a cold load. Issue 43's target: a first progress line within 0.3 s of start. Times are from the
process's start to its first output (check: its progress line; the apps: the end of their first frame, as the
terminal shows it); medians of the rounds, the three alternating.
"""

from __future__ import annotations

import argparse
import select
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.mirror_bench import mirror_dir
from benchmarks.pty_keys import HERE, PYTHON, Session

TARGET_S = 0.3
LIMIT_S = 20.0


def first_output(argv: list[str], frame: bool) -> float:
    """Seconds from start to the first output (`frame`: to the end of the first frame)."""
    start = time.perf_counter()
    session = Session.start(argv, 120, 40)
    try:
        while time.perf_counter() - start < LIMIT_S:
            ready, _, _ = select.select([session.fd], [], [], 0.05)
            if ready:
                chunk, ended = session._read()
                if not chunk:
                    break
                if ended or not frame:
                    return time.perf_counter() - start
        return float("nan")
    finally:
        session.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    source = args.source or str(mirror_dir())
    cachetui = str(Path(PYTHON).with_name("cachetui"))
    runs = {"cachetui check: first progress line": ([cachetui, "check", "--no-cache", source], False),
            "cachetui (browser): first frame": ([cachetui, "--no-cache", source], True),
            "bare Textual app: first frame": ([PYTHON, str(HERE / "bare_app.py")], True)}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (argv, frame) in runs.items():
            times[name].append(first_output(argv, frame))
    print(f"cold start of {Path(source).name}: medians of {args.rounds} rounds, alternating")
    print("| what | first output | target |", "|---|---|---|", sep="\n")
    for name, found in times.items():
        median = statistics.median(found)
        target = f"≤ {TARGET_S} s: {'met' if median <= TARGET_S else 'missed'}" if "check" in name else ""
        print(f"| {name} | {median:.2f} s | {target} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
