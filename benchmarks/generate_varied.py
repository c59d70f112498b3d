#!/usr/bin/env python3
"""Generate build-cache listing documents whose specs vary the way real mirrors do.

`generate_corpus.py` gives each package a few variant configurations, shared by many
specs. Real mirrors built with many configurations do not: here nearly every spec has
its own variant set, drawn per spec from ~70 distinct variant strings (0-12 booleans and
1-6 key=value variants, including newer Spack's `key:=value` spelling such as
`cuda_arch:=80` and `patches:=1d74a11,65f5630`), across 20 stacks, 14 compilers (with
`@=` spellings), 12 platform-os-target triples, and a long tail of specs per document:
most documents list a handful, a few list hundreds. Specs of one package often differ
only in their variants.

Scales:
    S  12 tags, 600 documents, 12,000 specs: to try the browser on;
    L  60 tags, 50,000 documents, 500,000 specs: a whole site.

Documents are written exactly as the public site wrote them (see generate_corpus.py),
under OUT_DIR/_cache/<tag>/<package>/specs.md. Deterministic for a seed; standard library.

    python benchmarks/generate_varied.py OUT_DIR --scale {S,L} [--seed N] [--force]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate_corpus import (  # noqa: E402
    REAL_PACKAGES,
    allocate,
    new_hash,
    prepare_out_dir,
    write_document,
)

SCALES = {"S": (12, 600, 12_000), "L": (60, 50_000, 500_000)}  # tags, documents, specs

BOOLEANS = ("mpi cuda rocm openmp shared static pic fortran cxx hl threadsafe szip debug examples "
            "tests python ipo lto zlib blas lapack hwloc x11 opengl").split()  # 24 names -> 48 strings
VALUED = (  # 24 strings; with the 48 booleans, 72 distinct variant strings
    "build_type=Release", "build_type=Debug", "build_type=RelWithDebInfo",
    "cuda_arch=80", "cuda_arch=90", "cuda_arch=80,90", "cuda_arch:=80", "cuda_arch:=90",
    "amdgpu_target=gfx90a", "amdgpu_target=gfx90a,gfx942", "amdgpu_target:=gfx942",
    "libs=shared", "libs=shared,static", "patches:=1d74a11,65f5630", "patches=0a1b2c3",
    "api=default", "api=v18", "cxxstd=17", "cxxstd=20", "generator=ninja", "generator=make",
    "netmod=ofi", "netmod=ucx", "build_system=cmake",
)
COMPILERS = (
    "gcc@11.4.0", "gcc@=13.2.0", "gcc@13.3.0", "gcc@=12.3.0", "clang@17.0.6", "llvm@=18.1.8",
    "oneapi@2024.2.1", "intel-oneapi-compilers@=2025.1.0", "nvhpc@24.5", "rocmcc@6.1.2",
    "apple-clang@16.0.0", "cce@17.0.0", "aocc@4.2.0", "none",
)
TRIPLES = (
    "linux-ubuntu22.04-x86_64_v3", "linux-ubuntu24.04-x86_64_v3", "linux-ubuntu22.04-x86_64_v2",
    "linux-rhel8-zen4", "linux-ubuntu22.04-zen3", "linux-ubuntu22.04-neoverse_v2",
    "linux-amzn2-neoverse_v1", "linux-amzn2-skylake_avx512", "linux-ubuntu24.04-aarch64",
    "darwin-sequoia-aarch64", "linux-rhel9-x86_64_v4", "linux-ubuntu20.04-x86_64",
)
STACKS = ("e4s e4s-oneapi e4s-neoverse-v2 e4s-rocm-external e4s-cray-rhel hep radiuss data-vis-sdk "
          "ml-linux-x86_64-cpu ml-linux-x86_64-cuda ml-linux-x86_64-rocm ml-linux-aarch64-cpu "
          "ml-linux-aarch64-cuda ml-darwin-aarch64-mps tutorial developer-tools-manylinux2014 "
          "build_systems aws-pcluster-x86_64_v4 bootstrap-x86_64-linux-gnu").split()  # 19 + root = 20
REAL = {  # a few packages with real release histories; the rest get synthetic names and versions
    "hdf5": ("1.12.2", "1.14.1-2", "1.14.3", "1.14.5", "1.14.6"),
    "kokkos": ("4.2.01", "4.3.00", "4.3.01", "4.4.01", "4.5.01"),
    "mpich": ("4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0"),
    "py-torch": ("2.3.1", "2.4.1", "2.5.1", "2.6.0"),
    "openmpi": ("4.1.6", "5.0.3", "5.0.5", "5.0.6"),
    "petsc": ("3.20.6", "3.21.5", "3.22.2"),
    "cmake": ("3.27.9", "3.30.5", "3.31.6"),
    "zlib-ng": ("2.1.6", "2.2.1", "2.2.3"),
}


@dataclass(frozen=True)
class Spec:
    hash: str
    version: str
    compiler: str
    triple: str
    variants: tuple[str, ...]
    stacks: tuple[str, ...]

    def json(self) -> str:
        platform, os_, target = self.triple.split("-", 2)
        return json.dumps({"compiler": self.compiler, "hash": self.hash, "os": os_, "platform": platform,
                           "size": "-", "stacks": list(self.stacks), "target": target,
                           "variants": list(self.variants), "versions": [self.version]})


def _variants(rng: random.Random) -> tuple[str, ...]:
    booleans = rng.sample(BOOLEANS, rng.randint(0, 12))
    valued: dict[str, str] = {}
    for text in rng.sample(VALUED, rng.randint(1, 6)):
        valued.setdefault(text.split("=")[0].rstrip(":"), text)  # one value set per variant name
    chosen = [("+" if rng.random() < 0.5 else "~") + name for name in sorted(booleans)]
    return tuple(chosen + sorted(valued.values()))


def _versions(rng: random.Random, name: str) -> tuple[str, ...]:
    if name in REAL:
        return REAL[name]
    major = rng.randint(0, 12)
    return tuple(f"{major}.{minor}.{rng.randint(0, 9)}" for minor in range(rng.randint(1, 5)))


def _document_specs(rng: random.Random, versions: tuple[str, ...], count: int, taken: set[str]) -> list[Spec]:
    """Specs over a few (version, compiler, triple) builds, so many differ only in their variants."""
    builds = [(rng.choice(versions), rng.choice(COMPILERS), rng.choice(TRIPLES)) for _ in range(max(1, count // 6))]
    specs = []
    for _ in range(count):
        version, compiler, triple = rng.choice(builds)
        stacks = ("root", *sorted(rng.sample(STACKS, rng.randint(1, 2))))
        specs.append(Spec(new_hash(rng, taken), version, compiler, triple, _variants(rng), stacks))
    return sorted(specs, key=lambda s: s.hash)


def render(package: str, tag: str, specs: list[Spec]) -> str:
    by_stack = Counter(stack for s in specs for stack in s.stacks)
    arch = [s.triple.split("-", 2) for s in specs]
    meta = {
        "compilers": sorted({s.compiler for s in specs}),
        "num_specs": len(specs),
        "num_specs_by_stack": dict(by_stack),
        "oss": sorted({a[1] for a in arch}),
        "platforms": sorted({a[0] for a in arch}),
        "stacks": sorted(by_stack),
        "targets": sorted({a[2] for a in arch}),
        "versions": sorted({s.version for s in specs}),
    }
    details = "[" + ", ".join(s.json() for s in specs) + "]"
    return (f'---\ntitle: "{package}"\nlayout: cache\ncategories: [package, {tag}]\n'
            f"meta: {json.dumps(meta, sort_keys=True)}\nspec_details: {details}\n---")


def _tags(count: int) -> list[str]:
    releases = [f"v0.{minor}.{patch}" for minor in (21, 22, 23) for patch in range(4)] + ["v1.0.0", "v1.0.1"]
    dated = [f"develop-2025-{month:02}-{day:02}" for month in range(1, 13) for day in (5, 12, 19, 26)]
    return (["develop"] + releases + dated)[:count]


def generate(out_dir: Path, scale: str, seed: int = 0, *, force: bool = False) -> dict[str, int]:
    n_tags, n_docs, n_specs = SCALES[scale]
    rng = random.Random(seed)
    prepare_out_dir(out_dir, force)
    tags = _tags(n_tags)
    known = [name for name, _ in REAL_PACKAGES if name not in REAL]
    names = list(REAL) + known + [f"{rng.choice(known)}-{i}" for i in range(n_docs // n_tags * 2)]
    per_tag = allocate(n_docs, [1.0] * n_tags)
    versions = {name: _versions(rng, name) for name in names[: max(per_tag)]}
    # Long tail: a document's weight is Pareto-distributed; the real packages are the big ones.
    real = [j < len(REAL) for documents in per_tag for j in range(documents)]
    weights = [min(rng.paretovariate(1.2) * (30 if is_real else 1), 400.0) for is_real in real]
    counts = allocate(n_specs, weights)
    taken: set[str] = set()
    doc = 0
    for tag, documents in zip(tags, per_tag):
        for name in names[:documents]:
            specs = _document_specs(rng, versions[name], counts[doc], taken)
            write_document(out_dir, tag, name, render(name, tag, specs))
            doc += 1
    return {"documents": n_docs, "tags": n_tags, "specs": n_specs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    parser.add_argument("--scale", required=True, choices=tuple(SCALES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="replace an existing OUT_DIR/_cache")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        counts = generate(args.out_dir, args.scale, args.seed, force=args.force)
    except FileExistsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"varied scale {args.scale} seed {args.seed}: {counts['documents']:,} documents, {counts['tags']} tags, "
          f"{counts['specs']:,} specs in {time.perf_counter() - started:.1f}s -> {args.out_dir / '_cache'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
