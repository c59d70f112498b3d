"""Commands as a user feels them: the whole process, from exec to exit, at the shell.

    python benchmarks/felt.py TREE [--rounds N]

In-process timings leave out Python's start, the imports and writing the cache; a user waits for
all of them. Each round runs, side by side: the read-and-decode floor as a process of its own
(`benchmarks/decode_floor.py`'s work: find the documents, read each, json.loads its two JSON
lines), a cold `cachetui check` (an empty cache directory: it parses and writes the cache), a warm
`cachetui check` and a warm `cachetui query --package P` (the cache the cold one wrote). Medians.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.harness import tree_parser  # noqa: E402

WARM_CHECK_TARGET_S = 0.5
COLD_CHECK_TARGET_RATIO = 1.5  # of the floor, as felt
FLOOR = ("import sys; from pathlib import Path; sys.path.insert(0, {root!r}); "
         "from benchmarks.decode_floor import document_paths, floor; floor(document_paths(Path(sys.argv[1])))")


def _process_seconds(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def measure_felt(root: Path, rounds: int) -> dict[str, float]:
    """Medians (s) of the floor, cold and warm check and a warm query, each a whole process, alternating."""
    cli = [sys.executable, "-m", "cachetui"]
    package = sorted(p.name for p in next((root / "_cache").iterdir()).iterdir())[0]
    runs: dict[str, list[float]] = {"floor": [], "cold_check": [], "warm_check": [], "warm_query": []}
    loads = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as cache_home:
            env = dict(os.environ, XDG_CACHE_HOME=cache_home)
            runs["floor"].append(_process_seconds(
                [sys.executable, "-c", FLOOR.format(root=str(HERE.parent)), str(root)], env))
            runs["cold_check"].append(_process_seconds([*cli, "check", str(root)], env))
            runs["warm_check"].append(_process_seconds([*cli, "check", str(root)], env))
            runs["warm_query"].append(_process_seconds([*cli, "query", str(root), "--package", package], env))
        loads.append(os.getloadavg()[0])
    medians = {f"felt_{name}_s": statistics.median(values) for name, values in runs.items()}
    medians["felt_cold_ratio"] = medians["felt_cold_check_s"] / medians["felt_floor_s"]
    medians["felt_load_avg"] = statistics.median(loads)
    return medians


def felt_line(tree: str, r: dict[str, float]) -> str:
    return (f"[{tree}] as felt (exec to exit): warm check {r['felt_warm_check_s']:.2f} s (target <= "
            f"{WARM_CHECK_TARGET_S:g} s), warm query {r['felt_warm_query_s']:.2f} s, cold check "
            f"{r['felt_cold_check_s']:.2f} s against a floor process of {r['felt_floor_s']:.2f} s: "
            f"{r['felt_cold_ratio']:.2f}x (target <= {COLD_CHECK_TARGET_RATIO:g}x); load average "
            f"{r['felt_load_avg']:.2f}")


def main() -> None:
    parser = tree_parser(__doc__)
    args = parser.parse_args()
    print(felt_line(args.tree.name, measure_felt(args.tree.resolve(), args.rounds)))


if __name__ == "__main__":
    main()
