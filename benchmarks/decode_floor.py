"""The floor of a cold load in one process: reading every document, and decoding every `spec_details`.

    python benchmarks/decode_floor.py TREE [--rounds N]

Reads each `specs.md` under TREE, then decodes each `spec_details` line with `json.loads` and
with a typed msgspec decoder (what the fast lane uses), alternating rounds; prints medians.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cachetui.core.load.sources.site.listing import SpecEntry  # noqa: E402


def _details(blob: bytes) -> bytes:
    start = blob.find(b"\nspec_details: ")
    return blob[start + 15: blob.find(b"\n", start + 1)] if start >= 0 else b"[]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    paths = sorted(args.tree.glob("_cache/*/*/specs.md"))
    times: dict[str, list[float]] = {"read": [], "json": [], "msgspec": []}
    decoder = msgspec.json.Decoder(list[SpecEntry])
    for _ in range(args.rounds):
        gc.collect()
        start = time.perf_counter()
        lines = [_details(p.read_bytes()) for p in paths]
        times["read"].append(time.perf_counter() - start)
        for name, decode in (("json", json.loads), ("msgspec", decoder.decode)):
            gc.collect()
            start = time.perf_counter()
            for line in lines:
                decode(line)
            times[name].append(time.perf_counter() - start)
    medians = {k: statistics.median(v) for k, v in times.items()}
    print(f"{len(paths)} documents: read {medians['read']:.2f} s, decode json.loads {medians['json']:.2f} s, "
          f"msgspec typed {medians['msgspec']:.2f} s (medians of {args.rounds} alternating rounds)")


if __name__ == "__main__":
    main()
