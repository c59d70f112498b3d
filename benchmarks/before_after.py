"""Cold load of one tree by an earlier commit and by the working tree, side by side in one run.

    python benchmarks/before_after.py REF TREE [--rounds N]

REF is checked out into a temporary git worktree; both versions run in fresh processes with
this venv's Python, alternating, each `load_corpus([TREE])` with no cache (their defaults).
Prints the median wall time, CPU time (user + system, the process and its workers: steadier than
wall time on a shared machine) and peak RSS (main process, VmHWM) of each.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = ("import sys; from cachetui.core.load.pipeline import load_corpus; load_corpus([sys.argv[1]]); "
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))")


def run(source: Path, tree: str) -> tuple[float, float, float]:
    """Seconds, CPU seconds and peak RSS (MB) of a fresh process loading `tree` with the code under `source`."""
    env = dict(os.environ, PYTHONPATH=str(source))
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CODE, tree], capture_output=True, text=True, check=True, env=env,
                          cwd=tempfile.gettempdir())  # not the repo: `import cachetui` must come from PYTHONPATH
    return time.perf_counter() - start, _children_cpu() - cpu, int(done.stdout.split()[-1]) / 1024


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref")
    parser.add_argument("tree")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        before = Path(scratch) / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.ref],
                       check=True, capture_output=True)
        try:
            runs: dict[str, list[tuple[float, float, float]]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                runs["before"].append(run(before, args.tree))
                runs["after"].append(run(ROOT, args.tree))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=True)
    for name, samples in runs.items():
        seconds, cpu, rss = (statistics.median(sample[i] for sample in samples) for i in range(3))
        print(f"{name:6} ({args.ref if name == 'before' else 'working tree'}): {seconds:.2f} s, CPU {cpu:.2f} s, "
              f"peak RSS {rss:.0f} MB")
    ratio = statistics.median(s[0] for s in runs["before"]) / statistics.median(s[0] for s in runs["after"])
    print(f"after is {ratio:.1f}x faster (medians of {args.rounds} alternating rounds)")


if __name__ == "__main__":
    main()
