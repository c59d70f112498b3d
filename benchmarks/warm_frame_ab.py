#!/usr/bin/env python3
"""The browser's warm first useful frame, this code against another commit's, beside a bare Textual app, in one run.

    git worktree add --detach /tmp/before REF
    .venv/bin/python benchmarks/warm_frame_ab.py SOURCE /tmp/before [--rounds 7]

Each round starts the three in a pseudo-terminal, alternating: the browser on SOURCE as the other commit has it
(PYTHONPATH), as this tree has it, and the bare app (`bare_app.py`). A browser's time is from its start to the
status line's count of the answer (`362 of 362 specs`), written once the corpus is shown; each reads SOURCE through
a warm cache of its own (written once first: the code's digest keys it). Both trees are compiled to bytecode first,
as an installed package is. Medians, and their ratio to the bare app's.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.first_line import SHOWN, first_output  # noqa: E402
from benchmarks.pty_keys import PYTHON  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("before", type=Path, help="a worktree of the commit to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    cachetui = [PYTHON, "-P", "-m", "cachetui"]  # -P: the working directory's tree never stands in for either
    runs = {}
    for name, tree in (("before", args.before), ("now", HERE.parent)):
        compileall.compile_dir(str(tree / "cachetui"), quiet=1)
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(prefix=f"warm-frame-{name}-"), PYTHONPATH=str(tree))
        subprocess.run([*cachetui, "check", args.source], env=env, capture_output=True, check=False)
        runs[name] = env
    times: dict[str, list[float]] = {"before": [], "now": [], "bare": []}
    for _ in range(args.rounds):
        for name, env in runs.items():
            times[name].append(first_output([*cachetui, args.source], True, SHOWN, env))
        times["bare"].append(first_output([PYTHON, str(HERE / "bare_app.py")], True))
    bare = statistics.median(times["bare"])
    print(f"warm first useful frame on {Path(args.source).name}: medians of {args.rounds} rounds, alternating")
    print("| | median | / bare app | rounds |", "|---|---|---|---|", sep="\n")
    for name, found in times.items():
        median = statistics.median(found)
        print(f"| {name} | {median:.2f} s | {median / bare:.2f}x | {' '.join(f'{t:.2f}' for t in found)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
