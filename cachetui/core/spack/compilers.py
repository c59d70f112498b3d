"""Normalise compiler spellings: `gcc@=13.2.0` and `gcc@13.2.0` are one compiler, and so are `oneapi@2024.1`
and `intel-oneapi-compilers@2024.1`.

Every compiler a source names goes through `normalise_compiler` as it is loaded, so the corpus holds one
value per compiler: the facets count it once, the palette offers it once, a query finds it under either
name (`canonical_compiler_name`; near misses and the palette try both, `compiler_spellings`), and the
table, the details and every output show the same text.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from cachetui.core.spack.deptypes import BUILD

# Spack 1.x made compilers build dependencies: a node's compiler is the one providing c, else cxx,
# else fortran (the order is the rank an edge gets; NOT_A_COMPILER for one providing none of them).
COMPILER_LANGUAGES = ("c", "cxx", "fortran")
NOT_A_COMPILER = len(COMPILER_LANGUAGES)


@lru_cache(maxsize=4096)
def normalise_compiler(text: str) -> str:
    """`gcc@=13.2.0` -> `gcc@13.2.0`, `oneapi@=2024.1` -> `intel-oneapi-compilers@2024.1` (see
    `canonical_compiler_name`); surrounding space dropped; case kept."""
    name, at, version = text.strip().partition("@")
    name = canonical_compiler_name(name)
    if not at:
        return name
    return f"{name}@{version.removeprefix('=')}"


def compiler_name(normalised: str) -> str:
    """`gcc@13.2.0` -> `gcc`."""
    return normalised.partition("@")[0]


def name_at_version(name: str, version: str) -> str:
    """`gcc`, `13.2.0` -> `gcc@13.2.0`; a compiler without a version is its name alone."""
    return f"{name}@{version}" if version else name


def compiler_text(value: Any) -> str | None:
    """A compiler as the site and older specfiles write it: a string, or a `{name, version}` mapping."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        version = value.get("version")
        return name_at_version(value["name"], version if isinstance(version, str) else "")
    return None


def compiler_rank(deptypes: int, virtuals: Iterable[str]) -> int:
    """Where an edge comes in the search for a node's compiler: the first of COMPILER_LANGUAGES it provides;
    NOT_A_COMPILER unless it is a build edge providing one."""
    if not deptypes & BUILD:
        return NOT_A_COMPILER
    return min((COMPILER_LANGUAGES.index(v) for v in virtuals if v in COMPILER_LANGUAGES), default=NOT_A_COMPILER)


def node_compiler(own: str, provider: tuple[str, str], annotated: str) -> str:
    """A node's compiler as Spack reads it: its own compiler object (specfiles before 1.x), else the build
    dependency that provides a language (its (name, version), see compiler_rank; ("", "") for none), else the
    compiler annotated on a node converted from an older specfile, else `none`."""
    if own:
        return normalise_compiler(own)
    if provider[0]:
        return name_at_version(canonical_compiler_name(provider[0]), provider[1])
    return normalise_compiler(annotated) if annotated else "none"


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


def canonical_compiler_name(name: str) -> str:
    """The one name a compiler is held, counted and shown under: Spack 1.x's package name (`oneapi` ->
    `intel-oneapi-compilers`, `clang` -> `llvm`); any other name is its own.

    The package name, not whichever spelling the loaded sources use most: it is what Spack 1.x writes
    and reads in a spec (and what the newest site documents write), and it does not depend on what else
    is loaded, so a binary's compiler reads the same in every session, export and script.
    """
    return COMPILER_TO_PACKAGE.get(name, name)


def compiler_spellings(name: str) -> frozenset[str]:
    """Every name that means this compiler: `oneapi` and `intel-oneapi-compilers` are one."""
    return frozenset({name, PACKAGE_TO_COMPILER.get(name, name), COMPILER_TO_PACKAGE.get(name, name)})


def spellings_of(compiler: str) -> list[str]:
    """A held compiler (name or `name@version`) as it may be typed: its own text first, then under its
    old name (`llvm@17.0.6` -> `llvm@17.0.6`, `clang@17.0.6`)."""
    name, at, version = compiler.partition("@")
    return [f"{spelling}{at}{version}" for spelling in sorted(compiler_spellings(name), key=lambda n: n != name)]
