"""What numpy's OpenBLAS threads cost a command: a warm `cachetui check` with them and without, side by side.

    python benchmarks/blas_threads.py TREE [--rounds N]

cachetui sets `OPENBLAS_NUM_THREADS=1` before numpy is imported unless the user set it (it does no
linear algebra). Each round runs a warm `check` of TREE as it is, and one with `OPENBLAS_NUM_THREADS`
set to the number of cores (what numpy does by default), alternating, each a process of its own
from exec to exit; a cold check first writes the cache they read. Medians of the wall time and of
the CPU time (user and system, the process's threads included: an OpenBLAS thread spins before it
sleeps, on the other core).
"""

from __future__ import annotations

import compileall
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.felt import _process  # noqa: E402
from benchmarks.harness import tree_parser  # noqa: E402


def main() -> None:
    args = tree_parser(__doc__).parse_args()
    compileall.compile_dir(HERE.parent / "cachetui", quiet=1)
    cores = str(os.cpu_count() or 2)
    with tempfile.TemporaryDirectory() as cache_home:
        env = {key: value for key, value in os.environ.items()
               if key not in ("PYTHONDONTWRITEBYTECODE", "OPENBLAS_NUM_THREADS")}
        env.update(XDG_CACHE_HOME=cache_home, PYTHONPATH=str(HERE.parent))
        check = [sys.executable, "-m", "cachetui", "check", str(args.tree.resolve())]
        _process(check, env)  # the cold one: the cache file the warm ones read
        runs: dict[str, list[tuple[float, float]]] = {"none": [], cores: []}
        for _ in range(args.rounds):
            runs["none"].append(_process(check, env))
            runs[cores].append(_process(check, {**env, "OPENBLAS_NUM_THREADS": cores}))
    for threads, found in runs.items():
        wall, cpu = statistics.median(w for w, _ in found), statistics.median(c for _, c in found)
        label = "cachetui's default (no OpenBLAS thread)" if threads == "none" else f"OPENBLAS_NUM_THREADS={threads}"
        print(f"[{args.tree.name}] warm check, {label}: {wall:.2f} s, CPU {cpu:.2f} s "
              f"(medians of {args.rounds} alternating rounds)")


if __name__ == "__main__":
    main()
