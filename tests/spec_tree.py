"""A small tree of site documents whose binaries are named by what makes them special.

Shared by the spec-query tests of the core, the CLI and the browser.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import listing, spec_entry

# label: (package, version, compiler, variants, platform, os, target)
BINARIES = {
    "hmpi": ("hdf5", "1.14.3", "gcc@=13.2.0", ["+mpi", "~cuda", "build_type=Release"], "linux", "ubuntu22.04", "x86_64_v3"),
    "hzen": ("hdf5", "1.14.5", "gcc@13.3.0", ["+mpi", "~cuda"], "linux", "ubuntu22.04", "zen3"),
    "hgcctwelve": ("hdf5", "1.14.3", "gcc@12.3.0", ["+mpi", "~cuda"], "linux", "ubuntu22.04", "x86_64_v3"),
    "hserial": ("hdf5", "1.14.3", "gcc@13.2.0", ["~mpi", "~cuda"], "linux", "ubuntu22.04", "x86_64_v3"),
    "hold": ("hdf5", "1.12.2", "gcc@13.2.0", ["+mpi", "~cuda"], "linux", "ubuntu22.04", "x86_64_v3"),
    "hcuda": ("hdf5", "1.14.5", "oneapi@=2024.2.1", ["+mpi", "+cuda", "cuda_arch=80,90"], "linux", "rhel8",
              "x86_64_v4"),
    "hvone": ("hdf5", "1.14.3", "gcc@13.2.0", ["+mpi", "~cuda"], "linux", "ubuntu22.04", "neoverse_v1"),
    "hvtwo": ("hdf5", "1.14.3", "gcc@13.2.0", ["+mpi"], "linux", "ubuntu22.04", "neoverse_v2"),
    "hnone": ("hdf5", "1.14.3", "gcc@13.2.0", ["+mpi"], "linux", "ubuntu22.04", "neoverse_n1"),
    "haarch": ("hdf5", "1.14.3", "none", ["+mpi"], "linux", "rhel8", "aarch64"),
    "hmac": ("hdf5", "1.14.3", "apple-clang@=15.0.0", ["+mpi"], "darwin", "sonoma", "m1"),
    "kexact": ("kokkos", "4.3.01", "gcc@13.2.0", ["+cuda", "cuda_arch:=80"], "linux", "ubuntu22.04", "x86_64_v3"),
    "kboth": ("kokkos", "4.3.01", "gcc@13.2.0", ["+cuda", "cuda_arch=80,90"], "linux", "ubuntu22.04", "x86_64_v3"),
    "kpatch": ("kokkos", "4.3.01.1", "gcc@13.2.0", ["~cuda"], "linux", "ubuntu22.04", "x86_64_v3"),
    "kold": ("kokkos", "4.3.00", "llvm@17.0.6", ["~cuda"], "linux", "ubuntu22.04", "x86_64"),
    "kninety": ("kokkos", "4.2.00", "oneapi@2024.2.1", ["+cuda", "cuda_arch=90"], "linux", "ubuntu22.04", "icelake"),
    "knewname": ("kokkos", "4.2.00", "intel-oneapi-compilers@=2025.0.0", ["~cuda"], "linux", "ubuntu22.04",
                 "x86_64_v2"),
    "zancient": ("zlib", "0.9", "gcc@13.2.0", ["+pic"], "linux", "ubuntu22.04", "x86_64"),
    "zzero": ("zlib", "1.0.8", "gcc@13.2.0", ["+pic"], "linux", "ubuntu22.04", "x86_64"),
    "ztwo": ("zlib", "1.2.13", "gcc@13.2.0", ["+pic"], "linux", "ubuntu22.04", "x86_64"),
    "ztwenty": ("zlib", "1.20.1", "gcc@13.2.0", ["~pic"], "linux", "ubuntu22.04", "x86_64"),
    "zthree": ("zlib", "1.3", "gcc@13.2.0", ["+pic"], "linux", "ubuntu22.04", "x86_64"),
    "pfxaaab": ("py-numpy", "2.1.0", "gcc@13.2.0", ["~blas"], "linux", "ubuntu22.04", "x86_64_v3"),
    "pfxaaac": ("py-numpy", "2.1.0", "gcc@13.2.0", ["+blas"], "linux", "ubuntu22.04", "x86_64_v3"),
}


def hash_of(label: str) -> str:
    return (label + "q" * 32)[:32]


def write_tree(root: Path) -> Path:
    packages: dict[str, list[dict]] = {}
    for label, (package, version, compiler, variants, platform, os, target) in BINARIES.items():
        packages.setdefault(package, []).append(spec_entry(
            hash_of(label), versions=[version], compiler=compiler, variants=variants, platform=platform, os=os,
            target=target))
    for package, specs in packages.items():
        path = root / "_cache" / "develop" / package / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(package, "develop", specs))
    return root
