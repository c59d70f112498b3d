#!/usr/bin/env python3
"""`coverage`'s cost: a 1,000-node lockfile against the 120,000-record mirror, on top of a warm load.

    .venv/bin/python benchmarks/coverage_bench.py [--rounds 7] [--nodes 1000]

Target: at most 1 s added to a warm load. The mirror is benchmarks/generate_mirror.py's (seed 0).
The lockfile (lockfile v6) takes the DAG of some of its binaries, 1,000 nodes closed under their
dependencies; three in ten are changed (another hash, and every other one another version), so they
are compared with their package's binaries rather than found by hash. Each round runs two fresh
processes, alternating: a warm load alone, and a warm load then the lockfile read and compared
(`read_wanted` and `coverage`, as `cachetui coverage` runs them); the medians are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.harness import child  # noqa: E402
from benchmarks.mirror_bench import _blob, mirror_dir  # noqa: E402
from cachetui.core.load.cache import CorpusCache  # noqa: E402
from cachetui.core.load.pipeline import load_corpus  # noqa: E402

HERE = Path(__file__).resolve().parent
TARGET_S = 1.0
CHANGED = 0.3

RUN = """
import sys, time
from pathlib import Path
start = time.perf_counter()
from cachetui.core.load import LoadOptions, load_corpus, read_wanted
from cachetui.core.load.cache import CorpusCache
from cachetui.core.query.coverage import coverage
corpus = load_corpus([{mirror!r}], LoadOptions(use_cache=True), cache=CorpusCache(Path({cache!r})))
loaded = time.perf_counter()
assert corpus.cache_status == "hit", corpus.cache_status
found = None
if {compare}:
    found = coverage(corpus, read_wanted({lock!r}, 2**30))
print(time.perf_counter() - start, time.perf_counter() - loaded, found.summary() if found else "-", sep="\\t")
"""


def lockfile(mirror: Path, nodes: int, seed: int = 0) -> Path:
    """1,000 binaries of the mirror closed under their dependencies, as a lockfile; some changed."""
    path = HERE / "corpora" / f"coverage-lock-{nodes}.json"
    if path.is_file():
        return path
    installs = json.loads(_blob(mirror).read_bytes())["database"]["installs"]
    rng = random.Random(seed)
    held = [h for h, r in installs.items() if r["in_buildcache"]]
    chosen: dict[str, dict] = {}
    roots = []
    while len(chosen) < nodes:
        root = rng.choice(held)
        waiting = [root]
        while waiting and len(chosen) < nodes:
            hash_ = waiting.pop()
            if hash_ in chosen or hash_ not in installs:
                continue
            chosen[hash_] = json.loads(json.dumps(installs[hash_]["spec"]))
            waiting.extend(edge["hash"] for edge in chosen[hash_].get("dependencies", []))
        roots.append(root)
    renamed = {}
    for k, hash_ in enumerate(h for h in chosen if rng.random() < CHANGED and "external" not in chosen[h]):
        node = chosen[hash_]
        node["hash"] = renamed[hash_] = hash_[::-1]
        if k % 2:
            node["version"] += ".1"
    specs = {}
    for hash_, node in chosen.items():
        for edge in node.get("dependencies", []):
            edge["hash"] = renamed.get(edge["hash"], edge["hash"])
        specs[node["hash"]] = node
    lock = {"_meta": {"file-type": "spack-lockfile", "lockfile-version": 6, "specfile-version": 5},
            "roots": [{"hash": renamed.get(r, r), "spec": chosen[r]["name"]} for r in roots],
            "concrete_specs": specs}
    path.write_text(json.dumps(lock))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=1000)
    args = parser.parse_args(argv)
    mirror = mirror_dir()
    lock = lockfile(mirror, args.nodes)
    with tempfile.TemporaryDirectory() as cache_home:
        cache = Path(cache_home) / "cachetui"
        load_corpus([str(mirror)], cache=CorpusCache(cache))  # the warm cache, written once
        times: dict[bool, list[float]] = {False: [], True: []}
        compared: list[float] = []
        summary = ""
        for _ in range(args.rounds):
            for compare in (False, True):
                code = RUN.format(mirror=str(mirror), cache=str(cache), lock=str(lock), compare=compare)
                total, after_load, *said = child(code, dict(os.environ))
                times[compare].append(float(total))
                if compare:
                    compared.append(float(after_load))
                    summary = " ".join(said)
    alone, with_coverage = statistics.median(times[False]), statistics.median(times[True])
    added = with_coverage - alone
    print(f"coverage of a {args.nodes:,}-node lockfile against {mirror.name}: {summary}")
    print(f"medians of {args.rounds} rounds, fresh processes, alternating")
    print("| warm load | warm load + coverage | added (target ≤ 1 s) | reading and comparing alone |",
          "|---|---|---|---|", sep="\n")
    print(f"| {alone:.2f} s | {with_coverage:.2f} s | {added:+.2f} s | {statistics.median(compared):.2f} s |")
    print(f"target: {'met' if added <= TARGET_S else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
