"""Loader speed against plain `yaml.safe_load` (C loader) of the same front matter, side by side.

    python benchmarks/loader_ratio.py [PATH ...] [--rounds N]

Each round parses every document both ways, in alternating order; medians and
their ratio are printed. Both sides read the same in-memory text, so this
measures parsing, not the disk.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.document import interpret
from cachetui.core.load.sources.site.frontmatter import split_front_matter
from cachetui.core.load.sources.site.loader import Candidate, find_candidates
from cachetui.core.load.sources.site.parse import parse_front_matter
from cachetui.core.model.problems import LoadReport

NAIVE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _no_spec_files(name: str) -> tuple[None, str]:
    return None, "not read in this benchmark"


def ours(path: str, text: str) -> int:
    parsed, key_lines = parse_front_matter(split_front_matter(text))
    return len(interpret(parsed, path, key_lines, _no_spec_files).specs)


def naive(path: str, text: str) -> int:
    data = yaml.load("\n".join(split_front_matter(text)), Loader=NAIVE_LOADER)  # noqa: S506 - safe C loader
    return len(data.get("spec_details") or [])


def _time(fn: Callable[[str, str], int], texts: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    for path, text in texts:
        fn(path, text)
    return time.perf_counter() - start


def read_texts(paths: list[str]) -> list[tuple[str, str]]:
    candidates: list[Candidate] = find_candidates(paths, LoadReport())
    texts = []
    for candidate in candidates:
        text = Path(candidate.path).read_text(encoding="utf-8", errors="replace")
        if text.startswith("---"):
            texts.append((candidate.path, text))
    return texts


def compare(paths: list[str], rounds: int) -> dict[str, float]:
    texts = read_texts(paths)
    assert all(ours(p, t) == naive(p, t) for p, t in texts), "both sides must see the same specs"
    ours_times, naive_times = [], []
    for i in range(rounds):
        pair = [(ours_times, ours), (naive_times, naive)]
        for times, fn in pair if i % 2 == 0 else reversed(pair):
            times.append(_time(fn, texts))
    megabytes = sum(len(t.encode()) for _, t in texts) / 1e6
    ours_s, naive_s = statistics.median(ours_times), statistics.median(naive_times)
    return {"documents": len(texts), "megabytes": megabytes, "ours_s": ours_s, "naive_s": naive_s,
            "ratio": naive_s / ours_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[str(sample_path())])
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    r = compare(args.paths, args.rounds)
    print(f"{r['documents']} documents, {r['megabytes']:.2f} MB, median of {args.rounds} rounds:")
    print(f"  cachetui loader     {r['ours_s'] * 1e3:8.2f} ms")
    print(f"  yaml.safe_load (C)  {r['naive_s'] * 1e3:8.2f} ms")
    print(f"  ratio               {r['ratio']:8.1f}x faster")


if __name__ == "__main__":
    main()
