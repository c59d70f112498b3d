"""The `spack find -lv` layout: what Spack prints, rebuilt from Spack's own rules (llnl.util.tty.hline,
VariantMap.__str__, display_specs), for `query --format spack` and the browser's find view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.query.spack_find import compiler_label, header, variants_text
from tests.spec_tree import BINARIES, hash_of, write_tree


def test_headers_are_65_characters_as_hline_pads_them() -> None:
    line = header("linux-ubuntu22.04-x86_64_v3", "gcc@11.4.0")
    # as in Spack's tutorial output of `spack find`
    assert line == "-- linux-ubuntu22.04-x86_64_v3 / gcc@11.4.0 ---------------------"
    assert len(line) == 65


def test_a_label_too_long_for_the_line_gets_no_dashes() -> None:
    label_arch = "linux-rocky8-skylake_avx512"
    assert header(label_arch, "intel-oneapi-compilers-classic@2021.10.0") == (
        "-- linux-rocky8-skylake_avx512 / intel-oneapi-compilers-classic@2021.10.0 ")


def test_variants_booleans_first_run_together_then_valued_each_after_a_space() -> None:
    written = ["build_type=Release", "+mpi", "api=default", "~cxx", "+shared", "generator=make", "~fortran",
               "build_system=cmake", "+hl"]
    # hdf5's line in `spack find -lv`: VariantMap.__str__ sorts each kind by name
    assert variants_text(written) == "~cxx~fortran+hl+mpi+shared api=default build_system=cmake build_type=Release " \
                                     "generator=make"


def test_valued_variants_keep_their_written_spelling() -> None:
    assert variants_text(["cuda_arch:=80", "+cuda", "patches:=1d74a11,65f5630"]) == \
        "+cuda cuda_arch:=80 patches:=1d74a11,65f5630"


@pytest.mark.parametrize(("written", "shown"), [
    ("gcc@=13.2.0", "gcc@13.2.0"), ("gcc@13.2.0", "gcc@13.2.0"), ("none", "no compiler"),
    ("oneapi@=2024.2.1", "intel-oneapi-compilers@2024.2.1"),  # as Spack 1.x names it
])
def test_compilers_as_spack_prints_concrete_ones(written: str, shown: str) -> None:
    assert compiler_label(written) == shown


def test_query_format_spack_prints_every_spec_once_under_its_group(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    root = write_tree(tmp_path)
    assert main(["query", str(root), "--package", "hdf5", "--format", "spack", "--no-cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    hdf5 = {label: b for label, b in BINARIES.items() if b[0] == "hdf5"}
    assert lines[0] == f"==> {len(hdf5)} cached builds."
    groups: dict[str, list[str]] = {}
    current = None
    for line in lines[1:]:
        if line.startswith("-- "):
            assert len(line) == 65 or not line.endswith("-")
            current = line
            groups[current] = []
        elif line:
            groups[current].append(line)
    assert list(groups) == sorted(groups)  # Spack sorts the (architecture, compiler) index
    expected = {}
    for label, (_, version, compiler, variants, platform, os, target) in hdf5.items():
        head = header(f"{platform}-{os}-{target}", compiler_label(compiler))
        expected.setdefault(head, []).append((hash_of(label)[:7], version))
    for head, members in groups.items():
        got = [(m.split()[0], re.match(r"hdf5@([^~+ ]+)", m.split()[1]).group(1)) for m in members]
        assert sorted(got) == sorted(expected[head])
    assert sum(map(len, groups.values())) == len(hdf5)
    # a blank line between groups, none after the last
    assert [i for i, line in enumerate(lines) if not line] == [
        i - 1 for i, line in enumerate(lines) if line.startswith("-- ") and i > 1]
    assert f"{hash_of('hcuda')[:7]} hdf5@1.14.5+cuda+mpi cuda_arch=80,90" in lines


def test_patches_are_cut_to_7_characters_and_values_sorted_as_spack_prints_them() -> None:
    full = ["65f5630" + "b" * 57, "1d74a11" + "a" * 57]
    assert variants_text([f"patches={','.join(full)}", "cuda_arch=90,80"]) == " cuda_arch=80,90 patches=1d74a11,65f5630"


def test_a_value_holding_a_space_stays_one_quoted_variant_as_everywhere_else() -> None:
    assert variants_text(['flags="-O2 -g"', "+mpi"]) == '+mpi flags="-O2 -g"'


def test_groups_sort_compilers_by_version_and_specs_by_name_then_version(tmp_path: Path) -> None:
    from cachetui.core.load.pipeline import load_corpus
    from cachetui.core.query.spack_find import find_lines
    from tests.conftest import listing, spec_entry

    specs = {  # package -> (hash, version, compiler)
        "zlib": [("z13", "1.3", "gcc@13.2.0"), ("z9", "1.2.13", "gcc@9.4.0"), ("z9b", "1.3", "gcc@9.4.0")],
        "abseil": [("a9", "2023.1", "gcc@9.4.0"), ("a9old", "2022.10", "gcc@9.4.0")],
    }
    for package, entries in specs.items():
        path = tmp_path / "_cache" / "develop" / package / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(package, "develop", [
            spec_entry((label + "q" * 32)[:32], versions=[version], compiler=compiler, variants=[], target="x86_64")
            for label, version, compiler in entries]))
    corpus = load_corpus([str(tmp_path)])
    lines = [line.text for line in find_lines(corpus, list(range(corpus.n_specs)))]
    assert lines == [
        header("linux-ubuntu24.04-x86_64", "gcc@9.4.0"),  # 9 before 13, as Spack compares versions
        "a9oldqq abseil@2022.10", "a9qqqqq abseil@2023.1", "z9qqqqq zlib@1.2.13", "z9bqqqq zlib@1.3",
        "",
        header("linux-ubuntu24.04-x86_64", "gcc@13.2.0"),
        "z13qqqq zlib@1.3",
    ]
