"""A small deterministic tree for the width tests: 20 hdf5 binaries told apart by a variant or two.

hdf5 is in tag `develop`; its first six binaries are listed again in tag `v0.23` (the same hashes),
so the all-packages view has pairs of listings that only the tag tells apart. Every size is "-".
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import listing, spec_entry

HDF5_COUNT = 20
TWICE = 6  # listed in both tags


def hdf5_entry(i: int) -> dict:
    variants = [
        "+mpi",
        "+threadsafe" if i % 2 else "~threadsafe",  # splits the rows evenly
        "+fortran" if i % 5 == 0 else "~fortran",
        "+hl",
        "build_type=Release" if i % 4 else "build_type=Debug",
        "api=default",
    ]
    return spec_entry(
        "h" + chr(ord("a") + i) + "a" * 30,  # a valid Spack hash: base32 letters
        versions=["1.14.3" if i < 12 else "1.14.5"],
        compiler="gcc@13.2.0" if i % 3 else "gcc@12.3.0",
        os="ubuntu22.04" if i < 15 else "rhel8",
        target="x86_64_v3",
        variants=variants,
        stacks=["e4s", "root"] if i % 2 else ["ml-linux-x86_64-cpu", "root"],
    )


def write_width_tree(root: Path) -> Path:
    hdf5 = [hdf5_entry(i) for i in range(HDF5_COUNT)]
    zlib = [spec_entry("z" * 32, versions=["1.3"], variants=["+pic"]),
            spec_entry("y" * 32, versions=["1.3"], variants=["~pic"])]
    for tag, package, specs in (("develop", "hdf5", hdf5), ("v0.23", "hdf5", hdf5[:TWICE]),
                                ("develop", "zlib", zlib)):
        path = root / "_cache" / tag / package / "specs.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(listing(package, tag, specs))
    return root
