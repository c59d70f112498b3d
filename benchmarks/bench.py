"""`make bench`: site-scale measurements at M and L, written to benchmarks/RESULTS.md.

    python benchmarks/bench.py [--scales M L] [--rounds N] [--out benchmarks/RESULTS.md]

Corpora come from benchmarks/generate_corpus.py (seed 0) under benchmarks/corpora/.
Every comparison is measured side by side in the same run, alternating, and
reported as medians; the machine is recorded with the results.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.generate_corpus import generate  # noqa: E402
from benchmarks.harness import measure_warm, peak_rss_mb  # noqa: E402
from benchmarks.mirror_bench import measure_mirror, render_mirror  # noqa: E402
from cachetui.core.corpus import load_corpus  # noqa: E402
from cachetui.core.sources.site.frontmatter import split_front_matter  # noqa: E402
from cachetui.core.sources.site.loader import find_candidates  # noqa: E402
from cachetui.core.problems import LoadReport  # noqa: E402

NAIVE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
TARGETS = {
    "cold_s": 10.0, "ratio": 15.0, "warm_s": 1.5, "rss_mb": 600.0,
    "key_p95_ms": 50.0, "facet_pkg_p95_ms": 100.0, "facet_all_p95_ms": 300.0, "page_ms": 50.0,
}


def corpus_dir(scale: str) -> Path:
    root = HERE / "corpora" / scale
    if not (root / "_cache").is_dir():
        print(f"generating scale {scale} into {root} ...", flush=True)
        generate(root, scale, seed=0)
    return root


def naive_load(root: Path) -> int:
    """The baseline: yaml.safe_load (C loader) of each whole front matter, nothing else."""
    specs = 0
    for candidate in find_candidates([root], LoadReport()):
        with open(candidate.path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if text.startswith("---"):
            data = yaml.load("\n".join(split_front_matter(text)), Loader=NAIVE_LOADER)  # noqa: S506 - safe
            specs += len(data.get("spec_details") or [])
    return specs


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def tree_megabytes(root: Path) -> float:
    return sum(os.path.getsize(c.path) for c in find_candidates([root], LoadReport())) / 1e6


def measure_cold(root: Path, rounds: int, naive_rounds: int) -> dict[str, float]:
    """Cold load (parse + model, no cache): the default, two workers, and the naive loader, alternating."""
    runs: dict[str, list[float]] = {"default": [], "workers2": [], "naive": []}
    for i in range(rounds):
        runs["default"].append(timed(lambda: load_corpus([root])))
        runs["workers2"].append(timed(lambda: load_corpus([root], workers=2)))
        if i < naive_rounds:
            runs["naive"].append(timed(lambda: naive_load(root)))
    medians = {k: statistics.median(v) for k, v in runs.items()}
    megabytes = tree_megabytes(root)
    return {
        "cold_s": medians["default"], "workers2_s": medians["workers2"], "naive_s": medians["naive"],
        "mb": megabytes, "mb_per_s": megabytes / medians["default"], "ratio": medians["naive"] / medians["default"],
    }


def measure_rss(root: Path) -> float:
    """Peak RSS of a process that cold-loads the tree (MB)."""
    return peak_rss_mb(f"from cachetui.core.corpus import load_corpus; c = load_corpus([{str(root)!r}])")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure_ui(root: Path) -> dict[str, float]:
    from benchmarks.ui_timings import WALL, drive

    samples = asyncio.run(drive(root))
    out: dict[str, float] = {}
    for name, values in samples.items():
        out[f"{name}_p50_ms"] = percentile(values, 0.5) * 1e3
        out[f"{name}_p95_ms"] = percentile(values, 0.95) * 1e3
        out[f"{name}_wall_p50_ms"] = percentile(WALL[name], 0.5) * 1e3
        out[f"{name}_wall_p95_ms"] = percentile(WALL[name], 0.95) * 1e3
        out[f"{name}_n"] = len(values)
    return out


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    mem = next((int(line.split()[1]) / 2**20 for line in open("/proc/meminfo") if line.startswith("MemTotal")), 0)
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python {platform.python_version()}, {platform.system()}"


def run(scales: list[str], rounds: int, mirror: bool) -> dict[str, dict[str, float]]:
    results = {}
    if mirror:
        print("[mirror] cold load, RSS, warm start ...", flush=True)
        results["mirror"] = measure_mirror(rounds)
        print(f"[mirror] {results['mirror']}", flush=True)
    for scale in scales:
        root = corpus_dir(scale)
        print(f"[{scale}] cold load ...", flush=True)
        row = measure_cold(root, rounds, naive_rounds=rounds if scale != "L" else 1)
        print(f"[{scale}] peak RSS ...", flush=True)
        row["rss_mb"] = measure_rss(root)
        print(f"[{scale}] warm start ...", flush=True)
        row.update(measure_warm(str(root), rounds))
        print(f"[{scale}] keystrokes, facet toggles, page-down ...", flush=True)
        row.update(measure_ui(root))
        results[scale] = row
        print(f"[{scale}] {row}", flush=True)
    return results


def verdict(value: float, target: float, higher_is_better: bool = False) -> str:
    met = value >= target if higher_is_better else value <= target
    return "met" if met else "**not met**"


def render(results: dict[str, dict[str, float]], command: str) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Command: `{command}` (corpora: `benchmarks/generate_corpus.py`, seed 0).",
        f"Machine: {machine()}. Shared and noisy: every figure is a median of runs made side by side,",
        "alternating, in one invocation. Generated on " + datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") + ".",
        "",
        "Keystroke, facet and page-down times are driven through the real app with Pilot (headless,",
        "120x40): each is the CPU time the app spends from the key (or toggle) until it has processed it",
        "and composed the new frame (widgets rendered); the app is otherwise idle, so this is the work",
        "that stands between a key and the repaint. Pilot's own wall time is shown beside it: it adds",
        "Pilot's waiting for idleness, measured on a key bound to nothing (the no-op row). Writing to a",
        "real terminal is not included.",
        "",
    ]
    if "mirror" in results:
        lines += render_mirror(results["mirror"])
    for scale, r in results.items():
        if scale == "mirror":
            continue
        lines += [
            f"## Scale {scale}",
            "",
            "| measure | target (at L) | measured | |",
            "|---|---|---|---|",
            f"| cold load, parse + model (default: one process) | ≤ {TARGETS['cold_s']:.0f} s | {r['cold_s']:.2f} s "
            f"({r['mb_per_s']:.0f} MB/s over {r['mb']:.0f} MB) | {verdict(r['cold_s'], TARGETS['cold_s'])} |",
            f"| cold load, two worker processes (`--workers 2`) | | {r['workers2_s']:.2f} s | |",
            f"| naive loader (yaml.safe_load, C) on the same files | | {r['naive_s']:.2f} s | |",
            f"| speed-up over the naive loader | ≥ {TARGETS['ratio']:.0f}x | {r['ratio']:.1f}x | "
            f"{verdict(r['ratio'], TARGETS['ratio'], higher_is_better=True)} |",
            f"| warm start: launch to first frame with the table filled | ≤ {TARGETS['warm_s']} s | {r['warm_s']:.2f} s "
            f"| {verdict(r['warm_s'], TARGETS['warm_s'])} |",
            f"| peak RSS, cold load | ≤ {TARGETS['rss_mb']:.0f} MB | {r['rss_mb']:.0f} MB "
            f"| {verdict(r['rss_mb'], TARGETS['rss_mb'])} |",
            f"| peak RSS, the app on a warm start | | {r['app_rss_mb']:.0f} MB | |",
            f"| keystroke -> package list repainted, p50 / p95 | p95 ≤ {TARGETS['key_p95_ms']:.0f} ms | "
            f"{r['key_p50_ms']:.1f} / {r['key_p95_ms']:.1f} ms (n={r['key_n']:.0f}) "
            f"| {verdict(r['key_p95_ms'], TARGETS['key_p95_ms'])} |",
            f"| facet toggle, one package, p50 / p95 | p95 ≤ {TARGETS['facet_pkg_p95_ms']:.0f} ms | "
            f"{r['facet_pkg_p50_ms']:.1f} / {r['facet_pkg_p95_ms']:.1f} ms (n={r['facet_pkg_n']:.0f}) "
            f"| {verdict(r['facet_pkg_p95_ms'], TARGETS['facet_pkg_p95_ms'])} |",
            f"| facet toggle, all specs, p50 / p95 | p95 ≤ {TARGETS['facet_all_p95_ms']:.0f} ms | "
            f"{r['facet_all_p50_ms']:.1f} / {r['facet_all_p95_ms']:.1f} ms (n={r['facet_all_n']:.0f}) "
            f"| {verdict(r['facet_all_p95_ms'], TARGETS['facet_all_p95_ms'])} |",
            f"| page-down in the all-specs table, p50 / p95 | ≤ {TARGETS['page_ms']:.0f} ms | "
            f"{r['page_p50_ms']:.1f} / {r['page_p95_ms']:.1f} ms (n={r['page_n']:.0f}) "
            f"| {verdict(r['page_p95_ms'], TARGETS['page_ms'])} |",
            f"| no-op key (the harness floor), p50 / p95 | | {r['noop_p50_ms']:.1f} / {r['noop_p95_ms']:.1f} ms | |",
            "",
            "Pilot wall times, p50 / p95 (harness waiting included): "
            + "; ".join(f"{label} {r[f'{key}_wall_p50_ms']:.0f} / {r[f'{key}_wall_p95_ms']:.0f} ms"
                        for key, label in (("noop", "no-op key"), ("key", "keystroke"), ("facet_pkg", "facet, package"),
                                           ("facet_all", "facet, all"), ("page", "page-down"))) + ".",
            "",
        ]
    return "\n".join(lines)


# Why a target can be missed on this machine, printed beside any target that is.
BLOCKERS = {
    "ratio": (
        "The cold load walks the tree, reads every file, checks every field and builds the model; "
        "the naive loader only parses. Reading alone takes 0.9-4.6 s at L depending on the OS page "
        "cache, and `json.loads` of the values alone about 1.2-2 s (the ~28x bound). What remains is "
        "about 60 us of Python per document (50,000 documents of ~10 specs): splitting, the per-column "
        "type checks, meta consistency checks, interning. On this shared 2-core machine, whether one "
        "process or two workers (`--workers 2`) is faster changed from run to run (reading dominates "
        "the variance), so the default stays one process: steady, and half the CPU."
    ),
    "warm_s": (
        "About 0.35 s is importing Python, numpy and Textual, about 0.5 s is reading the cache "
        "(a 130 MB pickle at L) and checking 100k file and directory stats; the rest is the first frame."
    ),
    "facet_pkg_p95_ms": (
        "The query itself takes ~12 ms for the largest package; the rest is Textual composing the frames "
        "that follow a change of row counts (a layout pass repaints every pane, ~20-25 ms a frame here)."
    ),
    "facet_all_p95_ms": "As for one package, plus the counts over all 500k specs (~50 ms).",
    "key_p95_ms": "Fuzzy ranking runs in C (rapidfuzz cdist); the rest is repainting the list.",
    "page_ms": "The table renders only visible rows; the rest is repainting the detail pane and frame.",
    "cold_s": "See the ratio note.",
    "rss_mb": "Specs are numpy columns; Python objects exist for one document at a time.",
}


def blockers(results: dict[str, dict[str, float]]) -> list[str]:
    """Notes for every target missed at L (or at the largest scale measured)."""
    scales = [s for s in results if s != "mirror"]
    if not scales:
        return []
    scale = "L" if "L" in scales else scales[-1]
    r = results[scale]
    missed = [
        key for key, higher in (("cold_s", False), ("ratio", True), ("warm_s", False), ("rss_mb", False),
                                ("key_p95_ms", False), ("facet_pkg_p95_ms", False),
                                ("facet_all_p95_ms", False), ("page_ms", False))
        if verdict(r[key if key != "page_ms" else "page_p95_ms"], TARGETS[key], higher) != "met"
    ]
    if not missed:
        return [f"Every target is met at scale {scale}."]
    return [f"## What blocks the targets missed at scale {scale}", ""] + [f"- **{k}**: {BLOCKERS[k]}" for k in missed]


def main() -> None:
    parser = argparse.ArgumentParser(description="site-scale benchmarks")
    parser.add_argument("--scales", nargs="+", default=["M", "L"], choices=["S", "M", "L"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-mirror", action="store_true", help="skip the 120,000-record mirror index")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--render-from", type=Path, help="re-render RESULTS.md from a saved RESULTS.json")
    args = parser.parse_args()
    if args.render_from:
        results = json.loads(args.render_from.read_text())
    else:
        results = run(args.scales, args.rounds, mirror=not args.no_mirror)
        args.out.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    default = (args.scales, args.rounds, args.no_mirror) == (["M", "L"], 3, False)
    command = "make bench" if default else f"make bench BENCH_ARGS='{' '.join(sys.argv[1:])}'"
    args.out.write_text(render(results, command) + "\n\n" + "\n".join(blockers(results)) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
