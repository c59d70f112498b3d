"""The floor of a cold load: reading every document and decoding its two JSON lines with the standard library.

    python benchmarks/decode_floor.py TREE [--rounds N]

The floor is one process reading each `specs.md` under TREE (`open().read()`) and decoding its
`meta` and `spec_details` lines with `json.loads`, nothing kept: the least any loader of these
files pays in Python. `make bench` times it beside the cold load, in the same run, and reports
their ratio. Run alone, this script also times a cold load and the typed msgspec decode the fast
lane uses, alternating rounds, and prints medians.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FLOOR_TARGET = 1.5  # issue 22: the cold load of the varied L tree within 1.5x the floor, in the same run
_META, _DETAILS = b"\nmeta: ", b"\nspec_details: "


def document_paths(tree: Path) -> list[str]:
    """Every listing document of a site tree, found before any timing starts."""
    return sorted(map(str, tree.glob("_cache/*/*/specs.md")))


def _line(blob: bytes, key: bytes) -> bytes:
    start = blob.find(key)
    return blob[start + len(key) : blob.find(b"\n", start + 1)] if start >= 0 else b"null"


def floor(paths: list[str]) -> float:
    """Seconds to read every file and `json.loads` its `meta` and `spec_details` lines."""
    gc.collect()
    start = time.perf_counter()
    for path in paths:
        with open(path, "rb") as handle:
            blob = handle.read()
        json.loads(_line(blob, _META))
        json.loads(_line(blob, _DETAILS))
    return time.perf_counter() - start


def busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (every process), from /proc/stat."""
    with open("/proc/stat") as handle:
        ticks = list(map(int, handle.readline().split()[1:]))
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def own_seconds() -> float:
    """CPU seconds of this process and its finished children."""
    return sum(os.times()[:4])


def main() -> None:
    # Imported here: the floor as a process of its own (benchmarks/felt.py) imports this module, and pays for
    # Python's start and the standard library only, as the least a loader of these files could.
    import msgspec

    from cachetui.core.load.pipeline import load_corpus
    from cachetui.core.load.sources.site.listing import SpecEntry

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    paths = document_paths(args.tree)
    details = [_line(Path(p).read_bytes(), _DETAILS) for p in paths]
    decoder = msgspec.json.Decoder(list[SpecEntry])
    times: dict[str, list[float]] = {"floor": [], "cold": [], "msgspec": []}
    for i in range(args.rounds):
        times["floor"].append(floor(paths))
        gc.collect()
        busy, own = busy_seconds(), own_seconds()
        start = time.perf_counter()
        load_corpus([args.tree])
        times["cold"].append(time.perf_counter() - start)
        others = busy_seconds() - busy - (own_seconds() - own)
        print(f"round {i + 1}: floor {times['floor'][-1]:.2f} s, cold load {times['cold'][-1]:.2f} s "
              f"({times['cold'][-1] / times['floor'][-1]:.2f}x); other processes busy {others:.2f} CPU s "
              "during the cold load", flush=True)
        gc.collect()
        start = time.perf_counter()
        for line in details:
            decoder.decode(line)
        times["msgspec"].append(time.perf_counter() - start)
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"{len(paths)} documents, medians of {args.rounds} alternating rounds: floor (read + json.loads of "
          f"meta and spec_details) {m['floor']:.2f} s; cold load {m['cold']:.2f} s = {m['cold'] / m['floor']:.2f}x "
          f"the floor (target <= {FLOOR_TARGET:g}x); msgspec typed decode of spec_details alone {m['msgspec']:.2f} s")


if __name__ == "__main__":
    main()
