#!/usr/bin/env python3
"""Garbage-collection pauses while keys are answered: the app in a pseudo-terminal, as pty_keys.py runs it.

    .venv/bin/python benchmarks/gc_pauses.py [TREE] [--presses 80]

The app runs with a `gc.callbacks` hook that times every collection; after each kind of key
(down, page-down) the app is asked (SIGUSR1) for what it recorded. Prints, per key kind, the
slowest answers and the collections of each generation: how many, their total and longest
pause. It shows how much of the tail of pty_keys.py's times is the collector's.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.pty_keys import KEYS, LOADED, PYTHON, Session  # noqa: E402


def run_app(record: str, argv: list[str]) -> int:
    """The app, timing every collection; SIGUSR1 writes the pauses so far to `record` and starts afresh."""
    import gc

    pauses: list[tuple[int, float]] = []
    started = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - started[0]))

    def dump(*_: object) -> None:
        Path(record).write_text(json.dumps(pauses))
        pauses.clear()

    gc.callbacks.append(timed)
    signal.signal(signal.SIGUSR1, dump)
    from cachetui.cli.main import main

    return main(argv)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", default=str(HERE / "corpora" / "varied-L"))
    parser.add_argument("--presses", type=int, default=80)
    parser.add_argument("--app", help=argparse.SUPPRESS)  # internal: run the app, recording into this file
    args, rest = parser.parse_known_args(argv)
    if args.app:
        return run_app(args.app, [args.tree, *rest])
    with tempfile.TemporaryDirectory() as scratch:
        record = os.path.join(scratch, "pauses.json")
        session = Session.start([PYTHON, __file__, args.tree, "--app", record], 120, 40)
        try:
            session.wait_for(LOADED, 600.0)
            session.press(KEYS["tab"])
            for key in ("down", "pagedown"):
                os.kill(session.pid, signal.SIGUSR1)  # forget what the load and the last key kind collected
                time.sleep(0.3)
                answers = sorted(session.press(KEYS[key]).settled * 1000 for _ in range(args.presses))
                os.kill(session.pid, signal.SIGUSR1)
                time.sleep(0.5)
                by_generation: dict[int, list[float]] = defaultdict(list)
                for generation, seconds in json.loads(Path(record).read_text()):
                    by_generation[generation].append(seconds * 1000)
                slowest = ", ".join(f"{t:.0f}" for t in answers[-8:])
                collections = "; ".join(f"gen {g}: {len(p)}, {sum(p):.1f} ms in all, longest {max(p):.1f} ms"
                                        for g, p in sorted(by_generation.items()))
                print(f"{key}: {args.presses} presses, p90 {answers[int(0.9 * len(answers))]:.0f} ms, "
                      f"slowest {slowest} ms | {collections}")
        finally:
            session.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
