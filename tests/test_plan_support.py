"""What the plan tests share: a DB 8 mirror written from a table of records (tests/mirrors.py writes it as Spack
1.x does), spack.yaml files written from text, and the CLI run in JSON.

Every record's hash spells its label, so an expectation names the binary it means (`hash_of("zlib13v3")`), and
every expectation in the tests is read off RECORDS by hand, never from the code under test.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cachetui.cli.main import main
from tests.mirrors import v3_mirror

UBUNTU = "ubuntu22.04"


@dataclass(frozen=True)
class Record:
    label: str  # its hash spells it
    name: str
    version: str
    target: str = "x86_64_v3"
    os: str = UBUNTU
    platform: str = "linux"
    variants: dict[str, Any] = field(default_factory=dict)
    deps: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()  # (label, deptypes, virtuals)
    cached: bool = True
    external: bool = False
    compiler: str | None = "gcc13"  # the label of its compiler (a build edge providing c), or None


def hash_of(label: str) -> str:
    letters = "".join(c if c in "abcdefghijklmnopqrstuvwxyz234567" else "x" for c in label.lower())
    return (letters + "q" * 32)[:32]


LINK = ("build", "link")
RUN = ("run",)
BUILD_ONLY = ("build",)

# The mirror most plan tests read. zlib comes in several versions, targets and OSes; curl needs openssl, which
# the cache does not hold for one of the two curls; hdf5 links one MPI or another; mpich has a +hwloc and a
# ~hwloc build; `app` and tool 2.0 link `gone`, which no record names at all but its edge.
RECORDS = [
    Record("gcc13", "gcc", "13.2.0", cached=False, external=True, compiler=None),
    Record("zlib13v3", "zlib", "1.3", variants={"shared": True, "optimize": True}),
    Record("zlib1213v3", "zlib", "1.2.13", variants={"shared": True, "optimize": True}),
    Record("zlib13xsix", "zlib", "1.3", target="x86_64", variants={"shared": True, "optimize": True}),
    Record("zlib13arm", "zlib", "1.3", target="aarch64", variants={"shared": True, "optimize": True}),
    Record("zlib13rhel", "zlib", "1.3", os="rhel8", variants={"shared": True, "optimize": True}),
    Record("zlib13static", "zlib", "1.3", variants={"shared": False, "optimize": True}),
    Record("openssl31", "openssl", "3.1.3", deps=(("zlib13v3", LINK, ()),)),
    Record("opensslgone", "openssl", "3.0.0", deps=(("zlib13v3", LINK, ()),), cached=False),
    Record("curl84", "curl", "8.4.0", variants={"nghttp2": True},
           deps=(("zlib13v3", LINK, ()), ("openssl31", LINK, ()))),
    Record("curl80", "curl", "8.0.1", variants={"nghttp2": False},
           deps=(("zlib13v3", LINK, ()), ("opensslgone", LINK, ()))),
    Record("mpichhw", "mpich", "4.1.2", variants={"hwloc": True, "cuda": False}),
    Record("mpichnohw", "mpich", "4.1.2", variants={"hwloc": False, "cuda": False}),
    Record("openmpi5", "openmpi", "5.0.3", variants={"cuda": False}),
    Record("hdfmpich", "hdf5", "1.14.3", variants={"mpi": True, "cuda": False},
           deps=(("zlib13v3", LINK, ()), ("mpichhw", LINK, ("mpi",)))),
    Record("hdfompi", "hdf5", "1.14.3", variants={"mpi": True, "cuda": False},
           deps=(("zlib13v3", LINK, ()), ("openmpi5", LINK, ("mpi",)))),
    Record("hdfserial", "hdf5", "1.12.2", variants={"mpi": False, "cuda": False}, deps=(("zlib13v3", LINK, ()),)),
    Record("hdfcuda", "hdf5", "1.14.3", variants={"mpi": False, "cuda": True}, deps=(("zlib13v3", LINK, ()),)),
    Record("cmake327", "cmake", "3.27.7", deps=(("zlib13v3", LINK, ()), ("curl84", LINK, ()))),
    Record("app1", "app", "1.0", deps=(("gone", LINK, ()), ("cmake327", BUILD_ONLY, ()))),
    Record("tool1", "tool", "1.0", deps=(("cmake327", BUILD_ONLY, ()),)),
    Record("tool2", "tool", "2.0", deps=(("cmake327", BUILD_ONLY, ()), ("gone", LINK, ()))),
    Record("wrapper1", "compiler-wrapper", "1.0", compiler=None),
]
BY_LABEL = {record.label: record for record in RECORDS}


def index(records: list[Record] = RECORDS) -> dict[str, Any]:
    installs = {}
    for record in records:
        node: dict[str, Any] = {
            "name": record.name, "version": record.version, "namespace": "builtin", "hash": hash_of(record.label),
            "arch": {"platform": record.platform, "platform_os": record.os, "target": {"name": record.target}},
            "parameters": {**record.variants, "cflags": []},
        }
        edges = [{"name": _name_of(label), "hash": hash_of(label),
                  "parameters": {"deptypes": list(types), "virtuals": list(virtuals)}}
                 for label, types, virtuals in record.deps]
        if record.compiler is not None:
            edges.append({"name": "gcc", "hash": hash_of(record.compiler),
                          "parameters": {"deptypes": ["build"], "virtuals": ["c"]}})
        if edges:
            node["dependencies"] = edges
        if record.external:
            node["external"] = {"path": "/usr", "module": None, "extra_attributes": {}}
        installs[hash_of(record.label)] = {"spec": node, "ref_count": 1, "in_buildcache": record.cached}
    return {"database": {"version": "8", "installs": installs}}


def _name_of(label: str) -> str:
    return BY_LABEL[label].name if label in BY_LABEL else label


def write_mirror(root: Path, records: list[Record] = RECORDS) -> Path:
    v3_mirror(root, json.dumps(index(records)).encode())
    return root


def write_env(directory: Path, text: str, name: str = "spack.yaml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return path


HOST = "linux-ubuntu22.04-x86_64_v3"  # the platform most tests plan for (`--arch`)


def plan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    """`cachetui plan --format json ARGV` (with --no-cache): exit code, rows, stderr."""
    code = main(["plan", "--no-cache", "--format", "json", *argv])
    out, err = capsys.readouterr()
    rows = json.loads(out, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    assert isinstance(rows, list)
    return code, rows, err


def by_spec(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["spec"]: row for row in rows}
