"""What users want, in the shapes Spack writes (lib/spack/docs/file_formats/{lockfile,specfile,database}.rst),
and mirrors built from it with chosen nodes changed.

The environment is the one a Spack 1.0 tutorial concretized and showed with `spack spec` (roots cmake and
kokkos on linux-ubuntu24.04-icelake, gcc 13.3.0 and glibc 2.39 external): its packages, versions, variants,
patches and the shape of its edges (compilers as build edges providing c/cxx, gcc-runtime linked, externals
with `external: {path, module, extra_attributes}`). Its lockfile in the tutorial is cut after the first
lines, so the nodes are written from that output and the format documents; hashes spell the package names.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from tests.dag_mirror import hash_of
from tests.mirrors import v3_mirror

ARCH = {"platform": "linux", "platform_os": "ubuntu24.04", "target": {"name": "icelake", "vendor": "GenuineIntel"}}
FLAGS = {flag: [] for flag in ("cflags", "cppflags", "cxxflags", "fflags", "ldflags", "ldlibs")}
LINK, BUILD, BUILD_LINK, BUILD_RUN = ["link"], ["build"], ["build", "link"], ["build", "run"]

# name: (version, variants, [(dependency, deptypes, virtuals)]); every node but the externals and
# compiler-wrapper also gets gcc (build, c/cxx), compiler-wrapper (build) and gcc-runtime and glibc (link).
PACKAGES: dict[str, tuple[str, dict[str, Any], list[tuple[str, list[str], list[str]]]]] = {
    "cmake": ("3.31.6", {"doc": False, "ncurses": True, "ownlibs": True, "qtgui": False, "build_system": "generic",
                         "build_type": "Release"},
              [("curl", BUILD_LINK, []), ("ncurses", BUILD_LINK, []), ("zlib-ng", BUILD_LINK, ["zlib-api"]),
               ("gmake", BUILD, [])]),
    "curl": ("8.11.1", {"gssapi": False, "ldap": False, "nghttp2": True, "build_system": "autotools",
                        "libs": ["shared", "static"], "tls": ["openssl"]},
             [("nghttp2", BUILD_LINK, []), ("openssl", BUILD_LINK, []), ("zlib-ng", BUILD_LINK, ["zlib-api"]),
              ("pkgconf", BUILD, ["pkgconfig"])]),
    "nghttp2": ("1.65.0", {"build_system": "autotools"}, [("diffutils", BUILD, []), ("pkgconf", BUILD, ["pkgconfig"])]),
    "diffutils": ("3.10", {"build_system": "autotools"}, [("libiconv", BUILD_LINK, ["iconv"])]),
    "libiconv": ("1.17", {"build_system": "autotools", "libs": ["shared", "static"]}, []),
    "openssl": ("3.4.1", {"docs": False, "shared": True, "build_system": "generic", "certs": "mozilla"},
                [("ca-certificates-mozilla", BUILD, []), ("perl", BUILD, []), ("zlib-ng", BUILD_LINK, ["zlib-api"])]),
    "ca-certificates-mozilla": ("2025-02-25", {"build_system": "generic"}, []),
    "perl": ("5.40.0", {"cpanm": True, "opcode": True, "open": True, "shared": True, "threads": True,
                        "build_system": "generic"},
             [("berkeley-db", BUILD_LINK, []), ("bzip2", BUILD_LINK, []), ("gdbm", BUILD_LINK, []),
              ("zlib-ng", BUILD_LINK, ["zlib-api"])]),
    "berkeley-db": ("18.1.40", {"cxx": True, "docs": False, "stl": True, "build_system": "autotools",
                                "patches": ["26090f418891757af46ac3b89a9f43b6eef2b9e2b4ee9d3c4ba07f4e1e2d6ba3",
                                            "b231fcc4d5cff05e5c3a4814f6a5af0e9a5a4e9b5ef3c7d4f4c8a4c9c5a3ba2e"]}, []),
    "bzip2": ("1.0.8", {"debug": False, "pic": False, "shared": True, "build_system": "generic"},
              [("diffutils", BUILD, [])]),
    "gdbm": ("1.23", {"build_system": "autotools"}, [("readline", BUILD_LINK, [])]),
    "readline": ("8.2", {"build_system": "autotools"}, [("ncurses", BUILD_LINK, [])]),
    "ncurses": ("6.5", {"symlinks": False, "termlib": True, "abi": "none", "build_system": "autotools",
                        "patches": ["7a351bc4953a4ab70dabdbea31c8db0c03d40ce505335f3b6687180dde24c535"]},
                [("pkgconf", BUILD, ["pkgconfig"])]),
    "pkgconf": ("2.3.0", {"build_system": "autotools"}, []),
    "zlib-ng": ("2.2.3", {"compat": True, "new_strategies": True, "opt": True, "pic": True, "shared": True,
                          "build_system": "autotools"}, []),
    "gmake": ("4.4.1", {"guile": False, "build_system": "generic"}, []),
    "kokkos": ("4.5.01", {"cuda": False, "openmp": False, "serial": True, "shared": True, "build_system": "cmake",
                          "build_type": "Release", "cxxstd": "17"}, [("cmake", BUILD, [])]),
    "gcc-runtime": ("13.3.0", {"build_system": "generic"}, []),
    "compiler-wrapper": ("1.0", {"build_system": "generic"}, []),
}
EXTERNALS = {"gcc": ("13.3.0", {"binutils": False, "bootstrap": True, "languages": ["c", "c++", "fortran"],
                                "build_system": "autotools"}, "/usr"),
             "glibc": ("2.39", {"build_system": "autotools"}, "/usr")}
ROOTS = ("cmake", "kokkos")


def _edge(name: str, deptypes: list[str], virtuals: list[str], hashes: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "hash": hashes[name], "parameters": {"deptypes": deptypes, "virtuals": virtuals}}


def nodes(hashes: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Every node of the environment in specfile v5 (Spack 1.0), keyed by package name."""
    hashes = hashes or {name: hash_of(name) for name in (*PACKAGES, *EXTERNALS)}
    found = {}
    for name, (version, variants, deps) in PACKAGES.items():
        edges = [_edge(d, t, v, hashes) for d, t, v in deps]
        if name != "compiler-wrapper":
            edges += [_edge("gcc", BUILD, ["c", "cxx"], hashes), _edge("compiler-wrapper", BUILD, [], hashes)]
            edges += [_edge("gcc-runtime", LINK, [], hashes)] if name != "gcc-runtime" else []
            edges += [_edge("glibc", LINK, ["libc"], hashes)]
        found[name] = {"name": name, "version": version, "arch": copy.deepcopy(ARCH), "namespace": "builtin",
                       "parameters": {**variants, **FLAGS}, "package_hash": _package_hash(name),
                       "dependencies": sorted(edges, key=lambda e: e["name"]),
                       "annotations": {"original_specfile_version": 5}, "hash": hashes[name]}
    for name, (version, variants, path) in EXTERNALS.items():
        found[name] = {"name": name, "version": version, "arch": copy.deepcopy(ARCH), "namespace": "builtin",
                       "parameters": {**variants, **FLAGS},
                       "external": {"path": path, "module": None, "extra_attributes": {}},
                       "package_hash": _package_hash(name), "annotations": {"original_specfile_version": 5},
                       "hash": hashes[name]}
    return found


def _package_hash(name: str) -> str:
    return (name.replace("-", "").replace("_", "") * 8)[:52].lower().translate(str.maketrans("019", "abc")) + "===="


def lockfile(version: int = 6, roots: tuple[str, ...] = ROOTS) -> dict[str, Any]:
    """A spack.lock of the environment (Spack 1.0 writes version 6)."""
    held = nodes()
    return {"_meta": {"file-type": "spack-lockfile", "lockfile-version": version, "specfile-version": 5},
            "spack": {"version": "1.0.0", "type": "release"},
            "roots": [{"hash": held[r]["hash"], "spec": r} for r in roots],
            "concrete_specs": {node["hash"]: node for node in held.values()}}


def database(wanted: dict[str, dict[str, Any]], *, held: bool = True) -> dict[str, Any]:
    """DB 8 of these nodes: a mirror's index (`in_buildcache`; externals are records without a binary)."""
    installs = {node["hash"]: {"spec": node, "ref_count": 1, "in_buildcache": held and "external" not in node}
                for node in wanted.values()}
    return {"database": {"version": "8", "installs": installs}}


def write_mirror(root: Path, specs: dict[str, dict[str, Any]]) -> Path:
    v3_mirror(root, json.dumps(database(specs)).encode())
    return root


def changed(node: dict[str, Any], new_hash: str, **fields: Any) -> dict[str, Any]:
    """The node rebuilt with these fields changed (its hash too: any change changes the DAG hash)."""
    return {**copy.deepcopy(node), **fields, "hash": new_hash}


def relinked(node: dict[str, Any], dependency: str, new_hash: str, salt: str) -> dict[str, Any]:
    """The node rebuilt against another binary of one dependency (its own hash changes with it)."""
    rebuilt = copy.deepcopy(node)
    for edge in rebuilt["dependencies"]:
        if edge["name"] == dependency:
            edge["hash"] = new_hash
    return changed(rebuilt, other_hash(node["name"], salt))


def other_hash(name: str, salt: str) -> str:
    return hash_of(f"{salt}{name}")


Difference = tuple[str, "str | None", "str | None", "str | None"]


def write_changed_environment(root: Path) -> tuple[Path, Path, dict[str, list[Difference]]]:
    """`root/spack.lock` and `root/mirror`, built from it with seven nodes changed (a version, a variant, a
    target, an OS, only the package hash, a dependency, a package missing); the differences each change makes.

        python -m tests.wanted_files DIR    # writes them, for trying `cachetui coverage` by hand
    """
    n = nodes()
    held = copy.deepcopy(n)
    held["zlib-ng"] = changed(n["zlib-ng"], other_hash("zlib-ng", "v"), version="2.2.4")
    ncurses = copy.deepcopy(n["ncurses"])
    ncurses["parameters"]["symlinks"] = True
    held["ncurses"] = changed(ncurses, other_hash("ncurses", "v"))
    bzip2 = copy.deepcopy(n["bzip2"])
    bzip2["arch"]["target"] = {"name": "skylake"}
    held["bzip2"] = changed(bzip2, other_hash("bzip2", "t"))
    gdbm = copy.deepcopy(n["gdbm"])
    gdbm["arch"]["platform_os"] = "ubuntu22.04"
    held["gdbm"] = changed(gdbm, other_hash("gdbm", "o"))
    new_package_hash = "zzzz" + n["libiconv"]["package_hash"][4:]
    held["libiconv"] = changed(n["libiconv"], other_hash("libiconv", "p"), package_hash=new_package_hash)
    older = held["nghttp2-older"] = changed(n["nghttp2"], other_hash("nghttp2", "o"), version="1.64.0")
    held["curl"] = relinked(n["curl"], "nghttp2", older["hash"], "d")
    del held["ca-certificates-mozilla"]
    expected: dict[str, list[Difference]] = {
        "zlib-ng": [("version", None, "2.2.3", "2.2.4")],
        "ncurses": [("variant_value", "symlinks", "~symlinks", "+symlinks")],
        "bzip2": [("node_target", None, "icelake", "skylake")],
        "gdbm": [("node_os", None, "ubuntu24.04", "ubuntu22.04")],
        "libiconv": [("package_hash", None, n["libiconv"]["package_hash"], new_package_hash)],
        "curl": [("depends_on", "nghttp2", f"nghttp2@1.65.0/{hash_of('nghttp2')[:7]}",
                  f"nghttp2@1.64.0/{older['hash'][:7]}")],
    }
    root.mkdir(parents=True, exist_ok=True)
    lock = root / "spack.lock"
    lock.write_text(json.dumps(lockfile()))
    return lock, write_mirror(root / "mirror", held), expected


def write_deep_environment(root: Path, depth: int = 31) -> tuple[Path, Path]:
    """`root/spack.lock`: one chain of `depth` levels under its root (`layer-00-toolkit` … `layer-31-toolkit`, each
    linking the next; real lockfiles reach 31), and `root/mirror` holding every node but the deepest."""
    names = [f"layer-{level:02d}-toolkit" for level in range(depth + 1)]
    hashes = {name: hash_of(f"layer{chr(97 + level // 26)}{chr(97 + level % 26)}toolkit")
              for level, name in enumerate(names)}
    chain = {name: {"name": name, "version": "1.0", "arch": copy.deepcopy(ARCH), "namespace": "builtin",
                    "parameters": {"build_system": "generic", **FLAGS}, "package_hash": _package_hash(name),
                    "dependencies": [_edge(names[level + 1], BUILD_LINK, [], hashes)] if level < depth else [],
                    "annotations": {"original_specfile_version": 5}, "hash": hashes[name]}
             for level, name in enumerate(names)}
    root.mkdir(parents=True, exist_ok=True)
    lock = root / "spack.lock"
    lock.write_text(json.dumps({"_meta": {"file-type": "spack-lockfile", "lockfile-version": 6, "specfile-version": 5},
                                "spack": {"version": "1.0.0", "type": "release"},
                                "roots": [{"hash": hashes[names[0]], "spec": names[0]}],
                                "concrete_specs": {node["hash"]: node for node in chain.values()}}))
    return lock, write_mirror(root / "mirror", {name: chain[name] for name in names[:-1]})


if __name__ == "__main__":
    written = write_changed_environment(Path(sys.argv[1]))
    print(f"wrote {written[0]} and {written[1]}")
