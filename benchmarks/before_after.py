"""Cold load of one tree by an earlier commit and by the working tree, side by side in one run.

    python benchmarks/before_after.py REF TREE [--rounds N]

REF is checked out into a temporary git worktree; both versions run in fresh processes with
this venv's Python, alternating, each `load_corpus([TREE])` with no cache (their defaults).
Prints the median time of the load itself (timed inside the process: no start-up or imports),
CPU time (user + system of the whole process and its workers, imports included: steadier than
wall time on a shared machine) and peak RSS (main process, VmHWM) of each. For a site tree,
each round also times the cold-load floor (benchmarks/decode_floor.py) and the ratios to it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.decode_floor import document_paths, floor  # noqa: E402

CODE = """
import sys, time
from cachetui.core.load.pipeline import load_corpus
if __name__ == "__main__":
    start = time.perf_counter()
    load_corpus([sys.argv[1]])
    print(time.perf_counter() - start)
    print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))
"""


def run(source: Path, tree: str, script: Path) -> tuple[float, float, float]:
    """Seconds, CPU seconds and peak RSS (MB) of a fresh process loading `tree` with the code under `source`."""
    env = dict(os.environ, PYTHONPATH=str(source))
    cpu = _children_cpu()
    done = subprocess.run([sys.executable, str(script), tree], capture_output=True, text=True, check=True, env=env,
                          cwd=tempfile.gettempdir())  # not the repo: `import cachetui` must come from PYTHONPATH
    seconds, peak = done.stdout.split()[-2:]
    return float(seconds), _children_cpu() - cpu, int(peak) / 1024


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref")
    parser.add_argument("tree")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    args.tree = os.path.abspath(args.tree)  # the loads run in the temporary directory (`run`), not here
    paths = document_paths(Path(args.tree))
    floors: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        before = Path(scratch) / "before"
        script = Path(scratch) / "load.py"  # a file, not -c: the workers are spawned and import the main module
        script.write_text(CODE)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), args.ref],
                       check=True, capture_output=True)
        try:
            runs: dict[str, list[tuple[float, float, float]]] = {"before": [], "after": []}
            for _ in range(args.rounds):
                if paths:
                    floors.append(floor(paths))
                runs["before"].append(run(before, args.tree, script))
                runs["after"].append(run(ROOT, args.tree, script))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=True)
    floor_s = statistics.median(floors) if floors else None
    for name, samples in runs.items():
        seconds, cpu, rss = (statistics.median(sample[i] for sample in samples) for i in range(3))
        against = f" = {seconds / floor_s:.2f}x the floor" if floor_s else ""
        print(f"{name:6} ({args.ref if name == 'before' else 'working tree'}): {seconds:.2f} s{against}, "
              f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MB")
    if floor_s:
        print(f"floor  (read every file, json.loads its two JSON lines, one process): {floor_s:.2f} s")
    ratio = statistics.median(s[0] for s in runs["before"]) / statistics.median(s[0] for s in runs["after"])
    print(f"after is {ratio:.1f}x faster (medians of {args.rounds} alternating rounds; "
          f"1-min load average at the end {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
