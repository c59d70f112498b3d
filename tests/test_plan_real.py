"""Public environments (tests/fixtures/plan/real, each with its source) read and planned as a user would, and the
examples docs/plan.md shows. Expected roots are written out from each file as Spack expands it; expected binaries
are read off the bundled sample's documents (conftest.read_seed_specs) and the test mirror's index by plain
string handling, never through the code under test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cachetui.core.load import read_environment
from cachetui.core.spack.arch import parse_arch
from cachetui.core.spack.versions import version_key
from tests.conftest import SEED_FILES, read_seed_specs
from tests.test_plan_support import by_spec, plan_json

REAL = Path(__file__).parent / "fixtures" / "plan" / "real"
EXAMPLES = Path(__file__).parent / "fixtures" / "plan"
SAMPLE = str(Path(__file__).parent.parent / "cachetui" / "sample")
X86_V3 = parse_arch("linux-ubuntu22.04-x86_64_v3")


def listed_specs(path: Path) -> list[str]:
    """The `- spec` lines right under `specs:` in a plainly listed environment, comments cut (by hand)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "specs:")
    found = []
    for line in lines[start + 1:]:
        if line.strip().startswith("#") or not line.strip():
            continue
        if not line.lstrip().startswith("- "):
            break
        found.append(re.sub(r"\s+#.*$", "", line.strip()[2:]).strip())
    return found


def test_data_vis_sdk_expands_its_definitions_as_spack_does() -> None:
    roots = [root.spec for root in read_environment(str(REAL / "data-vis-sdk"), 2**20, X86_V3).roots]
    sdk = ("ecp-data-vis-sdk +ascent +adios2 +cinema +darshan +faodel +hdf5 +paraview +pnetcdf +sensei +sz "
           "+unifyfs +veloc +visit +vtkm +zfp ~cuda ~rocm")
    assert roots == [f"{sdk} ^paraview {gl}" for gl in ("+qt~osmesa ^glew gl=glx", "~qt~osmesa ^glew gl=glx",
                                                       "~qt+osmesa ^glew gl=osmesa")]


def test_e4s_reads_every_root_and_says_what_it_does_not_evaluate() -> None:
    environment = read_environment(str(REAL / "e4s-x86_64_v3"), 2**20, X86_V3)
    assert [root.spec for root in environment.roots] == listed_specs(REAL / "e4s-x86_64_v3" / "spack.yaml")
    assert [r.constraints for r in environment.packages["all"].require] == [
        ("target=x86_64_v3",), ("~cuda",), ("~rocm",)]
    assert [r.constraints for r in environment.packages["mpi"].require] == [("mpich",)]
    notes = "\n".join(environment.notes)
    assert "reuse is false" in notes and "'variants'" in notes


def test_e4s_against_the_sample_builds_every_root_it_does_not_hold(capsys: pytest.CaptureFixture[str]) -> None:
    held = {read_seed_specs(path)[0] for path in SEED_FILES}
    code, rows, _ = plan_json(capsys, str(REAL / "e4s-x86_64_v3"), SAMPLE, "--arch", str(X86_V3))
    assert code == 1 and all(row["status"] == "build" for row in rows)
    assert all(row["note"] == f"no binary of {row['package']} in the sources" for row in rows
               if row["package"] not in held)


def test_juliaparallel_says_its_spack_0_requirement_once_and_names_its_oci_mirrors(
        capsys: pytest.CaptureFixture[str]) -> None:
    environment = read_environment(str(REAL / "juliaparallel"), 2**20, X86_V3)
    assert [(m.name, m.url) for m in environment.mirrors] == [
        ("spack-buildcache", "oci://ghcr.io/spack/github-actions-buildcache"),
        ("local-buildcache", "oci://ghcr.io/JuliaParallel/github-actions-buildcache")]
    _, rows, err = plan_json(capsys, str(REAL / "juliaparallel"), SAMPLE, "--arch", str(X86_V3))
    assert [row["spec"] for row in rows] == listed_specs(REAL / "juliaparallel" / "spack.yaml")
    said = [line for line in err.splitlines() if "'%gcc@12 target=x86_64_v2'" in line]
    assert len(said) == 1 and "not evaluated" in said[0] and "Spack 1.x" in said[0]


def test_radiuss_reads_definitions_and_spack_0_externals() -> None:
    environment = read_environment(str(REAL / "radiuss"), 2**20, X86_V3)
    assert [root.spec for root in environment.roots] == [
        "mfem", "hypre", "sundials", "samrai", "xbraid", "umpire", "raja", "caliper", "py-maestrowf", "conduit",
        "ascent", "zfp", "scr", "hdf5@1.8.21"]
    assert environment.packages["cmake"].external_only
    assert environment.packages["openmpi"].externals[0] == "openmpi@2.0.0%gcc@8.1.0 arch=linux-rhel7-broadwell"
    assert not environment.packages["mpich"].external_only  # not buildable, but no external either
    assert any("'providers'" in note for note in environment.notes)


def _sample_binaries(package: str) -> list[dict]:
    return [spec for path in SEED_FILES for title, specs in [read_seed_specs(path)] if title == package
            for spec in specs]


def test_icon_against_the_sample_chooses_as_the_docs_say(capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = plan_json(capsys, str(REAL / "icon-santis"), SAMPLE, "--arch", str(X86_V3))
    rows_by_spec = by_spec(rows)
    runs_here = {"x86_64_v3", "x86_64_v2", "x86_64"}
    serving = [s for s in _sample_binaries("py-mpi4py")
               if s["platform"] == "linux" and s["os"] == "ubuntu22.04" and s["target"] in runs_here]
    newest = max((s["versions"][0] for s in serving), key=version_key)
    mpi4py = rows_by_spec["py-mpi4py"]
    assert mpi4py["status"] == "partly" and mpi4py["closure"] == "unknown"  # site documents: no dependencies
    assert mpi4py["candidates"] == len({s["hash"] for s in serving})
    assert mpi4py["binary"]["hash"] == min(s["hash"] for s in serving if s["versions"][0] == newest)
    icon = next(row for row in rows if row["spec"].startswith("icon"))
    assert icon["status"] == "build" and "compiler flags" in icon["note"]
    assert "develop specs" in err and "unify" in err
    assert code == 1


def test_icon_for_a_platform_the_sample_has_no_os_for(capsys: pytest.CaptureFixture[str]) -> None:
    _, rows, _ = plan_json(capsys, str(REAL / "icon-santis"), SAMPLE, "--arch", "linux-rhel8-zen4")
    mpi4py = by_spec(rows)["py-mpi4py"]
    assert mpi4py["status"] == "build"
    linux = [s for s in _sample_binaries("py-mpi4py") if s["platform"] == "linux" and s["target"] != "aarch64"
             and s["target"] != "neoverse_v2"]
    newest = max((s["versions"][0] for s in linux), key=version_key)
    expected = sorted({s["hash"] for s in linux if s["versions"][0] == newest})[:3]
    assert [w["hash"] for w in mpi4py["why"]] == expected
    assert {w["excluded_by"] for w in mpi4py["why"]} == {"os ubuntu22.04 (not rhel8)"}


def _fixture_index() -> dict:
    path = Path(__file__).parent / "fixtures" / "mirrors" / "db-v8-eaf9828b" / "v2_layout" / "unsigned"
    return json.loads((path / "build_cache" / "index.json").read_text())["database"]["installs"]


def _hash_of(name: str, target: str) -> str:
    """The binary of `name` built for `target` in Spack's test mirror (its index read as JSON)."""
    def target_of(spec: dict) -> str:
        value = spec["arch"]["target"]
        return value if isinstance(value, str) else value["name"]

    return next(h for h, record in _fixture_index().items()
                if record["in_buildcache"] and record["spec"]["name"] == name and target_of(record["spec"]) == target)


def test_the_docs_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = plan_json(capsys, str(EXAMPLES / "example"), "--arch", "test-debian6-m1")
    assert "reading the environment's 1 mirror: spack-test" in err
    assert {row["spec"]: row["status"] for row in rows} == {
        "libdwarf": "cached", "libelf@0.8.13": "cached", "gcc-runtime": "cached", "zlib": "build", "cmake": "external"}
    assert by_spec(rows)["libdwarf"]["binary"]["hash"] == _hash_of("libdwarf", "m1")
    _, rows, _ = plan_json(capsys, str(EXAMPLES / "example"), "--arch", "test-debian6-core2")
    why = {w["hash"]: w["category"] for w in by_spec(rows)["libdwarf"]["why"]}
    assert why == {_hash_of("libdwarf", "core2"): "requirement", _hash_of("libdwarf", "m1"): "platform"}
    _, rows, _ = plan_json(capsys, str(EXAMPLES / "example-partly"), "--arch", "test-debian6-m1")
    libdwarf = by_spec(rows)["libdwarf"]
    assert libdwarf["status"] == "partly" and [f["hash"] for f in libdwarf["failing"]] == [
        _hash_of("gcc-runtime", "m1")]
    assert "gcc-runtime 11 or newer" in libdwarf["failing"][0]["excluded_by"]
