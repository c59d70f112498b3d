"""Normalise compiler spellings: `gcc@=13.2.0` and `gcc@13.2.0` are one compiler."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=4096)
def normalise_compiler(text: str) -> str:
    """`gcc@=13.2.0` -> `gcc@13.2.0`; surrounding space dropped; case kept."""
    name, at, version = text.strip().partition("@")
    if not at:
        return name
    return f"{name}@{version.removeprefix('=')}"


def compiler_name(normalised: str) -> str:
    """`gcc@13.2.0` -> `gcc`."""
    return normalised.partition("@")[0]


def compiler_text(value: Any) -> str | None:
    """A compiler as the site writes it: a string, or an older `{name, version}` mapping."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        version = value.get("version")
        return f"{value['name']}@{version}" if isinstance(version, str) and version else value["name"]
    return None


# Spack 1.x made compilers packages; the old compiler names still name the same compilers
# (spack/compilers/config.py: `package_name_to_compiler_name`).
PACKAGE_TO_COMPILER = {
    "llvm": "clang",
    "intel-oneapi-compilers": "oneapi",
    "llvm-amdgpu": "rocmcc",
    "intel-oneapi-compilers-classic": "intel",
    "acfl": "arm",
}
COMPILER_TO_PACKAGE = {compiler: package for package, compiler in PACKAGE_TO_COMPILER.items()}


def compiler_spellings(name: str) -> frozenset[str]:
    """Every name that means this compiler: `oneapi` and `intel-oneapi-compilers` are one."""
    return frozenset({name, PACKAGE_TO_COMPILER.get(name, name), COMPILER_TO_PACKAGE.get(name, name)})
