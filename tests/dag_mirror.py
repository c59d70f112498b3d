"""A DB 8 mirror whose dependency DAG passes through records the cache does not hold.

Like the public cache: build-only dependencies (cmake, perl) and some link dependencies
(openssl, mid) are recorded with `in_buildcache: false`, the compiler is an external, one
cycle goes through an unheld record, and one edge names a hash the index has no record of.
`expected_*` walk the index JSON itself, independently of the project's code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.mirrors import v3_mirror

# name: (version, in the cache, external, [(dependency, deptypes)])
RECORDS: dict[str, tuple[str, bool, bool, list[tuple[str, list[str]]]]] = {
    "gcc": ("13.2.0", False, True, []),
    "zlib": ("1.3", True, False, []),
    "perl": ("5.38.0", False, False, []),
    "openssl": ("3.1.3", False, False, [("zlib", ["build", "link"]), ("perl", ["build"])]),
    "curl": ("8.4.0", True, False, [("zlib", ["build", "link"]), ("openssl", ["build", "link"])]),
    "cmake": ("3.27.7", False, False, [("curl", ["build", "link"]), ("zlib", ["build", "link"])]),
    "mid": ("2.0", False, False, [("curl", ["link"])]),
    "git": ("2.42.0", True, False, [("curl", ["link", "run"])]),
    "app": ("1.0", True, False, [("cmake", ["build"]), ("mid", ["build", "link"])]),
    "cyc-a": ("1.0", True, False, [("cyc-b", ["link"])]),
    "cyc-b": ("1.0", False, False, [("cyc-a", ["run"]), ("curl", ["link"])]),
    "lonely": ("1.0", True, False, [("zlib", ["link"])]),
    "nodep": ("1.0", True, False, [("ghost", ["link"])]),  # ghost: no record anywhere
}


def hash_of(name: str) -> str:
    """A base32 DAG hash spelling the name, so failures read well."""
    letters = "".join(c if c in "abcdefghijklmnopqrstuvwxyz234567" else "x" for c in name)
    return (letters + "q" * 32)[:32]


def index(records: dict[str, tuple[str, bool, bool, list[tuple[str, list[str]]]]] = RECORDS) -> dict[str, Any]:
    installs = {}
    for name, (version, cached, external, deps) in records.items():
        node: dict[str, Any] = {
            "name": name, "version": version, "namespace": "builtin", "hash": hash_of(name),
            "arch": {"platform": "linux", "platform_os": "ubuntu22.04", "target": {"name": "x86_64_v3"}},
            "parameters": {"shared": True, "cflags": []},
        }
        edges = [{"name": dep, "hash": hash_of(dep), "parameters": {"deptypes": types, "virtuals": []}}
                 for dep, types in deps]
        if name != "gcc":
            edges.append({"name": "gcc", "hash": hash_of("gcc"), "parameters": {"deptypes": ["build"],
                                                                             "virtuals": ["c"]}})
        if edges:
            node["dependencies"] = edges
        if external:
            node["external"] = {"path": "/usr", "module": None, "extra_attributes": {}}
        installs[hash_of(name)] = {"spec": node, "ref_count": 1, "in_buildcache": cached}
    return {"database": {"version": "8", "installs": installs}}


def write_mirror(root: Path, data: dict[str, Any] | None = None) -> Path:
    v3_mirror(root, json.dumps(data or index()).encode())
    return root


def expected_dependents(data: dict[str, Any], name: str, deptypes: set[str] | None = None) -> set[str]:
    """Binaries with `name` among their dependencies at any depth, following every edge the index records
    (through records held or not); `deptypes` limits the last edge, as `^[deptypes=…]` does."""
    installs = data["database"]["installs"]

    def edges(hash_: str) -> list[dict[str, Any]]:
        record = installs.get(hash_)
        return record["spec"].get("dependencies", []) if record else []

    found = set()
    for hash_, record in installs.items():
        if not record["in_buildcache"]:
            continue
        seen, waiting = {hash_}, [hash_]
        while waiting:
            for edge in edges(waiting.pop()):
                if edge["name"] == name and (deptypes is None or deptypes & set(edge["parameters"]["deptypes"])):
                    found.add(record["spec"]["name"])
                if edge["hash"] not in seen:
                    seen.add(edge["hash"])
                    waiting.append(edge["hash"])
    return found
