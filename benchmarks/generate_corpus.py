#!/usr/bin/env python3
"""Generate synthetic Spack build-cache listing documents for benchmarks.

The documents copy the real site's format byte for byte (see the bundled seeds):

    ---
    title: "<package>"
    layout: cache
    categories: [package, <tag>]
    meta: <single-line JSON object>
    spec_details: <single-line JSON list>
    ---

with no newline after the closing `---`, laid out as
`OUT_DIR/_cache/<tag>/<package>/specs.md`.

Scales:
    S  the real seed documents, copied into the tree layout;
    M  one `develop` tag: 3,000 documents, 60,000 specs;
    L  the whole site: 60 tags, 50,000 documents, 500,000 specs.

Everything derives from `random.Random(seed)`, so the same seed gives a
byte-identical tree.  Standard library only.

    python benchmarks/generate_corpus.py OUT_DIR --scale {S,M,L} [--seed N]
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import math
import random
import shutil
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

# --------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------

# Environment a stack builds in: platform, os, target and weighted compilers.
# "DARWIN" is resolved per tag, because the macOS runners moved from sonoma to
# sequoia during the period the tags cover.
Env = tuple[str, str, str, tuple[tuple[str, int], ...]]

_GCC11 = (("gcc@11.4.0", 1),)
_GCC13 = (("gcc@13.2.0", 1),)
_ML_X86: Env = ("linux", "ubuntu24.04", "x86_64_v3", _GCC13)
_ML_ARM: Env = ("linux", "ubuntu24.04", "aarch64", _GCC13)

# Mapping taken from the seeds (e.g. data-vis-sdk on ubuntu20.04 with gcc@11.1.0,
# the ml-* stacks on ubuntu24.04 with gcc@13.2.0), extended to the other stacks.
STACK_ENVS: dict[str, tuple[Env, ...]] = {
    "e4s": (("linux", "ubuntu22.04", "x86_64_v3", (("gcc@11.4.0", 6), ("nvhpc@24.5", 1))),),
    "e4s-oneapi": (
        ("linux", "ubuntu22.04", "x86_64_v3",
         (("oneapi@2024.2.1", 2), ("intel-oneapi-compilers@2025.1.0", 1))),
    ),
    "e4s-neoverse-v2": (("linux", "ubuntu22.04", "neoverse_v2", _GCC11),),
    "e4s-rocm-external": (
        ("linux", "ubuntu22.04", "x86_64_v3", (("gcc@11.4.0", 2), ("rocmcc@6.1.2", 1))),
    ),
    "e4s-cray-rhel": (("linux", "rhel8", "zen4", (("gcc@13.2.0", 2), ("clang@17.0.6", 1))),),
    "hep": (("linux", "ubuntu22.04", "x86_64_v3", _GCC11),),
    "radiuss": (("linux", "ubuntu22.04", "x86_64_v3", (("gcc@11.4.0", 2), ("clang@17.0.6", 1))),),
    "data-vis-sdk": (("linux", "ubuntu20.04", "x86_64_v3", (("gcc@11.1.0", 1),)),),
    "ml-linux-x86_64-cpu": (_ML_X86,),
    "ml-linux-x86_64-cuda": (_ML_X86,),
    "ml-linux-x86_64-rocm": (_ML_X86,),
    "ml-linux-aarch64-cpu": (_ML_ARM,),
    "ml-linux-aarch64-cuda": (_ML_ARM,),
    "ml-darwin-aarch64-mps": (("darwin", "DARWIN", "aarch64", (("apple-clang@16.0.0", 1),)),),
    "tutorial": (("linux", "ubuntu22.04", "x86_64_v3", _GCC11),),
    "developer-tools-manylinux2014": (
        ("linux", "rhel8", "x86_64_v3", _GCC11),
        ("linux", "rhel8", "aarch64", _GCC11),
    ),
    "build_systems": (
        ("linux", "amzn2", "x86_64_v4", _GCC11),
        ("linux", "amzn2", "skylake_avx512", _GCC11),
        ("linux", "amzn2", "neoverse_v1", _GCC11),
    ),
}
HPC_STACKS = ("e4s", "e4s-oneapi", "e4s-neoverse-v2", "e4s-rocm-external", "e4s-cray-rhel",
              "hep", "radiuss", "data-vis-sdk")
ML_STACKS = ("ml-linux-x86_64-cpu", "ml-linux-x86_64-cuda", "ml-linux-x86_64-rocm",
             "ml-linux-aarch64-cpu", "ml-linux-aarch64-cuda", "ml-darwin-aarch64-mps")
TOOL_STACKS = ("tutorial", "developer-tools-manylinux2014", "build_systems")
ALL_STACKS = HPC_STACKS + ML_STACKS + TOOL_STACKS

# Real package names, with a kind that decides stacks and variant richness:
# core = built by every stack; hpc = many variants, GPU-capable; ml = ML stacks.
REAL_PACKAGES: tuple[tuple[str, str], ...] = tuple(
    (name, kind)
    for kind, names in (
        ("core", "cmake ninja zlib-ng zstd xz bzip2 openssl curl libxml2 libiconv ncurses "
                 "readline gettext perl python gmake autoconf automake libtool m4 pkgconf "
                 "gnuconfig gcc-runtime git tar py-pip py-setuptools py-wheel py-packaging"),
        ("hpc", "hdf5 openmpi mpich petsc trilinos kokkos kokkos-kernels boost fftw openblas "
                "netlib-lapack intel-oneapi-mkl hypre superlu-dist metis parmetis sundials mfem "
                "adios2 netcdf-c netcdf-fortran paraview visit vtk-m umpire raja camp hip magma "
                "slate hwloc libfabric ucx pmix llvm"),
        ("ml", "py-numpy py-torch py-scipy py-pandas py-matplotlib py-mpi4py py-ml-dtypes "
               "py-pdm-backend py-safetensors py-h5py py-jax py-tensorflow py-cython nccl"),
        ("plain", "r r-rcpp perl-dbi cuda"),
    )
    for name in names.split()
)

# Known release histories for a few packages (oldest first); the rest are synthetic.
REAL_VERSIONS: dict[str, tuple[str, ...]] = {
    "hdf5": ("1.12.2", "1.14.1-2", "1.14.3", "1.14.5", "1.14.6"),
    "cmake": ("3.26.3", "3.27.9", "3.30.5", "3.31.6"),
    "openmpi": ("4.1.5", "4.1.6", "5.0.3", "5.0.5"),
    "petsc": ("3.19.4", "3.20.5", "3.21.4", "3.22.1"),
    "kokkos": ("4.1.00", "4.2.01", "4.3.01", "4.4.01"),
    "py-numpy": ("1.24.4", "1.26.4", "2.0.2", "2.2.4"),
    "py-torch": ("2.1.2", "2.3.1", "2.5.1", "2.6.0"),
    "py-ml-dtypes": ("0.3.1", "0.4.0"),
    "py-mpi4py": ("3.1.6", "4.0.1"),
    "py-pdm-backend": ("2.1.8", "2.4.3"),
    "py-safetensors": ("0.4.3", "0.4.5"),
    "intel-oneapi-mkl": ("2023.2.0", "2024.0.0", "2024.2.2", "2025.0.1"),
}

# Fragments for synthetic names: head + tail ("hydro" + "flow" = "hydroflow").
NAME_HEADS = ("arb astro atmo bio cal chem cloud cosmo crystal data deep dyn eigen fast flux "
              "fluid gen geo graph grid hydro hyper kin lattice mesh meta micro mol nano net "
              "neuro num ocean omni open part phys plasma poly prot quant rapid scal seis sim "
              "spectra stat super sym tera therm tile topo trans turbo vec vis wave xeno zeta "
              "agile beam cell delta ion lumen opti pico").split()
NAME_TAILS = ("lib kit pack flow solve mesh grid io core tools sim fft lab opt scan map view base "
              "ml parse sync db fit calc bench plot sort store cache stream graph form cl x pp "
              "run spec gen tk hub").split()
NAME_SUFFIXES = ("", "", "", "", "", "-ng", "-cpp", "-utils", "-api", "2", "3", "-tools", "-c")

# Synthetic names by prefix, roughly the shares seen in Spack's package list.
NAME_PREFIXES = (("py-", 0.35), ("r-", 0.12), ("perl-", 0.05), ("lib", 0.10), ("", 0.38))

BOOL_VARIANTS = ("mpi shared static pic openmp fortran cxx hl threadsafe szip debug examples "
                 "tests docs python ipo zlib lto int64 complex hdf5 netcdf x11 opengl blas "
                 "lapack superlu-dist hypre metis mumps scalapack suite-sparse serial pthreads "
                 "ssl gui qt tbb cairo png jpeg tiff zstd bzip2 lz4 snappy valgrind papi "
                 "profiling sycl sve float128 ilp64 mpiio pnetcdf").split()
KV_VARIANTS: dict[str, tuple[str, ...]] = {
    "libs": ("shared,static", "shared", "static"),
    "cxxstd": ("17", "14", "20"),
    "precision": ("double", "float", "double,float"),
    "api": ("default", "v110", "v18"),
    "fabrics": ("none", "ofi", "ucx", "ofi,psm2"),
    "schedulers": ("none", "slurm"),
    "threads": ("none", "openmp", "pthreads"),
    "visibility": ("hidden", "default"),
    "languages": ("c,c++", "c,c++,fortran"),
    "tls": ("openssl", "gnutls"),
    "backend": ("serial", "openmp", "threads"),
    "memchecker": ("none", "valgrind"),
}
CMAKE_VARIANTS: tuple[tuple[str, ...], ...] = (
    ("build_type=Release", "build_type=RelWithDebInfo", "build_type=Debug"),
    ("generator=make", "generator=ninja"),
)
CUDA_ARCHS = ("80", "90", "80,90", "70,80,90")
AMDGPU_TARGETS = ("gfx90a", "gfx90a,gfx942", "gfx942", "gfx908,gfx90a")

# Release tags with their approximate release dates; dated snapshots come on top.
RELEASES: tuple[tuple[str, str], ...] = (
    ("v0.19.2", "2023-04-03"), ("v0.20.0", "2023-05-21"), ("v0.20.1", "2023-07-10"),
    ("v0.20.2", "2023-10-03"), ("v0.20.3", "2023-10-31"), ("v0.21.0", "2023-11-12"),
    ("v0.21.1", "2024-01-12"), ("v0.21.2", "2024-02-07"), ("v0.21.3", "2024-07-08"),
    ("v0.22.0", "2024-05-12"), ("v0.22.1", "2024-07-04"), ("v0.22.2", "2024-10-03"),
    ("v0.22.3", "2024-11-18"), ("v0.22.4", "2025-01-10"), ("v0.22.5", "2025-02-04"),
    ("v0.23.0", "2024-11-13"), ("v0.23.1", "2025-02-19"), ("v1.0.0", "2025-07-20"),
    ("v1.0.1", "2025-08-18"), ("v1.0.2", "2025-09-09"),
)
SNAPSHOT_COUNT = 39
SNAPSHOT_SPAN = (dt.date(2024, 6, 2), dt.date(2025, 8, 31))  # both Sundays
SEED_SNAPSHOT = dt.date(2025, 4, 20)  # the seeds' snapshot; keep it in the L tree
DEVELOP_DATE = dt.date(2025, 9, 15)
ERA_START = dt.date(2023, 4, 1)  # versions age from here (era 0) to develop (era 1)
SEQUOIA_SINCE = dt.date(2024, 10, 1)

# Fraction of a document's specs taken over unchanged from the same package in
# the parent tag, tuned so neighbouring snapshots share about half their hashes.
SHARE_SNAPSHOT = 0.6
SHARE_POINT_RELEASE = 0.7
SHARE_MINOR_RELEASE = 0.15

SCALES = {"M": (3_000, 60_000), "L": (50_000, 500_000)}  # documents, specs
L_TAGS = 60
PACKAGE_COUNT = 3_000
DEVELOP_SPECS_L = 60_000
MAX_VARIANTS = 40
# Caps a document's share of its tag: the biggest real documents hold several
# hundred specs, not thousands.
MAX_DOC_WEIGHT = 40.0


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------

class Spec(NamedTuple):
    hash: str
    json: str  # the spec's entry in spec_details, pre-rendered once
    compiler: str
    os: str
    platform: str
    target: str
    stacks: tuple[str, ...]
    version: str


@dataclass
class Package:
    name: str
    popularity: float  # lower = present in more tags
    weight: float  # relative number of specs per document
    stacks: tuple[str, ...]
    configs: list[tuple[str, ...]]  # variant sets the package is built with
    versions: tuple[str, ...]  # oldest first
    window: int  # how many recent versions a tag carries
    cuda_arch: str | None  # None = no GPU variants
    amdgpu_target: str | None
    at_eq: bool  # spells compilers `gcc@=13.2.0`, like py-pdm-backend in the seeds
    sized: bool  # the site knows binary sizes for this package
    size_mu: float  # log of the typical binary size
    _variants_json: dict[tuple[int, str], str] = field(default_factory=dict, repr=False)
    _co_stacks: dict[tuple[str, int, str], tuple[str, ...]] = field(default_factory=dict,
                                                                    repr=False)


@dataclass
class TagPlan:
    name: str
    date: dt.date
    documents: int
    specs: int
    share: float  # fraction reused from the previously generated tag (0 = none)


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

def _jlist(items: tuple[str, ...] | list[str]) -> str:
    """JSON list of plain ASCII strings, as json.dumps writes it."""
    return '["' + '", "'.join(items) + '"]' if items else "[]"


def allocate(total: int, weights: list[float], minimum: int = 1) -> list[int]:
    """Split `total` into integers proportional to `weights`, each >= minimum.

    Largest-remainder rounding, so the sum is exact and the result deterministic.
    """
    spare = total - minimum * len(weights)
    if spare < 0:
        raise ValueError(f"cannot give {len(weights)} items at least {minimum} of {total}")
    scale = spare / sum(weights)
    raw = [w * scale for w in weights]
    counts = [int(r) for r in raw]
    by_remainder = sorted(range(len(raw)), key=lambda i: (counts[i] - raw[i], i))
    for i in by_remainder[: spare - sum(counts)]:
        counts[i] += 1
    return [c + minimum for c in counts]


def weighted_sample(rng: random.Random, items: tuple[str, ...], weights: list[float],
                    k: int) -> list[str]:
    """k distinct items, drawn with probability proportional to weight."""
    keyed = sorted(((rng.random() ** (1.0 / w), item) for item, w in zip(items, weights)),
                   reverse=True)
    return [item for _, item in keyed[:k]]


def new_hash(rng: random.Random, taken: set[str]) -> str:
    """32 characters of lowercase base32, like Spack's DAG hashes, never reused."""
    while True:
        h = base64.b32encode(rng.getrandbits(160).to_bytes(20, "big")).decode("ascii").lower()
        if h not in taken:
            taken.add(h)
            return h


def variant_order(variant: str) -> tuple[int, str]:
    # Spack prints boolean variants first, then key=value ones, each by name.
    if variant[0] in "+~":
        return (0, variant[1:])
    return (1, variant.split("=", 1)[0])


def stack_flavor(stack: str) -> str:
    return "cuda" if "cuda" in stack else "rocm" if "rocm" in stack else "cpu"


# --------------------------------------------------------------------------
# Packages
# --------------------------------------------------------------------------

def package_names(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """The real names first, then unique synthetic ones, as (name, kind)."""
    names = list(REAL_PACKAGES)
    seen = {name for name, _ in names}
    prefixes = [p for p, _ in NAME_PREFIXES]
    shares = [w for _, w in NAME_PREFIXES]
    while len(names) < count:
        prefix = rng.choices(prefixes, shares)[0]
        word = rng.choice(NAME_HEADS) + rng.choice(NAME_TAILS)
        if prefix in ("py-", "perl-") and rng.random() < 0.35:
            word += "-" + rng.choice(NAME_TAILS)  # py-geo-io, perl-test-base
        name = prefix + word + rng.choice(NAME_SUFFIXES)
        if name not in seen:
            seen.add(name)
            names.append((name, "synthetic"))
    return names


def name_family(name: str) -> str:
    for prefix in ("py-", "r-", "perl-"):
        if name.startswith(prefix):
            return prefix[:-1]
    return "native"


def pick_stacks(rng: random.Random, name: str, kind: str) -> tuple[str, ...]:
    if kind == "core":
        return ALL_STACKS
    family = name_family(name)
    if kind == "ml" or family == "py":
        weights = {"hpc": 1.0, "ml": 3.0, "tool": 0.2}
    elif family in ("r", "perl"):
        weights = {"hpc": 2.0, "ml": 0.1, "tool": 1.0}
    else:
        weights = {"hpc": 3.0, "ml": 0.7, "tool": 0.6}
    group = {s: "hpc" for s in HPC_STACKS} | {s: "ml" for s in ML_STACKS} | \
        {s: "tool" for s in TOOL_STACKS}
    k = min(len(ALL_STACKS), 1 + int(rng.expovariate(0.3)) + (6 if kind == "hpc" else 0))
    chosen = weighted_sample(rng, ALL_STACKS, [weights[group[s]] for s in ALL_STACKS], k)
    return tuple(sorted(chosen))


def build_system(rng: random.Random, name: str) -> str | None:
    family = name_family(name)
    if family == "py":
        return "python_pip"
    if family == "r":
        return "r"
    if family == "perl":
        return rng.choice(("perl", "perl", "makefile"))
    if rng.random() < 0.03:
        return None  # bundle packages have no variants at all
    return rng.choices(("cmake", "autotools", "meson", "makefile", "generic"),
                       (50, 30, 7, 8, 5))[0]


def extra_variant_count(rng: random.Random, name: str, kind: str) -> int:
    family = name_family(name)
    if kind == "hpc":
        return rng.randint(18, 33)
    if kind == "core":
        return rng.randint(2, 8)
    if family == "py":
        return rng.choice((0, 0, 0, 1, 2, 3))
    if family in ("r", "perl"):
        return 0
    return min(33, int(rng.lognormvariate(1.5, 0.8)))


def variant_slots(rng: random.Random, name: str, kind: str, gpu: bool) -> list[tuple[str, ...]]:
    """Each slot lists its possible values, default first."""
    system = build_system(rng, name)
    if system is None:
        return []
    slots: list[tuple[str, ...]] = [(f"build_system={system}",)]
    if system == "cmake":
        slots.extend(CMAKE_VARIANTS)
    room = MAX_VARIANTS - len(slots) - (4 if gpu else 0) - 1  # 1 spare for patches
    n = min(room, extra_variant_count(rng, name, kind))
    n_kv = min(len(KV_VARIANTS), int(n * rng.uniform(0.1, 0.4)))
    for key in rng.sample(sorted(KV_VARIANTS), n_kv):
        slots.append(tuple(f"{key}={v}" for v in KV_VARIANTS[key]))
    for flag in rng.sample(BOOL_VARIANTS, n - n_kv):
        on, off = f"+{flag}", f"~{flag}"
        slots.append((on, off) if rng.random() < 0.6 else (off, on))
    if rng.random() < (0.15 if name_family(name) == "native" else 0.03):
        shas = sorted(f"{rng.getrandbits(256):064x}" for _ in range(rng.randint(1, 3)))
        slots.append(("patches=" + ",".join(shas),))
    return slots


def variant_configs(rng: random.Random, slots: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Defaults plus a few variations: a package is built in only a handful of ways."""
    defaults = [values[0] for values in slots]
    configs = [tuple(defaults)]
    flippable = [i for i, values in enumerate(slots) if len(values) > 1]
    for _ in range(min(3, int(rng.expovariate(0.8))) if flippable else 0):
        config = list(defaults)
        for i in rng.sample(flippable, min(len(flippable), rng.randint(1, 3))):
            config[i] = rng.choice(slots[i][1:])
        configs.append(tuple(config))
    return configs


def semver_history(rng: random.Random, length: int) -> list[str]:
    major = rng.choices((0, 1, 2, 3, 4, 5, 7, 10), (30, 25, 15, 10, 6, 5, 5, 4))[0]
    minor, patch = rng.randint(0, 30), rng.randint(0, 6)
    history = []
    for _ in range(length):
        history.append(f"{major}.{minor}.{patch}")
        if rng.random() < 0.5:
            patch += 1
        else:
            minor, patch = minor + 1, 0
    return history


def calver_history(rng: random.Random, length: int) -> list[str]:
    year, month = rng.randint(2022, 2024), rng.randint(1, 9)
    history = []
    for i in range(length):
        history.append(f"{year}.{month:02d}.{rng.randint(0, 2)}")
        month += 3
        if month > 12:
            year, month = year + 1, month - 12
    return history


def version_history(rng: random.Random, name: str) -> tuple[str, ...]:
    if name in REAL_VERSIONS:
        return REAL_VERSIONS[name]
    length = rng.randint(1, 6)
    history = (calver_history if rng.random() < 0.1 else semver_history)(rng, length)
    if rng.random() < 0.05:  # a release candidate of the next version
        major, minor, *_ = history[-1].split(".")
        history.append(f"{major}.{int(minor) + 1}.0-rc1")
    if rng.random() < 0.06:  # some packages are only useful from their branch
        history.append(rng.choice(("develop", "main", "master")))
    return tuple(history)


def gpu_capable(rng: random.Random, name: str, kind: str) -> bool:
    if kind == "hpc" or name in ("py-torch", "py-jax", "py-tensorflow", "nccl"):
        return True
    return kind == "synthetic" and name_family(name) == "native" and rng.random() < 0.2


def make_package(rng: random.Random, name: str, kind: str) -> Package:
    gpu = gpu_capable(rng, name, kind)
    slots = variant_slots(rng, name, kind, gpu)
    real = kind != "synthetic"
    boost = 3.0 if kind == "core" else 2.0 if real else 1.0
    return Package(
        name=name,
        # Real packages are in nearly every tag; synthetic ones spread out.
        popularity=rng.uniform(0.0, 0.05) if real else rng.random(),
        weight=boost * rng.lognormvariate(0.0, 1.05),
        stacks=pick_stacks(rng, name, kind),
        configs=variant_configs(rng, slots),
        versions=version_history(rng, name),
        window=rng.choices((1, 2, 3, 4), (45, 30, 15, 10))[0],
        cuda_arch=rng.choice(CUDA_ARCHS) if gpu else None,
        amdgpu_target=rng.choice(AMDGPU_TARGETS) if gpu else None,
        at_eq=rng.random() < 1 / 3,
        sized=rng.random() < 0.3,
        size_mu=rng.uniform(math.log(1e4), math.log(5e9)),
    )


def make_packages(rng: random.Random) -> list[Package]:
    names = package_names(rng, PACKAGE_COUNT)
    return [make_package(rng, name, kind) for name, kind in names]


# --------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------

def gpu_variants(pkg: Package, flavor: str) -> tuple[str, ...]:
    if pkg.cuda_arch is None:
        return ()
    if flavor == "cuda":
        return ("+cuda", f"cuda_arch={pkg.cuda_arch}", "~rocm", "amdgpu_target=none")
    if flavor == "rocm":
        return ("~cuda", "cuda_arch=none", "+rocm", f"amdgpu_target={pkg.amdgpu_target}")
    return ("~cuda", "cuda_arch=none", "~rocm", "amdgpu_target=none")


def variants_json(pkg: Package, config: int, flavor: str) -> str:
    key = (config, flavor if pkg.cuda_arch else "cpu")
    cached = pkg._variants_json.get(key)
    if cached is None:
        variants = sorted(pkg.configs[config] + gpu_variants(pkg, flavor), key=variant_order)
        cached = pkg._variants_json[key] = _jlist(variants)
    return cached


def co_stacks(pkg: Package, stack: str, env_index: int, compiler: str) -> tuple[str, ...]:
    """Other stacks of the package that would build this very binary."""
    key = (stack, env_index, compiler)
    cached = pkg._co_stacks.get(key)
    if cached is None:
        platform, os_, target, _ = STACK_ENVS[stack][env_index]
        flavor = stack_flavor(stack)
        cached = tuple(
            other for other in pkg.stacks
            if other != stack
            and (pkg.cuda_arch is None or stack_flavor(other) == flavor)
            and any(e[:3] == (platform, os_, target) and compiler in dict(e[3])
                    for e in STACK_ENVS[other])
        )
        pkg._co_stacks[key] = cached
    return cached


def tag_versions(pkg: Package, era: float) -> tuple[str, ...]:
    """The versions a tag of this age carries: a window ending at its newest."""
    newest = round(era * (len(pkg.versions) - 1))
    return pkg.versions[max(0, newest - pkg.window + 1): newest + 1]


def new_spec(rng: random.Random, pkg: Package, tag: TagPlan, versions: tuple[str, ...],
             hashes: set[str]) -> Spec:
    stack = rng.choice(pkg.stacks)
    env_index = rng.randrange(len(STACK_ENVS[stack]))
    platform, os_, target, compilers = STACK_ENVS[stack][env_index]
    if os_ == "DARWIN":
        os_ = "sequoia" if tag.date >= SEQUOIA_SINCE else "sonoma"
    compiler = compilers[0][0] if len(compilers) == 1 else \
        rng.choices([c for c, _ in compilers], [w for _, w in compilers])[0]
    shared = [s for s in co_stacks(pkg, stack, env_index, compiler) if rng.random() < 0.6][:2]
    stacks = tuple(sorted([stack, *shared, "root"]))  # every spec is also in `root`
    if pkg.at_eq:
        compiler = compiler.replace("@", "@=", 1)
    version = rng.choices(versions, [2 ** i for i in range(len(versions))])[0]
    size = '"-"'
    if pkg.sized:
        size = str(min(5_000_000_000, max(10_000, int(rng.lognormvariate(pkg.size_mu, 0.6)))))
    h = new_hash(rng, hashes)
    variants = variants_json(pkg, rng.randrange(len(pkg.configs)), stack_flavor(stack))
    # Rendered by hand rather than json.dumps: ~15x faster for 500k specs, and every
    # value is generator-made ASCII that needs no escaping.  Keys in sorted order.
    text = (f'{{"compiler": "{compiler}", "hash": "{h}", "os": "{os_}", '
            f'"platform": "{platform}", "size": {size}, "stacks": {_jlist(stacks)}, '
            f'"target": "{target}", "variants": {variants}, "versions": ["{version}"]}}')
    return Spec(h, text, compiler, os_, platform, target, stacks, version)


def document_specs(rng: random.Random, pkg: Package, tag: TagPlan, era: float, count: int,
                   parent: list[Spec] | None, hashes: set[str]) -> list[Spec]:
    """`count` specs; some are the parent tag's binaries, unchanged."""
    versions = tag_versions(pkg, era)
    reused: list[Spec] = []
    if parent and tag.share:
        # Only binaries of versions this tag still carries survive into it.
        current = [s for s in parent if s.version in versions]
        k = min(count, len(current), int(count * tag.share + rng.random()))
        reused = rng.sample(current, k)
    fresh = [new_spec(rng, pkg, tag, versions, hashes) for _ in range(count - len(reused))]
    return sorted(reused + fresh)  # the site lists specs by hash


# --------------------------------------------------------------------------
# Documents
# --------------------------------------------------------------------------

def render_document(package: str, tag: str, specs: list[Spec]) -> str:
    by_stack = Counter(stack for s in specs for stack in s.stacks)
    meta = {
        "compilers": sorted({s.compiler for s in specs}),
        "num_specs": len(specs),
        "num_specs_by_stack": dict(by_stack),
        "oss": sorted({s.os for s in specs}),
        "platforms": sorted({s.platform for s in specs}),
        "stacks": sorted(by_stack),
        "targets": sorted({s.target for s in specs}),
        "versions": sorted({s.version for s in specs}),
    }
    details = "[" + ", ".join(s.json for s in specs) + "]"
    # No newline after the closing '---': the real documents end there.
    return (f'---\ntitle: "{package}"\nlayout: cache\ncategories: [package, {tag}]\n'
            f"meta: {json.dumps(meta, sort_keys=True)}\nspec_details: {details}\n---")


def write_document(out_dir: Path, tag: str, package: str, text: str) -> None:
    folder = out_dir / "_cache" / tag / package
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "specs.md").write_bytes(text.encode("utf-8"))


# --------------------------------------------------------------------------
# Tags
# --------------------------------------------------------------------------

def snapshot_dates(rng: random.Random) -> list[dt.date]:
    """Weekly-ish Sundays: most weeks, with some skipped, always the seeds' one."""
    first, last = SNAPSHOT_SPAN
    sundays = [first + dt.timedelta(weeks=w) for w in range((last - first).days // 7 + 1)]
    others = [d for d in sundays if d != SEED_SNAPSHOT]
    return sorted(rng.sample(others, SNAPSHOT_COUNT - 1) + [SEED_SNAPSHOT])


def plan_tags(rng: random.Random, scale: str) -> list[TagPlan]:
    """Tags in generation order; each may reuse binaries of the one before it."""
    documents, specs = SCALES[scale]
    if scale == "M":
        return [TagPlan("develop", DEVELOP_DATE, documents, specs, 0.0)]
    plans: list[TagPlan] = []
    previous = ""
    for name, day in RELEASES:  # oldest first, so each builds on the one before
        series = name.rsplit(".", 1)[0]  # v0.22.3 -> v0.22
        share = 0.0 if not previous else \
            SHARE_POINT_RELEASE if previous.rsplit(".", 1)[0] == series else SHARE_MINOR_RELEASE
        plans.append(TagPlan(name, dt.date.fromisoformat(day), 0, 0, share))
        previous = name
    for i, day in enumerate(snapshot_dates(rng)):
        # The first snapshot starts afresh: the tag generated before it is a newer release.
        share = SHARE_SNAPSHOT if i else 0.0
        plans.append(TagPlan(f"develop-{day.isoformat()}", day, 0, 0, share))
    assert len(plans) == L_TAGS - 1
    size_tags(rng, plans, documents - PACKAGE_COUNT, specs - DEVELOP_SPECS_L)
    plans.append(TagPlan("develop", DEVELOP_DATE, PACKAGE_COUNT, DEVELOP_SPECS_L,
                         SHARE_SNAPSHOT))
    return plans


def size_tags(rng: random.Random, plans: list[TagPlan], documents: int, specs: int) -> None:
    """Exact document and spec totals; newer tags carry more packages."""
    start, end = plans[0].date, DEVELOP_DATE
    growth = [0.6 + 0.6 * (p.date - start).days / (end - start).days for p in plans]
    doc_counts = allocate(documents, [g * rng.uniform(0.85, 1.15) for g in growth])
    spec_counts = allocate(specs, [d * rng.lognormvariate(0.0, 0.15) for d in doc_counts])
    assert max(doc_counts) <= PACKAGE_COUNT
    for plan, d, s in zip(plans, doc_counts, spec_counts):
        plan.documents, plan.specs = d, s


def tag_packages(rng: random.Random, packages: list[Package], count: int) -> list[Package]:
    """The `count` most popular packages, jittered so neighbouring tags differ a little."""
    if count >= len(packages):
        return list(packages)
    keyed = sorted((p.popularity * rng.lognormvariate(0.0, 0.25), i)
                   for i, p in enumerate(packages))
    return sorted((packages[i] for _, i in keyed[:count]), key=lambda p: p.name)


def era_of(day: dt.date) -> float:
    return max(0.0, min(1.0, (day - ERA_START).days / (DEVELOP_DATE - ERA_START).days))


def generate_tag(rng: random.Random, out_dir: Path, plan: TagPlan, packages: list[Package],
                 parent: dict[str, list[Spec]], hashes: set[str]) -> dict[str, list[Spec]]:
    chosen = tag_packages(rng, packages, plan.documents)
    weights = [min(MAX_DOC_WEIGHT, p.weight * rng.lognormvariate(0.0, 0.3)) for p in chosen]
    counts = allocate(plan.specs, weights)
    era = era_of(plan.date)
    docs: dict[str, list[Spec]] = {}
    for pkg, count in zip(chosen, counts):
        specs = document_specs(rng, pkg, plan, era, count, parent.get(pkg.name), hashes)
        write_document(out_dir, plan.name, pkg.name, render_document(pkg.name, plan.name, specs))
        docs[pkg.name] = specs
    return docs


# --------------------------------------------------------------------------
# Seeds (scale S)
# --------------------------------------------------------------------------

def default_seeds_dir() -> Path:
    repo = Path(__file__).resolve().parent.parent
    bundled = repo / "cachetui" / "sample"
    return bundled if bundled.is_dir() else repo.parent / "shared" / "seeds"


def seed_header(text: str) -> tuple[str, str, int] | None:
    """(package, tag, number of specs) of a seed document, None for other files."""
    lines = text.split("\n")
    if len(lines) < 7 or lines[0] != "---" or not lines[1].startswith("title: "):
        return None
    package = lines[1][len("title: "):].strip('"')
    tag = lines[3][len("categories: "):].strip("[]").split(", ")[1]
    num_specs = json.loads(lines[4][len("meta: "):])["num_specs"]
    return package, tag, num_specs


def copy_seeds(out_dir: Path, seeds_dir: Path) -> dict[str, int]:
    places: set[tuple[str, str]] = set()
    specs = 0
    for path in sorted(p for p in seeds_dir.iterdir() if p.is_file()):
        data = path.read_bytes()
        header = seed_header(data.decode("utf-8", errors="replace"))
        if header is None:
            continue  # README and the like
        package, tag, num_specs = header
        if (tag, package) in places:
            raise ValueError(f"two seed documents for {package} in {tag}")
        places.add((tag, package))
        specs += num_specs
        folder = out_dir / "_cache" / tag / package
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "specs.md").write_bytes(data)  # verbatim, byte for byte
    if not places:
        raise FileNotFoundError(f"no seed documents in {seeds_dir}")
    return {"documents": len(places), "packages": len({p for _, p in places}),
            "tags": len({t for t, _ in places}), "specs": specs}


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------

def prepare_out_dir(out_dir: Path, force: bool) -> None:
    cache = out_dir / "_cache"
    if cache.exists() and any(cache.iterdir()):
        if not force:
            raise FileExistsError(f"{cache} is not empty (use --force to replace it)")
        shutil.rmtree(cache)
    out_dir.mkdir(parents=True, exist_ok=True)


def generate(out_dir: Path, scale: str, seed: int = 0, *, seeds_dir: Path | None = None,
             force: bool = False) -> dict[str, int]:
    """Write the corpus for `scale` under out_dir/_cache; return its counts."""
    if scale not in ("S", *SCALES):
        raise ValueError(f"unknown scale {scale!r}; expected S, M or L")
    out_dir = Path(out_dir)
    prepare_out_dir(out_dir, force)
    if scale == "S":
        return copy_seeds(out_dir, Path(seeds_dir) if seeds_dir else default_seeds_dir())
    rng = random.Random(seed)
    packages = make_packages(rng)
    plans = plan_tags(rng, scale)
    hashes: set[str] = set()
    parent: dict[str, list[Spec]] = {}
    used: set[str] = set()
    for plan in plans:
        parent = generate_tag(rng, out_dir, plan, packages, parent, hashes)
        used.update(parent)
    return {"documents": sum(p.documents for p in plans), "packages": len(used),
            "tags": len(plans), "specs": sum(p.specs for p in plans)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    parser.add_argument("--scale", required=True, choices=("S", "M", "L"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=Path, default=None, metavar="DIR",
                        help="seed documents for scale S (default: the bundled sample)")
    parser.add_argument("--force", action="store_true",
                        help="replace an existing OUT_DIR/_cache")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        counts = generate(args.out_dir, args.scale, args.seed, seeds_dir=args.seeds,
                          force=args.force)
    except (FileExistsError, FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    print(f"scale {args.scale} seed {args.seed}: {counts['documents']:,} documents, "
          f"{counts['packages']:,} packages, {counts['tags']} tags, {counts['specs']:,} specs "
          f"in {elapsed:.1f}s -> {args.out_dir / '_cache'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
