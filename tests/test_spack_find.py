"""The `spack find -lv` layout: what Spack prints, rebuilt from Spack's own rules (llnl.util.tty.hline,
VariantMap.__str__, display_specs), for `query --format spack` and the browser's find view."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.spack_find import compiler_text, header, variants_text
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
    ("oneapi@=2024.2.1", "oneapi@2024.2.1"),
])
def test_compilers_as_spack_prints_concrete_ones(written: str, shown: str) -> None:
    assert compiler_text(written) == shown


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
        head = header(f"{platform}-{os}-{target}", compiler_text(compiler))
        expected.setdefault(head, []).append((hash_of(label)[:7], version))
    for head, members in groups.items():
        got = [(m.split()[0], re.match(r"hdf5@([^~+ ]+)", m.split()[1]).group(1)) for m in members]
        assert sorted(got) == sorted(expected[head])
    assert sum(map(len, groups.values())) == len(hdf5)
    # a blank line between groups, none after the last
    assert [i for i, line in enumerate(lines) if not line] == [
        i - 1 for i, line in enumerate(lines) if line.startswith("-- ") and i > 1]
    assert f"{hash_of('hcuda')[:7]} hdf5@1.14.5+cuda+mpi cuda_arch=80,90" in lines
