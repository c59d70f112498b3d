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
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.generate_corpus import generate  # noqa: E402
from cachetui.core.cache import CorpusCache  # noqa: E402
from cachetui.core.corpus import load_corpus  # noqa: E402
from cachetui.core.frontmatter import split_front_matter  # noqa: E402
from cachetui.core.loader import find_candidates  # noqa: E402
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
    """Cold load (parse + model, no cache): parallel default, serial, and the naive loader, alternating."""
    runs: dict[str, list[float]] = {"parallel": [], "serial": [], "naive": []}
    for i in range(rounds):
        runs["parallel"].append(timed(lambda: load_corpus([root])))
        runs["serial"].append(timed(lambda: load_corpus([root], workers=1)))
        if i < naive_rounds:
            runs["naive"].append(timed(lambda: naive_load(root)))
    medians = {k: statistics.median(v) for k, v in runs.items()}
    megabytes = tree_megabytes(root)
    return {
        "cold_s": medians["parallel"], "serial_s": medians["serial"], "naive_s": medians["naive"],
        "mb": megabytes, "mb_per_s": megabytes / medians["parallel"], "ratio": medians["naive"] / medians["parallel"],
    }


def _child(code: str, env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return done.stdout.split()


def measure_rss(root: Path) -> float:
    """Peak RSS of a process that cold-loads the tree (MB)."""
    code = (
        "import resource; from cachetui.core.corpus import load_corpus; "
        f"c = load_corpus([{str(root)!r}]); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    return int(_child(code, dict(os.environ))[-1]) / 1024


def measure_warm(root: Path, rounds: int) -> dict[str, float]:
    """Second launch on unchanged files: process start to a first frame with the table filled."""
    with tempfile.TemporaryDirectory() as cache_home:
        env = dict(os.environ, XDG_CACHE_HOME=cache_home)
        load_corpus([root], cache=CorpusCache(Path(cache_home) / "cachetui"))
        times, rss = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            child = subprocess.Popen([sys.executable, str(HERE / "first_frame.py"), str(root)],
                                     stdout=subprocess.PIPE, text=True, env=env)
            line = child.stdout.readline().split()  # "READY <cache status> <maxrss kB>"
            times.append(time.perf_counter() - start)
            child.wait()
            assert line and line[0] == "READY" and line[1] == "hit", line
            rss.append(int(line[2]) / 1024)
    return {"warm_s": statistics.median(times), "app_rss_mb": max(rss)}


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


def run(scales: list[str], rounds: int) -> dict[str, dict[str, float]]:
    results = {}
    for scale in scales:
        root = corpus_dir(scale)
        print(f"[{scale}] cold load ...", flush=True)
        row = measure_cold(root, rounds, naive_rounds=rounds if scale != "L" else 1)
        print(f"[{scale}] peak RSS ...", flush=True)
        row["rss_mb"] = measure_rss(root)
        print(f"[{scale}] warm start ...", flush=True)
        row.update(measure_warm(root, rounds))
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
        "120x40): each is key (or toggle) -> the app has processed it and composed the new frame",
        "(widgets rendered); the write to a real terminal is not included.",
        "",
    ]
    for scale, r in results.items():
        lines += [
            f"## Scale {scale}",
            "",
            "| measure | target (at L) | measured | |",
            "|---|---|---|---|",
            f"| cold load, parse + model (parallel, default) | ≤ {TARGETS['cold_s']:.0f} s | {r['cold_s']:.2f} s "
            f"({r['mb_per_s']:.0f} MB/s over {r['mb']:.0f} MB) | {verdict(r['cold_s'], TARGETS['cold_s'])} |",
            f"| cold load, one process | | {r['serial_s']:.2f} s | |",
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
            "",
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="site-scale benchmarks")
    parser.add_argument("--scales", nargs="+", default=["M", "L"], choices=["S", "M", "L"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    results = run(args.scales, args.rounds)
    command = "make bench" if (args.scales, args.rounds) == (["M", "L"], 3) else " ".join(["make bench", *sys.argv[1:]])
    args.out.write_text(render(results, command) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
