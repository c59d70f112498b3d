#!/usr/bin/env python3
"""How soon a start says something: the first progress line of a cold `cachetui check`, the browser's first
frame cold, and its first useful frame warm (the corpus shown), beside a bare Textual app's first frame, each in a
pseudo-terminal, in one run.

    .venv/bin/python benchmarks/first_line.py [SOURCE] [--rounds 5]

SOURCE defaults to the 120,000-record benchmark mirror (benchmarks/generate_mirror.py), read with --no-cache, so
every cold round is a cold load; the warm rounds read it through a warm cache of their own (written once first).
Targets (issue 43): a first progress line within 0.3 s of start; the warm first useful frame within 1.5x the bare
app's first frame. Times are from the process's start to its first output (check: its progress line; the apps:
the end of their first frame, as the terminal shows it; warm: the status line's count of the answer, written once the
corpus is shown); medians of the rounds, all alternating.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.mirror_bench import mirror_dir
from benchmarks.pty_keys import HERE, LOADED, PYTHON, Session

TARGET_S = 0.3
SHOWN = (LOADED,)  # the status line's count of the answer, once the corpus is shown
WARM_RATIO = 1.5  # the warm first useful frame, at most this many times the bare app's first frame
LIMIT_S = 20.0


def first_output(argv: list[str], frame: bool, markers: tuple[re.Pattern[bytes], ...] = (),
                 env: dict[str, str] | None = None) -> float:
    """Seconds from start to the first output (`frame`: to the end of the first frame; `markers`: to the output
    that holds one of them)."""
    start = time.perf_counter()
    session = Session.start(argv, 120, 40, env)
    seen = b""
    try:
        while time.perf_counter() - start < LIMIT_S:
            ready, _, _ = select.select([session.fd], [], [], 0.05)
            if ready:
                chunk, ended = session._read()
                if not chunk:
                    break
                seen = (seen + chunk)[-(1 << 16):]
                if any(marker.search(seen) for marker in markers) if markers else (ended or not frame):
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
    # Compiled to bytecode first, as an installed package is, whatever PYTHONDONTWRITEBYTECODE says: otherwise every
    # start would compile the app's modules (the bare app's Textual is compiled when installed).
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "cachetui"), quiet=1)
    cachetui = str(Path(PYTHON).with_name("cachetui"))
    warm_home = tempfile.mkdtemp(prefix="first-line-cache-")
    warm = dict(os.environ, XDG_CACHE_HOME=warm_home)
    subprocess.run([cachetui, "check", source], env=warm, capture_output=True, check=False)  # the warm cache
    runs = {"cachetui check, cold: first progress line": ([cachetui, "check", "--no-cache", source], False, (), None),
            "cachetui (browser), cold: first frame": ([cachetui, "--no-cache", source], True, (), None),
            "cachetui (browser), warm: the corpus shown": ([cachetui, source], True, SHOWN, warm),
            "bare Textual app: first frame": ([PYTHON, str(HERE / "bare_app.py")], True, (), None)}
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, (argv, frame, markers, env) in runs.items():
            times[name].append(first_output(argv, frame, markers, env))
    bare = statistics.median(times["bare Textual app: first frame"])
    print(f"starting on {Path(source).name}: medians of {args.rounds} rounds, alternating")
    print("| what | first output | / bare app | target |", "|---|---|---|---|", sep="\n")
    for name, found in times.items():
        median = statistics.median(found)
        target = f"≤ {TARGET_S} s: {'met' if median <= TARGET_S else 'missed'}" if "check" in name else \
            f"≤ {WARM_RATIO}x: {'met' if median <= WARM_RATIO * bare else 'missed'}" if "warm" in name else ""
        print(f"| {name} | {median:.2f} s | {median / bare:.1f}x | {target} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
