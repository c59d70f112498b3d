"""Time the spec table's layout: measuring an answer, and planning it at the widths the table gets.

    python benchmarks/table_plan.py [--tree varied-S] [--rounds 20]

The answers are the all-packages view and two hdf5 queries on a varied tree (seed 0, generated
under benchmarks/corpora/ on first use); the rooms are the table's content width at 60x15, 80x24
and 120x40 (all packages, then one package or query open). Medians in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench import corpus_dir  # noqa: E402
from cachetui.core.load.pipeline import load_corpus  # noqa: E402
from cachetui.core.query.interpret import interpret  # noqa: E402
from cachetui.core.query.query import Query  # noqa: E402
from cachetui.core.query.results import results_for  # noqa: E402
from cachetui.core.spack.specquery import parse_spec_query  # noqa: E402
from cachetui.present.spec_table.table_cells import SpecRows  # noqa: E402
from cachetui.present.spec_table.table_layout import HIDDEN_AT_FIRST  # noqa: E402
from cachetui.present.spec_table.table_plan import measure, plan  # noqa: E402

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
        timings = [f"measure {median_ms(lambda: measure(rows, HIDDEN_AT_FIRST), args.rounds):.1f} ms"]
        timings += [f"plan@{room} {median_ms(lambda: plan(measured, room), args.rounds):.1f} ms"  # noqa: B023
                    for room in rooms]
        print(f"  {name} ({len(rows.indices)} rows): " + ", ".join(timings))


if __name__ == "__main__":
    main()
