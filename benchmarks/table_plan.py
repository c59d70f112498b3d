"""Time the spec table's layout: measuring an answer, and planning it at the widths the table gets.

    python benchmarks/table_plan.py [--tree varied-S] [--rounds 20]

The answers are the all-packages view and two hdf5 queries on a varied tree (seed 0, generated
under benchmarks/corpora/ on first use); the rooms are the table's content width at 60x15, 80x24
and 120x40 (all packages, then one package or query open). Medians in milliseconds. Then, per view and
room, the differs column's width and how many of the keys painted on the first six pages (198 rows, at
120x40) it cuts: what a user reads, beside what planning it costs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench import corpus_dir
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.query.interpret import interpret
from cachetui.core.query.query import Query
from cachetui.core.query.results import results_for
from cachetui.core.spack.specquery import parse_spec_query
from cachetui.present.spec_table.table_cells import SpecRows
from cachetui.present.spec_table.table_layout import HIDDEN_AT_FIRST
from cachetui.present.spec_table.table_plan import Measured, differs_getter, measure, plan

VIEWS = {"all packages": (None, (38, 58, 75)), "hdf5": ("hdf5", (42, 62, 79)),
         "hdf5 +mpi %gcc": ("hdf5 +mpi %gcc", (42, 62, 79))}


def median_ms(fn: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", default="varied-S")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    corpus = load_corpus([corpus_dir(args.tree)])
    print(f"{args.tree}: {corpus.n_specs} specs; medians of {args.rounds} rounds")
    for name, (text, rooms) in VIEWS.items():
        query = Query() if text is None else interpret(corpus, parse_spec_query(text), Query(), None).query
        results = results_for(corpus, query)
        rows = SpecRows(corpus, results.indices, package=query.package, common=results.common)
        measured = measure(rows, HIDDEN_AT_FIRST)
        timings = [f"measure {median_ms(lambda: measure(rows, HIDDEN_AT_FIRST), args.rounds):.1f} ms"]  # noqa: B023 - called at once
        timings += [f"plan@{room} {median_ms(lambda: plan(measured, room), args.rounds):.1f} ms"  # noqa: B023
                    for room in rooms]
        print(f"  {name} ({len(rows.indices)} rows): " + ", ".join(timings))
        print("    differs: " + ", ".join(_painted(rows, measured, room) for room in rooms))


def _painted(rows: SpecRows, measured: Measured, room: int) -> str:
    """`@75 24 cells, 63/198 keys cut`: the differs column at a room, and the first six pages' keys it cuts."""
    chosen = plan(measured, room)
    width = chosen.widths.get("differs", 0)
    key = differs_getter(rows, measured.getters, chosen, measured.siblings)
    painted = [key(int(spec)) for spec in rows.indices[:PAGES_ROWS]]
    cut = sum(len(text) > width for text in painted if text)
    return f"@{room} {width} cells, {cut}/{len(painted)} keys cut"


PAGES_ROWS = 6 * 33  # six pages of the table at 120x40


if __name__ == "__main__":
    main()
