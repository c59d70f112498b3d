"""One resolver for what users type: a value that names nothing is never a silent empty answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_answers import query
from tests.spec_tree import BINARIES


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
        capsys: pytest.CaptureFixture[str], spec_tree: Path, argv: list[str], says: str, near: str) -> None:
    code, rows, err = query(capsys, str(spec_tree), *argv)
    assert code == 1 and rows == []
    (line,) = err.splitlines()
    assert says in line and near in line.partition(";")[2]


def test_an_option_and_a_spec_query_get_one_message(capsys: pytest.CaptureFixture[str], spec_tree: Path) -> None:
    _, _, by_option = query(capsys, str(spec_tree), "--compiler", "gcc@99")
    _, _, by_spec = query(capsys, str(spec_tree), "--spec", "%gcc@99")
    assert by_option == by_spec


def test_suggestions_for_a_variant_name_come_from_the_package_first(capsys: pytest.CaptureFixture[str],
                                                                   spec_tree: Path) -> None:
    _, _, err = query(capsys, str(spec_tree), "--spec", "kokkos +mpii")
    said = err.partition(";")[2]
    # hdf5 has mpi; kokkos does not: kokkos's own variants are the answer, not another package's
    assert "kokkos has no variant 'mpii'" in err and "cuda" in said and "mpi" not in said
    _, _, err = query(capsys, str(spec_tree), "--spec", "hdf5 +mpii")
    assert "did you mean: mpi" in err


def test_parts_that_exist_but_match_nothing_together_say_which_part_emptied_it(
        capsys: pytest.CaptureFixture[str], spec_tree: Path) -> None:
    # hdf5 +cuda exists (hcuda, built with oneapi) and so does hdf5 %gcc, but not together
    code, rows, err = query(capsys, str(spec_tree), "--spec", "hdf5 +cuda %gcc")
    with_cuda = sum(1 for b in BINARIES.values() if b[0] == "hdf5" and "+cuda" in b[3])
    without = sum(1 for b in BINARIES.values() if b[0] == "hdf5" and b[2].startswith("gcc"))
    assert code == 1 and rows == []
    (line,) = err.splitlines()
    assert f"{with_cuda} is hdf5 +cuda, none of them %gcc" in line and f"without %gcc: {with_cuda}" not in line
    code, rows, err = query(capsys, str(spec_tree), "--spec", "hdf5 platform=darwin +cuda")
    assert "1 is hdf5 +cuda, none of them platform=darwin" in err  # read in the order of the query's parts
    assert without > with_cuda


def test_a_hash_prefix_of_another_package_is_an_empty_answer_that_says_why(capsys: pytest.CaptureFixture[str],
                                                                          spec_tree: Path) -> None:
    code, rows, err = query(capsys, str(spec_tree), "--spec", "hdf5 /pfxaaa")
    assert code == 1 and rows == [] and "none of them /pfxaaa" in err
