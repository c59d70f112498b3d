#!/usr/bin/env python3
"""How soon a start says something: the first progress line of a cold `cachetui check`, the browser's first
frame cold, and warm its first useful frame (the package list filled: the glance of the last reading, or the corpus
shown) and the corpus shown, beside the bare Textual app's first frame, each in a pseudo-terminal, in one run.

    .venv/bin/python benchmarks/first_line.py [SOURCE ...] [--rounds 5]

SOURCEs default to the 120,000-record benchmark mirror (benchmarks/generate_mirror.py) and the varied 500k-spec tree
of `make bench`; the cold rounds (the first SOURCE only) read it with --no-cache, so every one is a cold load; the
warm rounds read each through a warm cache of their own (written once first). The bare app (`bare_app.py`) is fed
the SOURCE's package names, as the performance issue describes it. Targets (issue 43): a first progress line within
0.3 s of start; the warm first useful frame within 1.5x the bare app's first frame. Times are from the process's
start to its first output (check: its progress line; the apps: the end of their first frame, as the terminal shows
it; warm: the frame that holds the filled package list's count, the glance's or the corpus's); medians of the
rounds, all alternating.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import generate_varied
from benchmarks.mirror_bench import mirror_dir
from benchmarks.pty_keys import HERE, LOADED, PYTHON, Session

TARGET_S = 0.3
SHOWN = (LOADED,)  # the status line's count of the answer, once the corpus is shown
# The glance's status line (`present/browse/glance.py`), drawn with the package list of the last reading.
GLANCED = re.compile(rb"\d specs as last read")
USEFUL = (GLANCED, LOADED)  # the first useful frame: the package list filled, from the glance or the corpus
WARM_RATIO = 1.5  # the warm first useful frame, at most this many times the bare app's first frame
LIMIT_S = 20.0


def first_output(argv: list[str], frame: bool, markers: tuple[re.Pattern[bytes], ...] = (),
                 env: dict[str, str] | None = None) -> float:
    """Seconds from start to the first output (`frame`: to the end of the first frame; `markers`: to the output
    that holds one of them)."""
    start = time.perf_counter()
    session = Session.start(argv, 120, 40, env)
    seen = b""
    try:
        while time.perf_counter() - start < LIMIT_S:
            ready, _, _ = select.select([session.fd], [], [], 0.05)
            if ready:
                chunk, ended = session._read()
                if not chunk:
                    break
                seen = (seen + chunk)[-(1 << 16):]
                if any(marker.search(seen) for marker in markers) if markers else (ended or not frame):
                    return time.perf_counter() - start
        return float("nan")
    finally:
        session.stop()


# A checkout's `cachetui`, never the working directory's (-P): each A/B side runs the tree its PYTHONPATH names.
CACHETUI = [PYTHON, "-P", "-m", "cachetui"]


def warm_checkouts(source: str, before: Path, label: str) -> dict[str, dict[str, str]]:
    """The environment of each side of an A/B run ("before": the worktree `before`, "now": this tree): its code on
    PYTHONPATH, compiled to bytecode as an installed package is, and a cache directory of its own in which `source`
    has been read once, so that each starts warm (the cache is keyed by the code's digest)."""
    envs = {}
    for name, tree in (("before", before), ("now", HERE.parent)):
        compileall.compile_dir(str(tree / "cachetui"), quiet=1)
        env = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(prefix=f"{label}-{name}-"), PYTHONPATH=str(tree))
        subprocess.run([*CACHETUI, "check", source], env=env, capture_output=True, check=False)
        envs[name] = env
    return envs


def names_file(source: str, env: dict[str, str] | None = None) -> str:
    """The package names of `source`, a line each, for the bare app (read through the warm cache `env` names)."""
    from cachetui.core.load import LoadOptions, load_corpus

    home = os.environ.get("XDG_CACHE_HOME")
    if env is not None and "XDG_CACHE_HOME" in env:
        os.environ["XDG_CACHE_HOME"] = env["XDG_CACHE_HOME"]
    try:
        packages = load_corpus([source], LoadOptions(use_cache=True)).packages
    finally:
        if home is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = home
    handle, path = tempfile.mkstemp(prefix="bare-names-", suffix=".txt")
    with os.fdopen(handle, "w") as out:
        out.write("".join(f"{name}\n" for name in packages))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="*")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sources = args.sources or [str(mirror_dir()), str(varied_tree())]
    # Compiled to bytecode first, as an installed package is, whatever PYTHONDONTWRITEBYTECODE says: otherwise every
    # start would compile the app's modules (the bare app's Textual is compiled when installed).
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "cachetui"), quiet=1)
    cachetui = str(Path(PYTHON).with_name("cachetui"))
    for number, source in enumerate(sources):
        warm = dict(os.environ, XDG_CACHE_HOME=tempfile.mkdtemp(prefix="first-line-cache-"))
        subprocess.run([cachetui, "check", source], env=warm, capture_output=True, check=False)  # the warm cache
        runs = {}
        if number == 0:
            runs["cachetui check, cold: first progress line"] = ([cachetui, "check", "--no-cache", source], False,
                                                                 (), None)
            runs["cachetui (browser), cold: first frame"] = ([cachetui, "--no-cache", source], True, (), None)
        runs["cachetui (browser), warm: first useful frame"] = ([cachetui, source], True, USEFUL, warm)
        runs["cachetui (browser), warm: the corpus shown"] = ([cachetui, source], True, SHOWN, warm)
        runs["bare Textual app: first frame"] = ([PYTHON, str(HERE / "bare_app.py"), names_file(source, warm)],
                                                 True, (), None)
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, (argv, frame, markers, env) in runs.items():
                times[name].append(first_output(argv, frame, markers, env))
        bare = statistics.median(times["bare Textual app: first frame"])
        print(f"starting on {Path(source).name}: medians of {args.rounds} rounds, alternating, "
              f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
        print("| what | first output | / bare app | rounds | target |", "|---|---|---|---|---|", sep="\n")
        for name, found in times.items():
            median = statistics.median(found)
            target = f"≤ {TARGET_S} s: {'met' if median <= TARGET_S else 'missed'}" if "check" in name else \
                f"≤ {WARM_RATIO}x: {'met' if median <= WARM_RATIO * bare else 'missed'}" if "useful" in name else ""
            print(f"| {name} | {median:.2f} s | {median / bare:.2f}x | {' '.join(f'{t:.2f}' for t in found)} "
                  f"| {target} |")
        print()
    return 0


def varied_tree() -> Path:
    """The varied 500k-spec tree of `make bench` (generated when missing, as pty_keys.py does)."""
    tree = HERE / "corpora" / "varied-L"
    if not (tree / "_cache").is_dir():
        print(f"generating the varied L tree into {tree} ...", flush=True)
        generate_varied.generate(tree, "L", seed=0)
    return tree


if __name__ == "__main__":
    sys.exit(main())
