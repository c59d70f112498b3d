"""Measurements shared by the benchmarks: child processes for peak memory and warm starts."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus

HERE = Path(__file__).resolve().parent
# VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child would report its parent's peak.
PEAK_RSS = "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))"


def child(code: str, env: dict[str, str] | None = None) -> list[str]:
    """Run `code` in a fresh Python; its stdout, split."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=env or dict(os.environ))
    return done.stdout.split()


def peak_rss_mb(code: str) -> float:
    """Peak RSS (MB) of a fresh process that runs `code`."""
    return int(child(f"{code}; {PEAK_RSS}")[-1]) / 1024


def measure_warm(source: str, rounds: int) -> dict[str, float]:
    """Second launch on unchanged inputs: process start to a first frame with the table filled."""
    with tempfile.TemporaryDirectory() as cache_home:
        env = dict(os.environ, XDG_CACHE_HOME=cache_home)
        load_corpus([source], cache=CorpusCache(Path(cache_home) / "cachetui"))
        times, rss = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            process = subprocess.Popen([sys.executable, str(HERE / "first_frame.py"), source],
                                       stdout=subprocess.PIPE, text=True, env=env)
            line = process.stdout.readline().split()  # "READY <cache status> <peak RSS kB> <seconds>"
            times.append(time.perf_counter() - start)
            process.wait()
            assert line and line[0] == "READY" and line[1] == "hit", line
            rss.append(int(line[2]) / 1024)
    return {"warm_s": statistics.median(times), "app_rss_mb": max(rss)}
