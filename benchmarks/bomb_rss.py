"""Peak memory of `cachetui check` against a gzip bomb served from 127.0.0.1, next to a good mirror.

    .venv/bin/python benchmarks/bomb_rss.py [--gigabytes 2.5]

Writes a layout-v3 mirror whose index blob is marked gzip and inflates to GIGABYTES of
zeros (a few MB on the wire, its checksum and length correct, so only its size is wrong),
and a good v2 mirror beside it; serves both on a loopback port; runs `cachetui check
GOOD BOMB --json --no-cache` in a child process and prints the child's peak RSS
(`getrusage(RUSAGE_CHILDREN).ru_maxrss`), its exit code, the time it took and the bomb's
error line. Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

GOOD_FIXTURE = Path(__file__).parent.parent / "tests" / "fixtures" / "mirrors" / "db-v7" / "v2_layout" / "unsigned"
MEDIA_TYPE = "application/vnd.spack.db.v8+json"


def gzip_bomb(inflated: int) -> bytes:
    """A gzip stream of `inflated` zero bytes, compressed a MiB at a time (never held inflated)."""
    compress = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    parts = []
    left = inflated
    while left > 0:
        parts.append(compress.compress(zeros[: min(left, len(zeros))]))
        left -= len(zeros)
    parts.append(compress.flush())
    return b"".join(parts)


def write_bomb_mirror(root: Path, blob: bytes) -> None:
    checksum = hashlib.sha256(blob).hexdigest()
    path = root / "blobs" / "sha256" / checksum[:2] / checksum
    path.parent.mkdir(parents=True)
    path.write_bytes(blob)
    manifest = {"version": 3, "data": [{"contentLength": len(blob), "mediaType": MEDIA_TYPE, "compression": "gzip",
                                        "checksumAlgorithm": "sha256", "checksum": checksum}]}
    (root / "v3" / "manifests" / "index").mkdir(parents=True)
    (root / "v3" / "manifests" / "index" / "index.manifest.json").write_text(json.dumps(manifest))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gigabytes", type=float, default=2.5, help="what the bomb inflates to (decimal GB)")
    args = parser.parse_args()
    inflated = int(args.gigabytes * 1e9)
    with tempfile.TemporaryDirectory(prefix="cachetui-bomb-") as scratch:
        www = Path(scratch)
        started = time.perf_counter()
        blob = gzip_bomb(inflated)
        write_bomb_mirror(www / "bomb", blob)
        shutil.copytree(GOOD_FIXTURE / "build_cache", www / "good" / "build_cache")
        print(f"bomb: {len(blob) / 1e6:.1f} MB on the wire, inflates to {inflated / 1e9:.2f} GB "
              f"(built in {time.perf_counter() - started:.1f} s)")
        handler = functools.partial(_QuietHandler, directory=str(www))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        command = [sys.executable, "-c", "import sys; from cachetui.cli.main import main; sys.exit(main(sys.argv[1:]))",
                   "check", f"{base}/good", f"{base}/bomb", "--json", "--no-cache"]
        started = time.perf_counter()
        child = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        server.shutdown()
        server.server_close()
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
    report = json.loads(child.stdout) if child.stdout.strip() else {}
    print(f"machine: {platform.machine()}, {_cores()} cores, Python {platform.python_version()}")
    print(f"cachetui check: exit {child.returncode} in {elapsed:.1f} s, peak RSS {peak_kib / 1024:.0f} MiB")
    print(f"good mirror specs loaded: {report.get('specs')}")
    for error in report.get("errors", []):
        print(f"error: {error['path']}: {error['reason']}")
    if child.stderr.strip():
        print("stderr:", child.stderr.strip())
    return 0


def _cores() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 0


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        pass


if __name__ == "__main__":
    raise SystemExit(main())
