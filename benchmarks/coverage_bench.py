#!/usr/bin/env python3
"""`coverage`'s cost: a 1,000-node lockfile against the 120,000-record mirror, on top of a warm load.

    .venv/bin/python benchmarks/coverage_bench.py [--rounds 7] [--nodes 1000]

Target: at most 1 s added to a warm load. The mirror is benchmarks/generate_mirror.py's (seed 0).
The lockfile (lockfile v6) takes the DAG of some of its binaries, 1,000 nodes closed under their
dependencies; three in ten are changed (another hash, and every other one another version), so they
are compared with their package's binaries rather than found by hash. Each round runs two fresh
processes, alternating: a warm load alone, and a warm load then the lockfile read and compared
(`read_wanted` and `coverage`, as `cachetui coverage` runs them); the medians are printed side by side.

Then three adversarial lockfiles (SHAPES, generated here, never committed): each node closing a cycle, 8,000
roots over one long chain, 50,000 nodes, their nodes shaped as the bundled sample's binaries (compared with
them) and as packages it does not hold. Each is timed as a user runs it, `cachetui coverage LOCK
cachetui/sample --format json` in a fresh process on a warm cache. Target: each under 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.harness import child  # noqa: E402
from benchmarks.mirror_bench import _blob, mirror_dir  # noqa: E402
from cachetui.core.load import LoadOptions  # noqa: E402
from cachetui.core.load.cache import CorpusCache  # noqa: E402
from cachetui.core.load.pipeline import load_corpus  # noqa: E402
from cachetui.core.load.sample import sample_path  # noqa: E402

HERE = Path(__file__).resolve().parent
TARGET_S = 1.0
SHAPE_TARGET_S = 5.0  # each adversarial lockfile, the whole command as a user runs it
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


# -- adversarial lockfiles: what a damaged or generated file may be -------------------------------------------

SHAPES = {  # name: (nodes, what it is)
    "cycles": (20_000, "20,000 nodes, each closing a dependency cycle (a chain whose every node also depends on "
                       "its first)"),
    "fan": (16_000, "8,000 roots over one 8,000-node chain (every root's closure is the whole chain)"),
    "wide": (50_000, "50,000 nodes, three edges each"),
}


def adversarial_lock(shape: str, nodes: int, templates: list[dict[str, Any]]) -> dict[str, Any]:
    """A lockfile (v6) of `nodes` nodes in one of SHAPES, node i a copy of templates[i % len] under a hash of
    its own (so none is a hit: each is compared with its package's binaries), its edges the shape's."""

    def edges(i: int) -> list[int]:
        if shape == "cycles":
            return [j for j in (i + 1, 0) if j < nodes and j != i]
        if shape == "fan":
            chain = nodes // 2
            return [0] if i >= chain else [i + 1] if i + 1 < chain else []
        return sorted({j for j in (i - 1, i // 2, i // 3) if 0 <= j < i})

    def hash_of(i: int) -> str:
        return f"{i:032d}"[::-1].translate(str.maketrans("0123456789", "abcdefghij"))

    specs = {}
    for i in range(nodes):
        node = dict(templates[i % len(templates)], hash=hash_of(i))
        node["dependencies"] = [{"name": templates[j % len(templates)]["name"], "hash": hash_of(j),
                                 "parameters": {"deptypes": ["build", "link"], "virtuals": []}} for j in edges(i)]
        specs[node["hash"]] = node
    roots = range(nodes // 2, nodes) if shape == "fan" else [0] if shape == "cycles" else [nodes - 1]
    return {"_meta": {"file-type": "spack-lockfile", "lockfile-version": 6, "specfile-version": 5},
            "roots": [{"hash": hash_of(r), "spec": specs[hash_of(r)]["name"]} for r in roots],
            "concrete_specs": specs}


def sample_templates() -> list[dict[str, Any]]:
    """Nodes shaped as the bundled sample's binaries (each compared with its package's, none a hit), and as
    many of packages the sample does not hold (absent)."""
    corpus = load_corpus([str(sample_path())], LoadOptions(use_cache=False))
    held = [{"name": spec.package, "version": spec.version, "namespace": "builtin",
             "arch": {"platform": spec.platform, "platform_os": spec.os, "target": spec.target},
             "parameters": {"build_system": "python_pip", "cflags": []}}
            for spec in map(corpus.spec, range(corpus.n_specs))]
    return [node for pair in zip(held, ({**n, "name": f"absent-{k}"} for k, n in enumerate(held))) for node in pair]


def measure_shapes(cache_home: str, rounds: int) -> dict[str, dict[str, tuple[float, int, int]]]:
    """Per shape and format: the median wall time of `cachetui coverage LOCK cachetui/sample --format FMT` run as
    a user runs it (a fresh process, a warm cache), its exit code and how many nodes it answered for."""
    templates = sample_templates()
    env = dict(os.environ, XDG_CACHE_HOME=cache_home)
    found: dict[str, dict[str, tuple[float, int, int]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for shape, (nodes, _) in SHAPES.items():
            lock = Path(scratch) / f"{shape}.lock"
            lock.write_text(json.dumps(adversarial_lock(shape, nodes, templates)))
            found[shape] = {}
            for fmt in ("table", "json"):
                times, code, rows = [], 0, 0
                for _ in range(rounds):
                    start = time.perf_counter()
                    done = subprocess.run([sys.executable, "-m", "cachetui", "coverage", str(lock),
                                           str(sample_path()), "--format", fmt],
                                          capture_output=True, text=True, env=env, check=False)
                    times.append(time.perf_counter() - start)
                    code = done.returncode
                    rows = len(json.loads(done.stdout)) if fmt == "json" else _summary_count(done.stdout)
                found[shape][fmt] = (statistics.median(times), code, rows)
    return found


def _summary_count(table: str) -> int:
    """The nodes the table's summary line counts (`20000 specs: …`)."""
    line = next(line for line in table.splitlines() if " specs: " in line)
    return int(line.split(" specs: ")[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--shape-rounds", type=int, default=3)
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
        shapes = measure_shapes(cache_home, args.shape_rounds)
    alone, with_coverage = statistics.median(times[False]), statistics.median(times[True])
    added = with_coverage - alone
    print(f"coverage of a {args.nodes:,}-node lockfile against {mirror.name}: {summary}")
    print(f"medians of {args.rounds} rounds, fresh processes, alternating")
    print("| warm load | warm load + coverage | added (target ≤ 1 s) | reading and comparing alone |",
          "|---|---|---|---|", sep="\n")
    print(f"| {alone:.2f} s | {with_coverage:.2f} s | {added:+.2f} s | {statistics.median(compared):.2f} s |")
    print(f"target: {'met' if added <= TARGET_S else 'missed'}")
    print("\nadversarial lockfiles: `cachetui coverage LOCK cachetui/sample --format table|json` as a user runs it "
          f"(fresh process, warm cache), medians of {args.shape_rounds}")
    print(f"| lockfile | table (target ≤ {SHAPE_TARGET_S:.0f} s) | json | exit | nodes answered |",
          "|---|---|---|---|---|", sep="\n")
    for shape, by_format in shapes.items():
        (table_s, code, rows), (json_s, _, json_rows) = by_format["table"], by_format["json"]
        print(f"| {SHAPES[shape][1]} | {table_s:.2f} s | {json_s:.2f} s | {code} | {rows:,} / {json_rows:,} |")
    met = added <= TARGET_S and all(by_format["table"][0] <= SHAPE_TARGET_S for by_format in shapes.values())
    print(f"target: {'met' if met else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
