"""Peak memory of `cachetui check` on a big mirror index, clean and with one damaged record.

    .venv/bin/python benchmarks/generate_mirror.py /tmp/m --records 120000
    .venv/bin/python benchmarks/bad_record_rss.py /tmp/m

Writes two copies of the mirror's index blob beside it (one with a byte that is not UTF-8 in
one record's name, one with a `NaN` in one record), each with its own manifest, and runs
`cachetui check --no-cache` on the original and on each copy in a child process, printing
the time and the child's peak RSS (`getrusage(RUSAGE_CHILDREN).ru_maxrss`, which is the
largest child so far: the runs go from the cheapest expected to the dearest).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEDIA_TYPE = "application/vnd.spack.db.v8+json"


def damaged_copy(blob: bytes, root: Path, how: str) -> Path:
    at = blob.index(b'"name":"', 1000) + len(b'"name":"')
    if how == "bad-byte":
        blob = blob[:at] + b"\xff" + blob[at:]
    else:
        blob = blob.replace(b'"in_buildcache":true', b'"in_buildcache":true,"x":NaN', 1)
    checksum = hashlib.sha256(blob).hexdigest()
    path = root / how / "blobs" / "sha256" / checksum[:2] / checksum
    path.parent.mkdir(parents=True)
    path.write_bytes(blob)
    manifest = {"version": 3, "data": [{"contentLength": len(blob), "mediaType": MEDIA_TYPE, "compression": "none",
                                        "checksumAlgorithm": "sha256", "checksum": checksum}]}
    (root / how / "v3" / "manifests" / "index").mkdir(parents=True)
    (root / how / "v3" / "manifests" / "index" / "index.manifest.json").write_text(json.dumps(manifest))
    return root / how


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirror", type=Path, help="a v3 mirror, e.g. from benchmarks/generate_mirror.py")
    args = parser.parse_args()
    blob = next(args.mirror.glob("blobs/sha256/*/*")).read_bytes()
    scratch = Path(tempfile.mkdtemp(prefix="cachetui-bad-record-"))
    try:
        runs = [("clean", args.mirror), ("bad-byte", damaged_copy(blob, scratch, "bad-byte")),
                ("nan", damaged_copy(blob, scratch, "nan"))]
        del blob
        for name, mirror in runs:
            command = [sys.executable, "-c", "import sys; from cachetui.cli.main import main; sys.exit(main(sys.argv[1:]))",
                       "check", "--no-cache", str(mirror)]
            started = time.perf_counter()
            child = subprocess.run(command, capture_output=True, text=True, check=False)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(f"{name:9} exit {child.returncode}  {time.perf_counter() - started:5.1f} s  "
                  f"peak RSS so far {peak:.0f} MiB  | {child.stdout.strip().splitlines()[-1]}")
    finally:
        shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
