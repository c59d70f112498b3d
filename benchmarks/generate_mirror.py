#!/usr/bin/env python3
"""Generate a layout-v3 Spack mirror whose index holds N records with realistic dependencies.

The index is a database v8, written as Spack >= 1.0 writes it (compact JSON,
`{"database": {"version": "8", "installs": {...}}}`), with nodes shaped like the real
fixtures: an `arch` with a target dict (name, vendor, features, generation, parents,
cpupart), `parameters` with variants and the six flag lists, `package_hash`,
`annotations`, and dependency edges `{name, hash, parameters: {deptypes, virtuals}}`.
Specs form a DAG (each depends on specs generated before it), every node has build edges to
`compiler-wrapper` and a compiler providing `c`/`cxx` (an external, not in the build
cache, like the fixture's gcc), a link edge to `gcc-runtime`, and 1-12 link/run/build edges
to other packages built for the same target. The blob and its manifest are written as
`blobs/sha256/<cc>/<checksum>` and `v3/manifests/index/index.manifest.json`.

With `--spec-manifests`, every binary in the build cache also gets its spec manifest where Spack
puts it (`v3/manifests/spec/<name>/<name>-<version>-<hash>.spec.manifest.json`: a small unsigned
manifest, its blobs not written), its modification time set to `pushed_at(hash, seed)`, spread
over the 90 days before PUSHED_UNTIL: what a push-date walk reads.

    python benchmarks/generate_mirror.py OUT_DIR [--records 120000] [--seed 0] [--unheld 0.3] [--spec-manifests]

Deterministic for a seed; standard library only.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

TARGETS = {  # name -> (vendor, generation, parents, features)
    "x86_64_v3": ("generic", 0, ["x86_64_v2"], "avx avx2 bmi1 bmi2 f16c fma lzcnt movbe xsave mmx sse sse2 ssse3 "
                  "sse4_1 sse4_2 popcnt cx16"),
    "zen4": ("AuthenticAMD", 0, ["zen3", "x86_64_v4"], "abm aes avx avx2 avx512bw avx512cd avx512dq avx512f "
             "avx512vl bmi1 bmi2 clflushopt clwb f16c fma mmx movbe pclmulqdq popcnt rdseed sha sse sse2"),
    "neoverse_v2": ("ARM", 0, ["neoverse_n1"], "aes asimd asimddp asimdfhm asimdhp asimdrdm atomics cpuid crc32 "
                    "dcpodp dcpop fcma flagm fp fphp frint ilrcpc jscvt lrcpc pmull sb sha1 sha2 sha3 sve sve2"),
    "aarch64": ("generic", 0, [], "fp asimd"),
}
OSES = {"x86_64_v3": "ubuntu22.04", "zen4": "rhel8", "neoverse_v2": "ubuntu22.04", "aarch64": "ubuntu24.04"}
VARIANT_NAMES = "mpi shared static pic openmp cuda rocm fortran cxx threadsafe hl debug tests python".split()
VALUED = {"build_type": ["Release", "RelWithDebInfo"], "build_system": ["cmake", "autotools", "generic"],
          "cxxstd": ["17", "20"], "libs": [["shared"], ["shared", "static"]], "cuda_arch": [["80"], ["80", "90"]]}
FLAGS = ("cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs")
PUSHED_UNTIL = 1_795_737_600  # 2026-11-27T00:00:00Z: fixed, so the times are the same for a seed whenever generated
PUSHED_OVER = 90 * 86_400  # the spread of push times before PUSHED_UNTIL


def _hash(rng: random.Random) -> str:
    return base64.b32encode(rng.getrandbits(160).to_bytes(20, "big")).decode().lower()


def _arch(target: str) -> dict:
    vendor, generation, parents, features = TARGETS[target]
    return {"platform": "linux", "platform_os": OSES[target],
            "target": {"name": target, "vendor": vendor, "features": sorted(features.split()),
                       "generation": generation, "parents": parents, "cpupart": ""}}


def _edge(name: str, hash_: str, deptypes: list[str], virtuals: list[str] | None = None) -> dict:
    return {"name": name, "hash": hash_, "parameters": {"deptypes": deptypes, "virtuals": virtuals or []}}


def _parameters(rng: random.Random) -> dict:
    parameters: dict = {name: rng.random() < 0.5 for name in rng.sample(VARIANT_NAMES, rng.randint(2, 8))}
    for name in rng.sample(sorted(VALUED), rng.randint(1, 3)):
        parameters[name] = rng.choice(VALUED[name])
    if rng.random() < 0.1:
        parameters["patches"] = sorted(hashlib.sha256(rng.randbytes(8)).hexdigest() for _ in range(rng.randint(1, 3)))
    parameters.update({flag: [] for flag in FLAGS})
    return dict(sorted(parameters.items()))


def _node(name: str, version: str, target: str, hash_: str, dependencies: list[dict], rng: random.Random) -> dict:
    node = {"name": name, "version": version, "arch": _arch(target), "namespace": "builtin",
            "parameters": _parameters(rng), "package_hash": base64.b32encode(rng.randbytes(32)).decode(),
            "annotations": {"original_specfile_version": 5}, "hash": hash_}
    if dependencies:
        node["dependencies"] = sorted(dependencies, key=lambda e: e["name"])
    return node


def generate(out_dir: Path, records: int = 120_000, seed: int = 0, unheld: float = 0.0,
             spec_manifests: bool = False) -> dict[str, int]:
    """`unheld`: the share of records the index holds without their binary (`in_buildcache: false`), as
    public indexes hold build-only dependencies that were never pushed; binaries reach them and beyond."""
    rng = random.Random(seed)
    installs: dict[str, dict] = {}
    base: dict[str, dict[str, str]] = {}  # target -> name -> hash of the shared toolchain nodes
    for target in TARGETS:
        gcc, wrapper, runtime = _hash(rng), _hash(rng), _hash(rng)
        gcc_node = {"name": "gcc", "version": "13.2.0", "arch": {"platform": "linux", "platform_os": OSES[target],
                                                                  "target": target.split("_")[0]},
                    "namespace": "builtin", "parameters": {"languages": ["c", "c++", "fortran"],
                                                            **{f: [] for f in FLAGS}},
                    "external": {"path": "/usr", "module": None, "extra_attributes": {}},
                    "annotations": {"original_specfile_version": 5}, "hash": gcc}
        installs[gcc] = {"spec": gcc_node, "ref_count": 0, "in_buildcache": False}
        installs[wrapper] = {"spec": _node("compiler-wrapper", "1.0", target, wrapper, [], rng), "ref_count": 0,
                             "in_buildcache": True}
        installs[runtime] = {"spec": _node("gcc-runtime", "13.2.0", target, runtime,
                                           [_edge("gcc", gcc, ["build"])], rng), "ref_count": 0, "in_buildcache": True}
        base[target] = {"gcc": gcc, "compiler-wrapper": wrapper, "gcc-runtime": runtime}
    packages = [f"pkg{i:04}" for i in range(3_000)]
    built: dict[str, list[tuple[str, str]]] = {t: [] for t in TARGETS}  # target -> [(name, hash)] in DAG order
    while len(installs) < records:
        target = rng.choice(list(TARGETS))
        position = rng.randrange(len(packages))
        name = packages[position]
        earlier = built[target]  # built before: build order is a topological order, so the graph is a DAG
        toolchain = base[target]
        edges = [_edge("compiler-wrapper", toolchain["compiler-wrapper"], ["build"]),
                 _edge("gcc", toolchain["gcc"], ["build"], ["c", "cxx"]),
                 _edge("gcc-runtime", toolchain["gcc-runtime"], ["link"])]
        chosen: dict[str, str] = {}
        for pick in rng.sample(range(len(earlier)), min(len(earlier), rng.randint(1, 12))):
            dep_name, dep_hash = earlier[pick]
            if dep_name != name:
                chosen.setdefault(dep_name, dep_hash)
        for dep_name, dep_hash in chosen.items():
            deptypes = rng.choice([["build", "link"], ["link"], ["build", "link", "run"], ["run"], ["build"]])
            edges.append(_edge(dep_name, dep_hash, deptypes))
        hash_ = _hash(rng)
        version = f"{position % 17}.{rng.randint(0, 9)}.{rng.randint(0, 20)}"
        installs[hash_] = {"spec": _node(name, version, target, hash_, edges, rng), "ref_count": 0,
                           "in_buildcache": rng.random() >= unheld}
        built[target].append((name, hash_))
    index = json.dumps({"database": {"version": "8", "installs": installs}}, separators=(",", ":")).encode()
    counts = _write_v3(out_dir, index) | {"records": len(installs)}
    if spec_manifests:
        counts["manifests"] = write_spec_manifests(out_dir, installs, seed)
    return counts


def pushed_at(hash_: str, seed: int = 0) -> int:
    """When the binary `hash_` was pushed (its spec manifest's mtime), seconds since the epoch: a function of the
    hash and the seed alone, so a benchmark or a test can check every date without keeping a list."""
    digest = hashlib.sha256(f"{seed}:{hash_}".encode()).digest()
    return PUSHED_UNTIL - int.from_bytes(digest[:8], "big") % PUSHED_OVER


def write_spec_manifests(root: Path, installs: dict[str, dict], seed: int = 0) -> int:
    """A spec manifest per binary in the build cache, dated `pushed_at`; how many were written."""
    written = 0
    made: set[Path] = set()
    for hash_, record in installs.items():
        if not record["in_buildcache"]:
            continue
        node = record["spec"]
        name = node["name"]
        directory = root / "v3" / "manifests" / "spec" / name
        if directory not in made:
            directory.mkdir(parents=True, exist_ok=True)
            made.add(directory)
        path = directory / f"{name}-{node['version']}-{hash_}.spec.manifest.json"
        checksum = hashlib.sha256(hash_.encode()).hexdigest()  # stands in: the blobs are not written
        entry = {"contentLength": 1, "mediaType": "application/vnd.spack.spec.v5+json", "compression": "gzip",
                 "checksumAlgorithm": "sha256", "checksum": checksum}
        path.write_text(json.dumps({"version": 3, "data": [entry]}, indent=0, separators=(",", ":")))
        when = pushed_at(hash_, seed)
        os.utime(path, (when, when))
        written += 1
    return written


def _write_v3(root: Path, index: bytes) -> dict[str, int]:
    checksum = hashlib.sha256(index).hexdigest()
    blob = root / "blobs" / "sha256" / checksum[:2] / checksum
    blob.parent.mkdir(parents=True, exist_ok=True)
    blob.write_bytes(index)
    (root / "v3").mkdir(parents=True, exist_ok=True)
    (root / "v3" / "layout.json").write_text(json.dumps({"signing": "gpg"}))
    manifest = {"version": 3, "data": [{"contentLength": len(index), "mediaType": "application/vnd.spack.db.v8+json",
                                        "compression": "none", "checksumAlgorithm": "sha256", "checksum": checksum}]}
    path = root / "v3" / "manifests" / "index" / "index.manifest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest, indent=0, separators=(",", ":")))
    return {"bytes": len(index)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    parser.add_argument("--records", type=int, default=120_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unheld", type=float, default=0.0, metavar="SHARE",
                        help="share of records held without their binary (in_buildcache: false)")
    parser.add_argument("--spec-manifests", action="store_true",
                        help="also write each binary's spec manifest, dated (see pushed_at)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    counts = generate(args.out_dir, args.records, args.seed, args.unheld, args.spec_manifests)
    manifests = f", {counts['manifests']:,} spec manifests" if "manifests" in counts else ""
    print(f"mirror: {counts['records']:,} records, {counts['bytes'] / 1e6:.1f} MB index{manifests} "
          f"in {time.perf_counter() - started:.1f}s -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
