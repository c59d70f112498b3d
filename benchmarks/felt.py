"""Commands as a user feels them: the whole process, from exec to exit, at the shell.

    python benchmarks/felt.py TREE [--rounds N] [--before REF]

In-process timings leave out Python's start, the imports and writing the cache; a user waits for
all of them. Each round runs, side by side: the read-and-decode floor as a process of its own
(`benchmarks/decode_floor.py`'s work: find the documents, read each, json.loads its two JSON
lines), a cold `cachetui check` (an empty cache directory: it parses and writes the cache), a warm
`cachetui check` and a warm `cachetui query --package P` (the cache the cold one wrote). Medians.
The cold check's CPU seconds (user and system, its worker process included) are counted too: over
its wall time on two cores, they say how much of the time both cores were busy.

With `--before REF`, REF is checked out in a temporary git worktree and its commands run too,
alternating with the working tree's in each round (each its own empty cache directory), so both
lines come from the same run. The code is compiled to bytecode first (as an installed package is),
whatever PYTHONDONTWRITEBYTECODE says: otherwise every process would compile what it imports.
"""

from __future__ import annotations

import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.harness import checked_out, tree_parser  # noqa: E402

WARM_CHECK_TARGET_S = 0.5
COLD_CHECK_TARGET_RATIO = 1.3  # of the floor, as felt: a cold start should cost little more than reading the files
FLOOR = ("import sys; from pathlib import Path; sys.path.insert(0, {root!r}); "
         "from benchmarks.decode_floor import document_paths, floor; floor(document_paths(Path(sys.argv[1])))")


def _process_seconds(argv: list[str], env: dict[str, str]) -> float:
    return _process(argv, env)[0]


def _process(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall seconds of a whole process, and its CPU seconds (user and system, its children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   cwd=tempfile.gettempdir())  # not the repo: `import cachetui` comes from PYTHONPATH
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # a child's own children count once it reaped them
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _commands(root: Path, code: Path, cache_home: str) -> dict[str, float]:
    """One round of the code under `code`: the floor, a cold check, a warm check and a warm query (s)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(XDG_CACHE_HOME=cache_home, PYTHONPATH=str(code))
    cli = [sys.executable, "-m", "cachetui"]
    package = sorted(p.name for p in next((root / "_cache").iterdir()).iterdir())[0]
    floor = _process_seconds([sys.executable, "-c", FLOOR.format(root=str(HERE.parent)), str(root)], env)
    cold, cold_cpu = _process([*cli, "check", str(root)], env)
    return {
        "floor": floor, "cold_check": cold, "cold_check_cpu": cold_cpu,
        "warm_check": _process_seconds([*cli, "check", str(root)], env),
        "warm_query": _process_seconds([*cli, "query", str(root), "--package", package], env),
    }


def measure_felt(root: Path, rounds: int, codes: tuple[Path, ...] = (HERE.parent,)) -> list[dict[str, float]]:
    """For each code tree, medians (s) of the floor, cold and warm check and a warm query, each a whole process;
    the code trees alternate within each round."""
    for code in codes:
        compileall.compile_dir(code / "cachetui", quiet=1)
    runs: list[dict[str, list[float]]] = [{} for _ in codes]
    loads = []
    for _ in range(rounds):
        for code, found in zip(codes, runs):
            with tempfile.TemporaryDirectory() as cache_home:
                for name, seconds in _commands(root, code, cache_home).items():
                    found.setdefault(name, []).append(seconds)
        loads.append(os.getloadavg()[0])
    results = []
    for found in runs:
        medians = {f"felt_{name}_s": statistics.median(values) for name, values in found.items()}
        medians["felt_cold_ratio"] = medians["felt_cold_check_s"] / medians["felt_floor_s"]
        medians["felt_load_avg"] = statistics.median(loads)
        results.append(medians)
    return results


def _both_busy(r: dict[str, float]) -> float:
    """How busy the two cores were, on average, during the cold check (its CPU seconds over twice its wall)."""
    return r["felt_cold_check_cpu_s"] / (2 * r["felt_cold_check_s"])


def felt_line(tree: str, r: dict[str, float]) -> str:
    return (f"[{tree}] as felt (exec to exit): warm check {r['felt_warm_check_s']:.2f} s (target <= "
            f"{WARM_CHECK_TARGET_S:g} s), warm query {r['felt_warm_query_s']:.2f} s, cold check "
            f"{r['felt_cold_check_s']:.2f} s against a floor process of {r['felt_floor_s']:.2f} s: "
            f"{r['felt_cold_ratio']:.2f}x (target <= {COLD_CHECK_TARGET_RATIO:g}x; the cold check used "
            f"{r['felt_cold_check_cpu_s']:.2f} CPU s, the two cores {_both_busy(r):.0%} busy); load average "
            f"{r['felt_load_avg']:.2f}")


def main() -> None:
    parser = tree_parser(__doc__)
    parser.add_argument("--before", metavar="REF", help="also run REF's code, alternating, in the same rounds")
    args = parser.parse_args()
    if args.before is None:
        print(felt_line(args.tree.name, measure_felt(args.tree.resolve(), args.rounds)[0]))
        return
    with checked_out(args.before) as before:
        results = measure_felt(args.tree.resolve(), args.rounds, (before, HERE.parent))
    for label, result in zip((args.before, "working tree"), results):
        print(f"{label}: {felt_line(args.tree.name, result)}")


if __name__ == "__main__":
    main()
