"""`cachetui plan`'s answer, root by root, against a mirror whose records are written out in tests/test_plan_support.py.

Every expectation is read off RECORDS by hand with the rules the docs state: a binary serves a root when it meets
the root's constraints, the requirements that apply and the platform; the choice is a complete closure, then the
prefer: rules met, the newest version, then the first hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.core.load import load_corpus, read_environment
from cachetui.core.query.plan import BUILD, CACHED, EXTERNAL, PARTLY, plan
from cachetui.core.spack.arch import parse_arch
from tests.test_plan_support import (
    HOST,
    by_spec,
    hash_of,
    plan_json,
    write_env,
    write_mirror,
)


def run(capsys: pytest.CaptureFixture[str], env: Path, mirror: Path, *extra: str) -> tuple[int, dict, str]:
    code, rows, err = plan_json(capsys, str(env), str(mirror), "--arch", HOST, *extra)
    return code, by_spec(rows), err


@pytest.fixture(name="mirror")
def _mirror(tmp_path: Path) -> Path:
    return write_mirror(tmp_path / "mirror")


def first(*labels: str) -> str:
    """The hash the last tie-break picks among binaries alike in everything else."""
    return min(hash_of(label) for label in labels)


def test_each_status(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib, curl@8.4, curl@8.0, app, cmake, nothere, zlib@9.9]
          packages:
            cmake:
              buildable: false
              externals: [{spec: cmake@3.26.0, prefix: /usr}]
        """)
    code, rows, _ = run(capsys, env, mirror)
    assert code == 1
    # zlib: the four that run on x86_64_v3 (x86_64 is an ancestor; aarch64 and rhel8 do not run here)
    assert rows["zlib"]["status"] == CACHED and rows["zlib"]["candidates"] == 4
    assert rows["zlib"]["binary"]["hash"] == first("zlib13v3", "zlib13xsix", "zlib13static")  # 1.3 is newest
    assert rows["zlib"]["binary"]["tag"] == "mirror" and rows["zlib"]["closure"] == "complete"
    assert rows["curl@8.4"]["status"] == CACHED and rows["curl@8.4"]["binary"]["hash"] == hash_of("curl84")
    assert rows["curl@8.0"]["status"] == PARTLY and rows["curl@8.0"]["missing"] == [hash_of("opensslgone")]
    assert rows["app"]["status"] == PARTLY and rows["app"]["missing"] == [hash_of("gone")]  # cmake: build-only
    assert rows["cmake"]["status"] == EXTERNAL and rows["cmake"]["binary"] is None
    assert rows["nothere"]["status"] == BUILD and rows["nothere"]["why"] == []
    assert rows["nothere"]["note"] == "no binary of nothere in the sources"
    why = rows["zlib@9.9"]["why"]
    assert rows["zlib@9.9"]["status"] == BUILD and rows["zlib@9.9"]["candidates"] == 0
    # the nearest fail one check each (the version); the newest three, by hash
    nearest = sorted([hash_of(label) for label in ("zlib13v3", "zlib13xsix", "zlib13static")])
    assert [w["hash"] for w in why] == nearest
    assert all(w["category"] == "constraint" and "@9.9" in w["excluded_by"] for w in why)


def test_the_plan_says_its_summary_and_exit_0_when_everything_is_cached(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib, curl@8.4, cmake]
          packages:
            cmake: {buildable: false, externals: [{spec: cmake@3.27, prefix: /usr}]}
        """)
    code, rows, _ = run(capsys, env, mirror)
    assert code == 0 and {row["status"] for row in rows.values()} == {CACHED, EXTERNAL}
    found = plan(load_corpus([str(mirror)]), read_environment(str(env), 2**20, parse_arch(HOST)), parse_arch(HOST))
    assert found.summary() == "3 roots: 2 cached, 0 partly, 1 external, 0 to build"
    assert found.complete


def test_a_requirement_under_all_excludes_and_says_where_it_is_written(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib, curl, compiler-wrapper]
          packages:
            all:
              require: ['target=x86_64', '~cuda']
        """)
    _, rows, err = run(capsys, env, mirror)
    # target=x86_64 is that target exactly: only zlib13xsix; ~cuda names a variant no zlib records: not applied
    assert rows["zlib"]["status"] == CACHED and rows["zlib"]["candidates"] == 1
    assert rows["zlib"]["binary"]["hash"] == hash_of("zlib13xsix")
    assert rows["curl"]["status"] == BUILD
    reasons = {(w["hash"], w["category"], w["excluded_by"]) for w in rows["curl"]["why"]}
    said = f"require 'target=x86_64' (packages:all in {env})"
    assert reasons == {(hash_of("curl84"), "requirement", said), (hash_of("curl80"), "requirement", said)}
    assert rows["compiler-wrapper"]["status"] == BUILD  # target= names no variant and no compiler: it applies
    assert err == ""


def test_a_compiler_under_all_does_not_apply_to_a_package_that_records_none(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib, compiler-wrapper, 'zlib %gcc@13']
          packages:
            all:
              require: '%gcc@12'
        """)
    _, rows, _ = run(capsys, env, mirror)
    assert rows["zlib"]["status"] == BUILD  # every zlib is built with gcc 13.2.0
    assert {w["excluded_by"] for w in rows["zlib"]["why"]} == {f"require '%gcc@12' (packages:all in {env})"}
    assert rows["compiler-wrapper"]["status"] == CACHED  # records no compiler: Spack rejects %gcc for it
    categories = {w["category"] for w in rows["zlib %gcc@13"]["why"]}
    assert categories == {"requirement"}  # the root's own %gcc@13 holds; the requirement does not


def test_a_packages_own_require_replaces_alls(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib, curl@8.4]
          packages:
            all:
              require: 'target=x86_64'
            zlib:
              require: '@1.3'
        """)
    _, rows, _ = run(capsys, env, mirror)
    assert rows["zlib"]["candidates"] == 3  # 1.3 and runs here: v3, x86_64, static (its own replaces target=)
    assert rows["zlib"]["binary"]["hash"] == first("zlib13v3", "zlib13xsix", "zlib13static")
    assert rows["curl@8.4"]["status"] == BUILD  # curl has no require of its own: all:'s target=x86_64 holds


def test_a_dependency_failing_its_own_requirement_makes_a_root_partly(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [curl@8.4, zlib]
          packages:
            zlib:
              require: '@1.2.13'
        """)
    _, rows, _ = run(capsys, env, mirror)
    curl = rows["curl@8.4"]
    assert curl["status"] == PARTLY and curl["closure"] == "incomplete" and curl["missing"] == []
    assert [(f["hash"], f["excluded_by"]) for f in curl["failing"]] == [
        (hash_of("zlib13v3"), f"require '@1.2.13' (packages:zlib in {env})")]
    assert rows["zlib"]["binary"]["hash"] == hash_of("zlib1213v3")


def test_one_of_any_of_and_spec_with_when_and_message(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      mirror: Path) -> None:
    one = write_env(tmp_path / "one", """\
        spack:
          specs: [zlib]
          packages:
            zlib:
              require: [{one_of: ['@1.3', '~shared']}]
        """)
    _, rows, _ = run(capsys, one, mirror)
    assert rows["zlib"]["candidates"] == 2  # zlib13static is both 1.3 and ~shared: not exactly one
    assert rows["zlib"]["binary"]["hash"] == first("zlib13v3", "zlib13xsix")
    any_ = write_env(tmp_path / "any", """\
        spack:
          specs: [zlib]
          packages:
            zlib:
              require: [{any_of: ['@1.3', '~shared']}]
        """)
    _, rows, _ = run(capsys, any_, mirror)
    assert rows["zlib"]["candidates"] == 3
    when = write_env(tmp_path / "when", """\
        spack:
          specs: [curl, curl@8.4]
          packages:
            curl:
              require:
              - spec: '~nghttp2'
                when: '@8.4'
                message: 'no http2 here'
        """)
    _, rows, _ = run(capsys, when, mirror)
    assert rows["curl"]["binary"]["hash"] == hash_of("curl80")  # curl 8.4 has +nghttp2, its condition holds
    assert rows["curl@8.4"]["status"] == BUILD
    assert {w["hash"]: w["excluded_by"] for w in rows["curl@8.4"]["why"]} == {
        hash_of("curl84"): f"require '~nghttp2 when @8.4' (packages:curl in {when}): no http2 here",
        hash_of("curl80"): "the root's @8.4"}  # each nearest fails one check


def test_a_list_of_strings_must_all_hold(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib]
          packages:
            zlib:
              require: ['@1.3', '~shared']
        """)
    _, rows, _ = run(capsys, env, mirror)
    assert rows["zlib"]["candidates"] == 1 and rows["zlib"]["binary"]["hash"] == hash_of("zlib13static")


def test_conflict_and_prefer(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [openmpi, zlib, hdf5]
          packages:
            openmpi:
              conflict: ['@5:']
            zlib:
              prefer: ['@1.2.13']
            hdf5:
              conflict: [{spec: '+cuda', message: 'no GPUs here'}]
        """)
    _, rows, _ = run(capsys, env, mirror)
    assert rows["openmpi"]["status"] == BUILD
    assert [w["excluded_by"] for w in rows["openmpi"]["why"]] == [f"conflict '@5:' (packages:openmpi in {env})"]
    assert rows["zlib"]["binary"]["hash"] == hash_of("zlib1213v3")  # prefer: before the newest version
    # hdf5: hdfcuda conflicts; of the rest, complete closures all, the newest 1.14.3 ones by hash
    assert rows["hdf5"]["candidates"] == 3
    assert rows["hdf5"]["binary"]["hash"] == first("hdfmpich", "hdfompi")


def test_a_virtuals_requirement_holds_of_the_provider_a_dependency_edge_names(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: ['hdf5 +mpi', 'hdf5 ^mpich', mpich]
          packages:
            all:
              require: ['~cuda']
            mpi:
              require: openmpi
        """)
    _, rows, _ = run(capsys, env, mirror)
    # hdfmpich's MPI is mpich, which mpi: require: openmpi excludes: the complete closure, hdfompi, comes first
    assert rows["hdf5 +mpi"]["status"] == CACHED and rows["hdf5 +mpi"]["binary"]["hash"] == hash_of("hdfompi")
    mpich = rows["hdf5 ^mpich"]
    assert mpich["status"] == PARTLY and mpich["binary"]["hash"] == hash_of("hdfmpich")
    assert [(f["hash"], f["excluded_by"]) for f in mpich["failing"]] == [
        (hash_of("mpichhw"), f"require 'openmpi' (packages:mpi in {env})")]
    assert rows["mpich"]["status"] == CACHED  # a root is no dependency edge: the virtual's rule is not asked


def test_the_choice_puts_a_complete_closure_before_a_newer_version(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: [curl]\n")
    _, rows, _ = run(capsys, env, mirror)
    assert rows["curl"]["binary"]["hash"] == hash_of("curl84")  # 8.4 is also the newer: now make it incomplete
    broken = write_env(tmp_path / "broken", """\
        spack:
          specs: [curl]
          packages:
            openssl:
              require: '@3.0'
        """)
    _, rows, _ = run(capsys, broken, mirror)
    # curl84 links openssl 3.1.3 (fails @3.0); curl80 links the unheld openssl 3.0.0: both incomplete, newest wins
    assert rows["curl"]["status"] == PARTLY and rows["curl"]["binary"]["hash"] == hash_of("curl84")
    # tool 2.0 links a record no source holds, tool 1.0 is complete: complete comes before newer, and before prefer
    newer_broken = write_env(tmp_path / "newer", """\
        spack:
          specs: [tool]
          packages:
            tool:
              prefer: ['@2.0']
        """)
    _, rows, _ = run(capsys, newer_broken, mirror)
    assert rows["tool"]["status"] == CACHED and rows["tool"]["binary"]["hash"] == hash_of("tool1")
    assert rows["tool"]["candidates"] == 2


@pytest.mark.parametrize("arch, expected", [
    ("linux-ubuntu22.04-aarch64", ["zlib13arm"]),
    ("linux-rhel8-x86_64_v3", ["zlib13rhel"]),
    ("linux-ubuntu22.04-x86_64", ["zlib13xsix"]),
    ("linux-ubuntu22.04-zen4", ["zlib13v3", "zlib13xsix", "zlib13static"]),
])
def test_arch_is_the_platform_planned_for(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path,
                                          arch: str, expected: list[str]) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: ['zlib@1.3']\n")
    _, rows, _ = plan_json(capsys, str(env), str(mirror), "--arch", arch)
    assert rows[0]["binary"]["hash"] == first(*expected)


def test_the_platform_that_excludes_is_said(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: ['curl']\n")
    _, rows, _ = plan_json(capsys, str(env), str(mirror), "--arch", "darwin-sonoma-m1")
    assert rows[0]["status"] == BUILD
    said = {w["excluded_by"] for w in rows[0]["why"]}
    assert said == {"platform linux (not darwin); os ubuntu22.04 (not sonoma); target x86_64_v3 does not run on m1"}


def test_matrix_and_definitions_are_planned_as_their_rows(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                          mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          definitions:
          - mpis: [mpich, openmpi]
          - compilers: ['gcc@13']
          specs:
          - matrix:
            - [hdf5 +mpi]
            - [$%compilers]
            - [$^mpis]
        """)
    _, rows, _ = run(capsys, env, mirror)
    assert set(rows) == {"hdf5 +mpi %gcc@13 ^mpich", "hdf5 +mpi %gcc@13 ^openmpi"}
    assert rows["hdf5 +mpi %gcc@13 ^mpich"]["binary"]["hash"] == hash_of("hdfmpich")
    assert rows["hdf5 +mpi %gcc@13 ^openmpi"]["binary"]["hash"] == hash_of("hdfompi")


def test_a_root_spack_1_reads_otherwise_is_said_not_guessed(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                            mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: ['zlib %gcc@13 +shared', 'zlib cflags=-O3', zlib]
          packages:
            all:
              require: '%gcc@13 target=x86_64_v3'
        """)
    code, rows, err = run(capsys, env, mirror)
    assert rows["zlib %gcc@13 +shared"]["status"] == BUILD and rows["zlib %gcc@13 +shared"]["note"].startswith(
        "not read: read as Spack 1.x reads it")
    assert rows["zlib cflags=-O3"]["status"] == BUILD
    assert rows["zlib"]["status"] == CACHED  # the requirement that cannot be read is not applied: and said once
    lines = err.splitlines()
    assert len([line for line in lines if "'%gcc@13 target=x86_64_v3'" in line and "not evaluated" in line]) == 1
    assert code == 1


def test_candidates_are_every_tags_binaries_for_a_browser(tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: [zlib]\n")
    arch = parse_arch(HOST)
    corpus = load_corpus([f"a={mirror}", f"b={write_mirror(tmp_path / 'copy')}"])
    found = plan(corpus, read_environment(str(env), 2**20, arch), arch)
    root = found.roots[0]
    assert root.candidates == 4  # one binary in two tags is one candidate
    assert len(root.candidate_indices) == 8
    assert {corpus.hashes[i] for i in root.candidate_indices} == {
        hash_of(label) for label in ("zlib13v3", "zlib1213v3", "zlib13xsix", "zlib13static")}
    assert root.binary is not None and root.binary.tag == "a"  # the first tag that holds it


def test_a_package_never_built_is_external_only_when_one_of_its_externals_can_be_the_root(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [cmake, 'cmake@3.26 ~ownlibs', 'cmake@3.30', cmake +ownlibs]
          packages:
            cmake:
              buildable: false
              externals: [{spec: cmake@3.26.0 ~ownlibs, prefix: /usr}]
        """)
    code, rows, _ = run(capsys, env, mirror)
    assert rows["cmake"]["status"] == EXTERNAL and rows["cmake@3.26 ~ownlibs"]["status"] == EXTERNAL
    for spec in ("cmake@3.30", "cmake +ownlibs"):  # no external is it, and Spack may not build it: no concretization
        assert rows[spec]["status"] == BUILD and "none of its externals (cmake@3.26.0 ~ownlibs)" in rows[spec]["note"]
    assert code == 1


def test_a_rule_under_a_compilers_language_is_said_not_evaluated(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                 mirror: Path) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: [zlib]\n  packages: {c: {require: llvm}}\n")
    code, rows, err = run(capsys, env, mirror)
    assert rows["zlib"]["status"] == CACHED and code == 0
    assert "packages:c: its rules are not evaluated: a compiler is a build dependency" in err


def test_a_bare_hash_root_is_planned_as_the_binary_it_names(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                            mirror: Path) -> None:
    # Spack reads `/abc1234` as the spec of that binary: here curl 8.4, whose closure the sources hold whole.
    env = write_env(tmp_path / "env", f"spack:\n  specs: [/{hash_of('curl84')[:7]}, /zzzzzzz]\n")
    code, rows, _ = run(capsys, env, mirror)
    found = rows[f"/{hash_of('curl84')[:7]}"]
    assert found["package"] == "curl" and found["status"] == CACHED and found["binary"]["hash"] == hash_of("curl84")
    assert rows["/zzzzzzz"]["status"] == BUILD and "no binary of the sources has a hash starting" in \
        rows["/zzzzzzz"]["note"]
    assert code == 1
