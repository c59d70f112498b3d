"""No wrong or silent answers: one resolver for what users type, dependencies as Spack sees them,
a strict output contract, and inputs that are said as they are.

Expected sets come from Spack's documented semantics and from walking the index JSON in the
test (tests/dag_mirror.py), never from this code's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.model.dependencies import WITH_BUILD, dependency_tree
from tests import dag_mirror
from tests.spec_tree import BINARIES, hash_of, write_tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("trust-tree"))


@pytest.fixture(scope="module")
def dag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dag_mirror.write_mirror(tmp_path_factory.mktemp("dag") / "develop")


def _strict(text: str) -> object:
    """RFC 8259: NaN and Infinity are not JSON."""
    def refuse(constant: str) -> object:
        raise AssertionError(f"not strict JSON: {constant}")
    return json.loads(text, parse_constant=refuse)


def query(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict], str]:
    code = main(["query", "--no-cache", "--format", "json", *argv])
    out, err = capsys.readouterr()
    rows = _strict(out)
    assert isinstance(rows, list)
    return code, rows, err


# -- dependencies as Spack sees them ------------------------------------------------------------------


@pytest.mark.parametrize(("text", "name", "deptypes"), [
    ("^curl", "curl", None), ("^perl", "perl", None), ("^openssl", "openssl", None), ("^zlib", "zlib", None),
    ("^cyc-b", "cyc-b", None), ("^[deptypes=link] curl", "curl", {"link"}), ("^[deptypes=build] curl", "curl", {"build"}),
])
def test_a_dependency_matches_at_any_depth_through_every_edge_and_every_record(
        capsys: pytest.CaptureFixture[str], dag: Path, text: str, name: str, deptypes: set[str] | None) -> None:
    expected = dag_mirror.expected_dependents(dag_mirror.index(), name, deptypes)
    code, rows, err = query(capsys, str(dag), "--spec", text)
    assert {row["package"] for row in rows} == expected and code == (0 if expected else 1)


def test_the_walk_reaches_past_records_the_cache_does_not_hold(dag: Path) -> None:
    # app reaches curl only through cmake (a build edge) and mid, both held without their binary;
    # cyc-a only through a cycle with cyc-b. A walk over binaries alone finds neither.
    assert {"app", "cyc-a", "git"} == dag_mirror.expected_dependents(dag_mirror.index(), "curl")


def test_the_details_tree_expands_records_that_are_not_in_the_cache(dag: Path) -> None:
    corpus = load_corpus([str(dag)])
    app = next(i for i in range(corpus.n_specs) if corpus.spec(i).package == "app")
    lines = {(line.depth, line.dependency.name): line for line in dependency_tree(corpus, app, WITH_BUILD)}
    assert lines[(1, "mid")].spec is None and lines[(2, "curl")].spec is not None  # mid's own edge, followed
    assert lines[(1, "cmake")].spec is None and lines[(2, "zlib")].spec is not None
    assert lines[(1, "gcc")].external and not lines[(1, "mid")].external
    assert (3, "openssl") in lines and (4, "perl") in lines  # curl -> openssl (unheld) -> perl (unheld)


# -- one resolver: a value that names nothing is never a silent empty answer -----------------------------


@pytest.mark.parametrize(("argv", "says", "near"), [
    (["--spec", "hdf5 %gcc@14"], "hdf5 has no gcc compiler satisfying @14", "gcc@13.3.0"),
    (["--spec", "hdf5 %gcc@=11.4.1"], "hdf5 has no gcc compiler satisfying @=11.4.1", "gcc@12.3.0"),
    (["--spec", "zlib @1.5:1.9"], "zlib has no version satisfying @1.5:1.9", "1.3"),
    (["--spec", "/zzzzzz"], "no binary's hash starts with zzzzzz", ""),
    (["--spec", "%gcc@99"], "no gcc compiler satisfying @99", "gcc@13.3.0"),
    (["--compiler", "gcc@99"], "no gcc compiler satisfying @99", "gcc@13.3.0"),
    (["--spec", "HDF5"], "unknown package 'HDF5'", "hdf5"),
    (["--spec", "hdf5 foo=bar"], "hdf5 has no variant 'foo'", "build_type"),
    (["--spec", "zlib +cuda"], "zlib has no variant 'cuda'", "known: pic"),
    (["--spec", "hdf5 cuda_arch=70"], "hdf5 has no binary with 'cuda_arch=70'", "cuda_arch=80"),
    (["--package", "hdf5", "--compiler", "clang"], "hdf5 has no binary built with %clang", ""),
])
def test_a_value_that_names_nothing_says_so_with_the_nearest_real_values(
        capsys: pytest.CaptureFixture[str], tree: Path, argv: list[str], says: str, near: str) -> None:
    code, rows, err = query(capsys, str(tree), *argv)
    assert code == 1 and rows == []
    (line,) = err.splitlines()
    assert says in line and near in line.partition(";")[2]


def test_an_option_and_a_spec_query_get_one_message(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    _, _, by_option = query(capsys, str(tree), "--compiler", "gcc@99")
    _, _, by_spec = query(capsys, str(tree), "--spec", "%gcc@99")
    assert by_option == by_spec


def test_suggestions_for_a_variant_name_come_from_the_package_first(capsys: pytest.CaptureFixture[str],
                                                                   tree: Path) -> None:
    _, _, err = query(capsys, str(tree), "--spec", "kokkos +mpii")
    said = err.partition(";")[2]
    # hdf5 has mpi; kokkos does not: kokkos's own variants are the answer, not another package's
    assert "kokkos has no variant 'mpii'" in err and "cuda" in said and "mpi" not in said
    _, _, err = query(capsys, str(tree), "--spec", "hdf5 +mpii")
    assert "did you mean: mpi" in err


def test_parts_that_exist_but_match_nothing_together_say_which_part_emptied_it(
        capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    # hdf5 +cuda exists (hcuda, built with oneapi) and so does hdf5 %gcc, but not together
    code, rows, err = query(capsys, str(tree), "--spec", "hdf5 +cuda %gcc")
    with_cuda = sum(1 for b in BINARIES.values() if b[0] == "hdf5" and "+cuda" in b[3])
    without = sum(1 for b in BINARIES.values() if b[0] == "hdf5" and b[2].startswith("gcc"))
    assert code == 1 and rows == []
    (line,) = err.splitlines()
    assert f"{with_cuda} is hdf5 +cuda, none of them %gcc" in line and f"without %gcc: {with_cuda}" not in line
    code, rows, err = query(capsys, str(tree), "--spec", "hdf5 platform=darwin +cuda")
    assert "1 is hdf5 +cuda, none of them platform=darwin" in err  # read in the order of the query's parts
    assert without > with_cuda


def test_a_hash_prefix_of_another_package_is_an_empty_answer_that_says_why(capsys: pytest.CaptureFixture[str],
                                                                          tree: Path) -> None:
    code, rows, err = query(capsys, str(tree), "--spec", "hdf5 /pfxaaa")
    assert code == 1 and rows == [] and "none of them /pfxaaa" in err


# -- the output contract ------------------------------------------------------------------------------


def test_a_legitimately_empty_answer_is_still_one_json_list_and_a_csv_header(capsys: pytest.CaptureFixture[str],
                                                                            tree: Path) -> None:
    code, rows, _ = query(capsys, str(tree), "--spec", "kokkos@4.3.01 %oneapi")
    assert (code, rows) == (1, [])
    code = main(["query", str(tree), "--no-cache", "--format", "csv", "--spec", "kokkos@4.3.01 %oneapi"])
    out, _ = capsys.readouterr()
    assert code == 1 and out.splitlines()[0].startswith("package,tag,hash")


def test_a_match_is_exit_0_and_strict_json(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    code, rows, err = query(capsys, str(tree), "--spec", "kokkos@4.3.01")
    assert code == 0 and err == "" and {row["hash"] for row in rows} == {hash_of(x) for x in ("kexact", "kboth",
                                                                                                "kpatch")}


# -- inputs -------------------------------------------------------------------------------------------


def test_a_missing_path_is_said_and_the_other_sources_still_load(capsys: pytest.CaptureFixture[str], tree: Path,
                                                                tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    code, rows, err = query(capsys, str(missing), str(tree), "--spec", "zlib")
    assert code == 1 and len(rows) == sum(1 for b in BINARIES.values() if b[0] == "zlib")
    assert f"no such file or directory: {missing}" in err
    code = main(["check", "--no-cache", str(tree), str(missing)])
    out, _ = capsys.readouterr()
    assert code == 1 and f"error: no such file or directory: {missing}" in out and "1 error," in out


def test_diff_says_a_missing_source_rather_than_an_unknown_tag(capsys: pytest.CaptureFixture[str], tree: Path,
                                                              tmp_path: Path) -> None:
    code = main(["diff", str(tree), str(tmp_path / "nonexistent"), "--no-cache"])
    _, err = capsys.readouterr()
    assert code == 2 and f"no such file or directory: {tmp_path / 'nonexistent'}" in err and "tag" not in err


def test_the_same_mirror_by_url_and_through_an_index_of_indexes_counts_once(capsys: pytest.CaptureFixture[str],
                                                                          dag: Path, tmp_path: Path) -> None:
    listing = tmp_path / "cache_spack_io_index.json"
    listing.write_text(json.dumps({"develop": [{"label": "root", "url": str(dag) + "/"}]}))
    code = main(["check", "--no-cache", "--json", str(dag), str(listing)])
    data = _strict(capsys.readouterr().out)
    binaries = sum(1 for _, cached, _, _ in dag_mirror.RECORDS.values() if cached)
    assert data["specs"] == binaries and code == 0
    (warning,) = data["warnings"]
    assert "named twice" in warning["reason"]


def test_check_says_counts_in_one_unit_and_in_good_english(capsys: pytest.CaptureFixture[str], dag: Path) -> None:
    main(["check", "--no-cache", str(dag)])
    out = capsys.readouterr().out
    assert out.startswith(f"{len(dag_mirror.RECORDS) - 6} documents, ") and ", 1 tag, " in out
    assert "unique" not in out and out.rstrip().endswith("0 errors, 0 warnings")
