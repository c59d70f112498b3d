"""The headless CLI: `check` and `query`, their exit codes and output formats."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.sample import sample_path
from tests.conftest import SEED_FILES, WriteDoc, listing, read_seed_specs, spec_entry

SAMPLE = str(sample_path())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_json_reports_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", SAMPLE, "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["documents"], data["packages"], data["tags"], data["specs"]) == (5, 4, 2, 362)
    assert data["unique_hashes"] == 362 and data["errors"] == [] and data["warnings"] == []


def test_check_of_the_bundled_sample_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", SAMPLE)  # with no SOURCE, your Spack's mirrors: tests/test_command_line.py
    assert code == 0 and out.startswith("5 documents, 4 packages, 2 tags, 362 specs")


def test_check_exits_1_when_a_file_cannot_be_used(capsys: pytest.CaptureFixture[str], write_doc: WriteDoc) -> None:
    broken = write_doc("_cache/develop/bad/specs.md", "---\ntitle: [unclosed\n---\n")
    code, out, _ = run(capsys, "check", SAMPLE, str(broken), "--json")
    data = json.loads(out)
    assert code == 1
    assert data["specs"] == 362
    (error,) = data["errors"]
    assert error["path"] == str(broken) and error["line"] == 2
    assert error["reason"].startswith("invalid YAML in 'title'")


def test_missing_path_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for argv in (["check", str(tmp_path / "nope")], ["query", str(tmp_path / "nope")], [str(tmp_path / "nope")]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "no such file or directory" in err and "Traceback" not in err


def test_query_returns_exactly_the_aarch64_specs_of_mpi4py(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "query", SAMPLE, "--package", "py-mpi4py", "--target", "aarch64", "--format", "json")
    rows = json.loads(out)
    seed = next(p for p in SEED_FILES if read_seed_specs(p)[0] == "py-mpi4py")
    expected = {s["hash"] for s in read_seed_specs(seed)[1] if s["target"] == "aarch64"}
    assert code == 0
    assert {r["hash"] for r in rows} == expected and len(rows) == len(expected)
    assert set(rows[0]) == {"package", "tag", "hash", "version", "compiler", "platform", "os", "target",
                            "variants", "stacks", "size", "installable", "pushed", "path", "dependencies"}
    assert all(r["dependencies"] is None for r in rows)  # site documents record none: unknown, not "none"
    assert all(r["pushed"] is None for r in rows)  # listing documents never say when a binary was pushed
    assert all(r["installable"] == "unknown" for r in rows)  # so whether they install alone is not known


def test_unknown_is_written_alike_by_query_csv_and_the_browsers_export(capsys: pytest.CaptureFixture[str]) -> None:
    """Site documents give no size: an empty cell in `query --format csv` and in the export (a spreadsheet's
    unknown, as JSON's null), never the table's `-` in one and an empty cell in the other."""
    from cachetui.core.load import LoadOptions, load_corpus
    from cachetui.present.output.export import export_text

    code, out, _ = run(capsys, "query", SAMPLE, "--package", "py-mpi4py", "--format", "csv", "--no-cache")
    queried = list(csv.DictReader(io.StringIO(out)))
    corpus = load_corpus([SAMPLE], LoadOptions(use_cache=False))
    mpi4py = list(range(corpus.package_slice("py-mpi4py").start, corpus.package_slice("py-mpi4py").stop))
    exported = list(csv.DictReader(io.StringIO(export_text(corpus, mpi4py, "csv"))))
    assert code == 0 and queried
    assert {r["size"] for r in queried} == {r["size"] for r in exported} == {""}
    assert json.loads(export_text(corpus, mpi4py[:1], "json"))[0]["dependencies"] is None


def test_query_compiler_uses_the_normalised_value_and_bare_names(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "query", SAMPLE, "--package", "py-pdm-backend", "--compiler", "gcc@=13.2.0",
                    "--format", "json")
    exact = json.loads(out)
    assert exact and {r["compiler"] for r in exact} == {"gcc@13.2.0"}
    _, out, _ = run(capsys, "query", SAMPLE, "--compiler", "gcc", "--compiler", "apple-clang", "--format", "json")
    assert {r["compiler"].split("@")[0] for r in json.loads(out)} == {"gcc", "apple-clang"}


def test_query_csv_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "query", SAMPLE, "--tag", "develop-2025-04-20", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0][:3] == ["package", "tag", "hash"] and len(rows) == 13
    _, out, _ = run(capsys, "query", SAMPLE, "--tag", "develop-2025-04-20")
    assert len(out.splitlines()) == 13 and out.splitlines()[0].startswith("package")


def test_query_variant_filter(capsys: pytest.CaptureFixture[str], write_doc: WriteDoc) -> None:
    path = write_doc("d/specs.md", listing("p", "develop", [spec_entry("a" * 32), spec_entry("b" * 32, variants=[])]))
    _, out, _ = run(capsys, "query", str(path), "--variant", "cuda_arch=90", "--format", "json")
    assert [r["hash"] for r in json.loads(out)] == ["a" * 32]


def test_python_dash_m_entry_point() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "cachetui", "check", SAMPLE], capture_output=True, text=True)
    assert done.returncode == 0 and "362 specs" in done.stdout


# -- a typo is never a silently empty answer ------------------------------------------------------


@pytest.fixture
def hdf5_tree(write_doc: WriteDoc) -> Path:
    specs = [
        spec_entry("a" * 32, versions=["1.14.3"], compiler="gcc@11.4.0", os="ubuntu22.04"),
        spec_entry("b" * 32, versions=["1.14.5"], compiler="gcc@=13.2.0", target="aarch64"),
        spec_entry("c" * 32, versions=["1.12.2"], compiler="gcc@13.3.0", stacks=["hep", "root"]),
        spec_entry("d" * 32, versions=["1.140.0"], compiler="oneapi@2024.2.1", variants=["~mpi"]),
    ]
    return write_doc("_cache/develop/hdf5/specs.md", listing("hdf5", "develop", specs)).parent


@pytest.mark.parametrize(
    ("option", "typed", "suggested"),
    [
        ("--package", "hdf55", "hdf5"),
        ("--tag", "devlop", "develop"),
        ("--compiler", "gccc", "gcc"),
        ("--os", "ubuntu22", "ubuntu22.04"),
        ("--target", "aarch65", "aarch64"),
        ("--stack", "hepp", "hep"),
        ("--variant", "+mpii", "mpi"),
        ("--variant", "cuda_arch=85", "cuda_arch=80"),
    ],
)
def test_unknown_names_say_so_with_the_nearest_known(
    capsys: pytest.CaptureFixture[str], hdf5_tree: Path, option: str, typed: str, suggested: str
) -> None:
    code, out, err = run(capsys, "query", str(hdf5_tree), option, typed, "--no-cache")
    assert code == 1 and out == ""
    assert repr(typed.lstrip("+")) in err or repr(typed) in err
    assert suggested in err.partition(";")[2]


@pytest.mark.parametrize(
    ("compiler", "hashes"),
    [
        ("gcc@13", {"b", "c"}),  # 13 to 13.x, the way Spack reads @13
        ("gcc@=13.2.0", {"b"}),
        ("gcc@13.2.0", {"b"}),
        ("gcc@11:13.2", {"a", "b"}),
        ("gcc", {"a", "b", "c"}),
        ("intel-oneapi-compilers", {"d"}),  # Spack 1.x's name for oneapi
    ],
)
def test_compiler_versions_read_as_spack_ranges(
    capsys: pytest.CaptureFixture[str], hdf5_tree: Path, compiler: str, hashes: set[str]
) -> None:
    code, out, _ = run(capsys, "query", str(hdf5_tree), "--compiler", compiler, "--format", "json", "--no-cache")
    assert code == 0 and {r["hash"][0] for r in json.loads(out)} == hashes


@pytest.mark.parametrize(
    ("version", "hashes"),
    [("1.14", {"a", "b"}), ("1.14.3", {"a"}), ("1.12:1.14.3", {"a", "c"}), (":1.13", {"c"}), ("1.140", {"d"})],
)
def test_versions_read_as_spack_ranges(
    capsys: pytest.CaptureFixture[str], hdf5_tree: Path, version: str, hashes: set[str]
) -> None:
    code, out, _ = run(capsys, "query", str(hdf5_tree), "--version", version, "--format", "json", "--no-cache")
    assert code == 0 and {r["hash"][0] for r in json.loads(out)} == hashes


def test_a_version_or_compiler_range_that_matches_nothing_is_an_error(
    capsys: pytest.CaptureFixture[str], hdf5_tree: Path
) -> None:
    code, _, err = run(capsys, "query", str(hdf5_tree), "--compiler", "gcc@14", "--no-cache")
    assert code == 1 and "gcc" in err and "@14" in err
    code, _, err = run(capsys, "query", str(hdf5_tree), "--version", "2:", "--no-cache")
    assert code == 1 and "@2:" in err


def test_malformed_ranges_are_usage_errors(capsys: pytest.CaptureFixture[str], hdf5_tree: Path) -> None:
    code, _, err = run(capsys, "query", str(hdf5_tree), "--version", "1.2::3", "--no-cache")
    assert code == 2 and "1.2::3" in err


def test_a_legitimately_empty_answer_is_valid_json_exit_1_and_says_what_emptied_it(
        capsys: pytest.CaptureFixture[str], hdf5_tree: Path) -> None:
    code, out, err = run(capsys, "query", str(hdf5_tree), "--compiler", "oneapi", "--target", "aarch64",
                         "--format", "json", "--no-cache")
    assert code == 1 and json.loads(out) == []
    (line,) = err.splitlines()
    assert "none of them target=aarch64" in line and "%intel-oneapi-compilers" in line  # the name shown


# -- the size cap applies to every file -------------------------------------------------------------


def test_the_size_cap_applies_to_small_files_too(capsys: pytest.CaptureFixture[str], write_doc: WriteDoc) -> None:
    small = write_doc("_cache/develop/small/specs.md", listing("small", "develop", [spec_entry("a" * 32)]))
    padding = write_doc("_cache/develop/big/specs.md", listing("big", "develop", [spec_entry("b" * 32)]) + " " * 40_000)
    assert small.stat().st_size < 2_000 < 40_000 < padding.stat().st_size < 256 * 1024
    code, out, _ = run(capsys, "check", str(small.parent.parent), "--max-file-size", "0.03", "--json", "--no-cache")
    data = json.loads(out)
    assert code == 1 and data["packages"] == 1
    (error,) = data["errors"]
    assert error["path"].endswith("big/specs.md") and "over the 0.03 MB cap" in error["reason"]
