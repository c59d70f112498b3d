#!/usr/bin/env python3
"""What push dates cost a load: a 120,000-record local v3 mirror with a spec manifest per binary, loaded with the
walk of its records (`push_dates`) and without it (the walk switched off), in one run, side by side.

    .venv/bin/python benchmarks/push_dates_bench.py [--rounds 3]

Target: at most 0.5 s added to the cold load (`load_corpus` with no cache). The warm load reads the dates from the
cache and walks nothing: it is measured too, to show it. Rounds alternate with and without, and the medians are
printed, with what the walk costs the load's own path, apart from the machine's noise: how long the load waited for
the walk once the index was read (`PendingDates.result`), and how long filling the column took (`fill`).
The mirror is benchmarks/generate_mirror.py's (seed 0) with `--spec-manifests`, generated once into
benchmarks/corpora/mirror-120000-manifests; every date the load gives is checked against `pushed_at`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate_mirror import generate, pushed_at
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.options import LoadOptions
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources import indexes, push_dates
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.records import UNKNOWN_PUSHED

HERE = Path(__file__).resolve().parent
RECORDS = 120_000
TARGET_S = 0.5


def mirror(records: int = RECORDS) -> Path:
    root = HERE / "corpora" / f"mirror-{records}-manifests"
    if not (root / "v3" / "manifests" / "spec").is_dir():
        print(f"generating a {records:,}-record mirror with spec manifests into {root} ...", flush=True)
        generate(root, records, seed=0, spec_manifests=True)
    return root


@contextmanager
def walking(on: bool) -> Iterator[None]:
    """The load as it is, or with no record store to date (the walk switched off)."""
    kept = indexes.record_stores
    if not on:
        indexes.record_stores = lambda located: []  # type: ignore[assignment]
    try:
        yield
    finally:
        indexes.record_stores = kept  # type: ignore[assignment]


@contextmanager
def clocked(spent: dict[str, list[float]]) -> Iterator[None]:
    """Each wait for the walk's result, and each filling of the column, timed into `spent`."""
    result, fill = push_dates.PendingDates.result, indexes.fill

    def timed_result(self: push_dates.PendingDates) -> push_dates.PushDates:
        start = time.perf_counter()
        try:
            return result(self)
        finally:
            spent["wait"].append(time.perf_counter() - start)

    def timed_fill(*args: Any) -> None:
        start = time.perf_counter()
        fill(*args)
        spent["fill"].append(time.perf_counter() - start)

    push_dates.PendingDates.result = timed_result  # type: ignore[method-assign]
    indexes.fill = timed_fill
    try:
        yield
    finally:
        push_dates.PendingDates.result = result  # type: ignore[method-assign]
        indexes.fill = fill


def timed(load: Callable[[], Corpus]) -> tuple[float, Corpus]:
    start = time.perf_counter()
    corpus = load()
    return time.perf_counter() - start, corpus


def checked(corpus: Corpus) -> int:
    """How many binaries are dated; raises when one date is not the one its manifest was given."""
    dated = 0
    for i, hash_ in enumerate(corpus.hashes):
        when = int(corpus.pushed[i])
        if when != UNKNOWN_PUSHED:
            assert when == pushed_at(hash_, 0), (hash_, when)
            dated += 1
    return dated


def measure(rounds: int) -> dict[str, float]:
    root = [str(mirror())]
    cold: dict[bool, list[float]] = {True: [], False: []}
    warm: dict[bool, list[float]] = {True: [], False: []}
    dated = {}
    spent: dict[str, list[float]] = {"wait": [], "fill": []}
    with tempfile.TemporaryDirectory() as scratch:
        caches = {on: CorpusCache(Path(scratch) / ("with" if on else "without")) for on in (True, False)}
        for _ in range(rounds):
            for on in (True, False):
                with walking(on), clocked(spent) if on else nullcontext():
                    seconds, corpus = timed(partial(load_corpus, root, LoadOptions(use_cache=False)))
                cold[on].append(seconds)
                dated[on] = checked(corpus)
                del corpus
        for on in (True, False):
            with walking(on):
                load_corpus(root, LoadOptions(use_cache=True), cache=caches[on])  # fills the cache
        for _ in range(rounds):
            for on in (True, False):
                with walking(on):
                    seconds, corpus = timed(partial(load_corpus, root, LoadOptions(use_cache=True), cache=caches[on]))
                assert corpus.cache_status == "hit", corpus.cache_status
                assert checked(corpus) == dated[on]
                warm[on].append(seconds)
                del corpus
    return {"cold_with": statistics.median(cold[True]), "cold_without": statistics.median(cold[False]),
            "warm_with": statistics.median(warm[True]), "warm_without": statistics.median(warm[False]),
            "paired": statistics.median(w - wo for w, wo in zip(cold[True], cold[False])),
            "best_with": min(cold[True]), "best_without": min(cold[False]),
            "dated": float(dated[True]), "dated_without": float(dated[False]),
            "wait": statistics.median(spent["wait"]), "fill": statistics.median(spent["fill"])}


def render(r: dict[str, float], rounds: int) -> list[str]:
    added = r["cold_with"] - r["cold_without"]  # the target is checked against the medians: the plain reading
    verdict = "met" if added <= TARGET_S else "**not met**"
    return [
        f"## Push dates: a {RECORDS:,}-record local v3 mirror with a spec manifest per binary "
        f"(median of {rounds} rounds)",
        "",
        "| load | without the walk | with it | added | target |",
        "|---|---|---|---|---|",
        f"| cold (`use_cache=False`) | {r['cold_without']:.2f} s | {r['cold_with']:.2f} s | {added:+.2f} s | "
        f"≤ {TARGET_S} s: {verdict} |",
        f"| warm (cache hit) | {r['warm_without']:.3f} s | {r['warm_with']:.3f} s | "
        f"{r['warm_with'] - r['warm_without']:+.3f} s | |",
        "",
        f"The same rounds read other ways, against a shared machine's noise: the median of each round's difference "
        f"{r['paired']:+.2f} s; the best of each, {r['best_without']:.2f} s without and {r['best_with']:.2f} s with "
        f"({r['best_with'] - r['best_without']:+.2f} s).",
        "",
        f"Of the cold load's added time, on its own path: {r['wait']:.3f} s waiting for the walk once the index was "
        f"read, {r['fill']:.3f} s filling the column (medians). The rest is the machine: the walk's process takes a "
        f"core beside the load's.",
        "",
        f"Binaries dated: {r['dated']:,.0f} with the walk, {r['dated_without']:,.0f} without; every date checked.",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print("\n".join(render(measure(args.rounds), args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
