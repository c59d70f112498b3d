#!/usr/bin/env python3
"""Dependency queries (`^name`) on the 120,000-record mirror: what `^` adds to the same query without it.

    .venv/bin/python benchmarks/dependency_queries.py [--rounds 5]

Issue 22's target: warm, a query with `^` costs at most 150 ms more than the same query
without it. The mirror (benchmarks/generate_mirror.py, seed 0) is loaded once; the first `^`
query builds the dependency graph, timed on its own; then each pair of queries is timed
alternating, through `select` as the CLI and the browser both ask, and the medians printed.
A corpus keeps its last dependency answers, so each `^` names another package (pkg0003,
pkg0004, ...: among the most depended on): every one timed is worked out anew.

Then as a user feels it: `cachetui query MIRROR --spec S --format json`, each a process of its own from exec to
exit, warm (the cache is filled first), with and without a `^` (alternating, which goes first alternating too):
what a `^` adds to a command, the dependency graph included (the warm cache keeps it).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate_mirror import TARGETS  # noqa: E402
from benchmarks.mirror_bench import mirror_dir  # noqa: E402
from cachetui.core.load.pipeline import load_corpus  # noqa: E402
from cachetui.core.model.corpus import Corpus  # noqa: E402
from cachetui.core.query.query import Query, select  # noqa: E402
from cachetui.core.spack.specquery import parse_spec_query  # noqa: E402

TARGET_MS = 150.0


def timed(corpus: Corpus, text: str) -> tuple[float, int]:
    """Seconds to answer the spec query `text` (all of the corpus when empty), and how many specs match."""
    query = Query(spec=parse_spec_query(text)) if text else Query()
    start = time.perf_counter()
    found = len(select(corpus, query).indices())
    return time.perf_counter() - start, found


def pairs(corpus: Corpus, round_: int) -> list[tuple[str, str]]:
    """(without `^`, with it): every binary's runtime, packages many depend on, one's version.

    Each `^` names a package no other query of the run names (a mask asked for again is kept).
    """
    first = 3 + 4 * round_  # pkg0003 on: built early on every target, later specs depend on them most
    a, b, c, d = (f"pkg{first + k:04}" for k in range(4))
    version = corpus.spec(corpus.package_slice(b).start).version
    user = corpus.packages[len(corpus.packages) // 2]
    runtime = f"^gcc-runtime@13.2.0 target={sorted(TARGETS)[round_ % len(TARGETS)]}"
    return [("", runtime), ("", f"^{a}"), ("", f"^{b}@{version}"), (user, f"{user} ^{c}"), ("+mpi", f"+mpi ^{d}")]


def _command_seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False, cwd=Path(__file__).resolve().parent.parent)
    return time.perf_counter() - start


def felt(rounds: int) -> list[str]:
    """Warm `cachetui query` with and without a `^`, each a whole process: the medians and what `^` adds."""
    command = [sys.executable, "-m", "cachetui", "query", str(mirror_dir()), "--format", "json", "--spec"]
    subprocess.run([*command, "pkg0001"], capture_output=True, check=False)  # the warm cache, filled once
    plain: list[float] = []
    dep: list[float] = []
    for round_ in range(rounds):
        user = f"pkg{1400 + round_:04}"
        asked = [(plain, [*command, user]), (dep, [*command, f"{user} ^pkg{60 + round_:04}"])]
        for into, asking in asked if round_ % 2 == 0 else reversed(asked):
            into.append(_command_seconds(asking))
    base, with_dep = statistics.median(plain) * 1000, statistics.median(dep) * 1000
    added = statistics.median(d - p for d, p in zip(dep, plain)) * 1000
    verdict = "met" if added <= TARGET_MS else "missed"
    return [f"as felt, warm `cachetui query` (a process each, medians of {rounds} rounds): `pkg1400` {base:.0f} ms, "
            f"`pkg1400 ^pkg0060` {with_dep:.0f} ms; a `^` adds {added:+.0f} ms (median of each round's "
            f"difference), target ≤ {TARGET_MS:.0f} ms: {verdict}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    corpus = load_corpus([str(mirror_dir())])
    print(f"{corpus.n_specs:,} specs loaded; the first `^` query builds the dependency graph: "
          f"{timed(corpus, '^gcc-runtime')[0] * 1000:.0f} ms")
    print(f"medians of {args.rounds} rounds (the queries of the last round shown)")
    print("| query | without `^` | with `^` | added (target ≤ 150 ms) | specs |", "|---|---|---|---|---|", sep="\n")
    times: dict[int, dict[str, list[float]]] = {}
    found: dict[int, int] = {}
    for round_ in range(args.rounds):
        for k, (plain, with_dep) in enumerate(pairs(corpus, round_)):
            kind = times.setdefault(k, {"plain": [], "dep": []})
            kind["plain"].append(timed(corpus, plain)[0])
            seconds, found[k] = timed(corpus, with_dep)
            kind["dep"].append(seconds)
    worst = 0.0
    for k, (plain, with_dep) in enumerate(pairs(corpus, args.rounds - 1)):
        base, dep = (statistics.median(times[k][side]) * 1000 for side in ("plain", "dep"))
        worst = max(worst, dep - base)
        print(f"| `{with_dep}` | {base:.0f} ms (`{plain or 'everything'}`) | {dep:.0f} ms | {dep - base:+.0f} ms "
              f"| {found[k]:,} |")
    verdict = "met" if worst <= TARGET_MS else "missed"
    print(f"most added by `^`: {worst:.0f} ms, target ≤ {TARGET_MS:.0f} ms: {verdict}")
    print("\n".join(felt(args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
