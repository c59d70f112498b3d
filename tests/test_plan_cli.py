"""`cachetui plan` as a user runs it: its formats, exit codes, where it reads its mirrors from, `--export` read back,
and ENV written to hurt it. The chosen binaries are read off the JSON answer, and the export is read back with
the reader that reads any ENV."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
import yaml

from cachetui.cli.main import main
from cachetui.core.load import load_corpus, read_environment
from cachetui.core.query.plan import plan
from cachetui.core.spack.arch import parse_arch
from cachetui.present.output.plan_output import CSV_HEADER, write_plan
from tests.mirrors import serve
from tests.registry import serve_registry
from tests.spack_env import isolated_spack
from tests.test_plan_support import (
    HOST,
    by_spec,
    hash_of,
    index,
    plan_json,
    write_env,
    write_mirror,
)

STATUSES_ENV = """\
    spack:
      definitions:
      - tools: [zlib, curl]
      specs: [$tools, app, nothere]
      packages:
        zlib:
          variants: +shared
    """


@pytest.fixture(name="mirror")
def _mirror(tmp_path: Path) -> Path:
    return write_mirror(tmp_path / "mirror")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["plan", "--no-cache", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_csv_and_table_say_the_same_roots(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              mirror: Path) -> None:
    env = write_env(tmp_path / "env", STATUSES_ENV)
    code, rows, err = plan_json(capsys, str(env), str(mirror), "--arch", HOST)
    assert code == 1
    assert [row["spec"] for row in rows] == ["zlib", "curl", "app", "nothere"]
    assert set(rows[0]) >= {"spec", "package", "status", "binary", "candidates", "missing", "why"}
    assert set(rows[0]["binary"]) == {"hash", "spec", "tag"}
    assert err.count("'variants'") == 1  # what is not evaluated is said once
    _, out, _ = cli(capsys, str(env), str(mirror), "--arch", HOST, "--format", "csv")
    table = list(csv.reader(io.StringIO(out)))
    assert tuple(table[0]) == CSV_HEADER and len(table) == 1 + len(rows)
    assert [(r[0], r[2], r[3]) for r in table[1:]] == [
        (row["spec"], row["status"], row["binary"]["hash"] if row["binary"] else "") for row in rows]
    _, out, _ = cli(capsys, str(env), str(mirror), "--arch", HOST)
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["status", "spec", "binary", "candidates"]
    assert [line.split()[0] for line in lines[1:1 + len(rows)]] == [row["status"] for row in rows]
    counts = {status: sum(row["status"] == status for row in rows) for status in ("cached", "partly", "external",
                                                                                   "build")}
    assert lines[-1] == (f"4 roots: {counts['cached']} cached, {counts['partly']} partly, {counts['external']} "
                         f"external, {counts['build']} to build")
    assert "a binary Spack can reuse for this root" in out and "not a concretization" in out
    assert lines[-2] == f"platform: {HOST}"
    whole = hash_of("curl84")
    assert whole in out  # piped: no hash is shortened


def test_the_table_fits_a_terminal(tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", STATUSES_ENV)
    arch = parse_arch(HOST)
    found = plan(load_corpus([str(mirror)]), read_environment(str(env), 2**20, arch), arch)
    out = io.StringIO()
    write_plan(out, found, "table", width=72)
    rows = out.getvalue().splitlines()[: 1 + len(found.roots)]
    assert all(len(line) <= 72 for line in rows)
    assert rows[2].split()[0] == "cached" and f"/{hash_of('curl84')[:7]} " in rows[2]  # short hashes


def test_malformed_yaml_exits_2_in_one_line_and_json_stays_json(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                mirror: Path) -> None:
    env = tmp_path / "spack.yaml"
    env.write_text("spack:\n  specs: [zlib\n  packages: {\n")
    for fmt, expected in (("json", "[]\n"), ("csv", ",".join(CSV_HEADER) + "\n"), ("table", "")):
        code, out, err = cli(capsys, str(env), str(mirror), "--format", fmt)
        assert code == 2 and out == expected
        assert len(err.strip().splitlines()) == 1 and "not valid YAML at line" in err
    code, out, err = cli(capsys, str(tmp_path / "nowhere"), str(mirror), "--format", "json")
    assert code == 2 and out == "[]\n" and "no such file or directory" in err


@pytest.mark.parametrize("argv, said", [
    (["--arch", "linux-ubuntu22.04"], "is not an architecture"),
    (["--arch", "linux-ubuntu22.04-pentium9"], "not a microarchitecture"),
    (["--force"], "--force goes with --export"),
])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path, argv: list[str],
                             said: str) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: [zlib]\n")
    code, out, err = cli(capsys, str(env), str(mirror), "--format", "json", *argv)
    assert code == 2 and out == "[]\n" and said in err


def test_the_environments_mirrors_are_read_when_no_source_is_named(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", f"""\
        spack:
          specs: [zlib]
          mirrors:
            site: {os.path.relpath(mirror, tmp_path / 'env')}
        """)
    code, rows, err = plan_json(capsys, str(env), "--arch", HOST)
    assert "no SOURCE named: reading the environment's 1 mirror: site" in err
    assert code == 0 and rows[0]["binary"]["tag"] == "site"


def test_no_source_no_mirrors_and_no_spack_mirrors_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    isolated_spack(tmp_path, monkeypatch)
    env = write_env(tmp_path / "env", "spack:\n  specs: [zlib]\n")
    code, out, err = cli(capsys, str(env), "--format", "json")
    assert code == 2 and out == "[]\n" and "no SOURCE named, and your Spack configuration has no binary mirror" in err


def test_export_pins_the_chosen_binaries_and_reads_back(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          definitions:
          - tools: [zlib, curl@8.0]
          specs:
          - $tools
          - matrix: [[hdf5], ['+mpi'], ['^openmpi', '^mpich']]
          - nothere
          view: false
          concretizer:
            unify: false
        """)
    out_file = tmp_path / "out" / "spack.yaml"
    out_file.parent.mkdir()
    code, rows, err = plan_json(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(out_file))
    assert f"wrote {out_file}: 4 of 5 roots pinned" in err
    back = read_environment(str(out_file), 2**20, parse_arch(HOST))
    expected = [f"{row['package']}@{row['binary']['spec'].split()[0].split('@')[1]}/{row['binary']['hash']}"
                if row["binary"] else row["spec"] for row in rows]
    assert [root.spec for root in back.roots] == expected
    assert expected[-1] == "nothere" and expected[0] == f"zlib@1.3/{rows[0]['binary']['hash']}"
    assert [(m.name, m.url) for m in back.mirrors] == [("mirror", str(mirror))]
    document = back.document
    assert document["concretizer"] == {"unify": False, "reuse": True} and document["view"] is False
    assert "definitions" not in document
    # the pinned roots select what was chosen: read back as a plan, each is its one candidate
    code, again, _ = plan_json(capsys, str(out_file), str(mirror), "--arch", HOST)
    assert [row["binary"]["hash"] if row["binary"] else None for row in again] == [
        row["binary"]["hash"] if row["binary"] else None for row in rows]
    assert all(row["candidates"] == 1 for row in again if row["binary"])


def test_export_refuses_to_overwrite_without_force_and_never_writes_env(capsys: pytest.CaptureFixture[str],
                                                                        tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", "spack:\n  specs: [zlib]\n")
    target = tmp_path / "exported.yaml"
    target.write_text("mine\n")
    code, out, err = cli(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(target), "--format", "json")
    assert code == 2 and out == "[]\n" and "exists: --force replaces it" in err
    assert target.read_text() == "mine\n"
    code, _, _ = cli(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(target), "--force")
    assert code == 0 and target.read_text().startswith("# Written by `cachetui plan`")
    before = env.read_text()
    code, _, err = cli(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(env), "--force")
    assert code == 2 and "a file of the environment, or one it includes" in err and env.read_text() == before
    code, _, err = cli(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(mirror / "x.yaml"))
    assert code == 2 and "inside an input" in err and not (mirror / "x.yaml").exists()


def test_export_never_writes_credentials(capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib]
          mirrors:
            ours: {url: oci://ghcr.io/x/y, access_pair: [me, hunter2]}
        """)
    target = tmp_path / "pinned.yaml"
    servers = serve(mirror)
    server = next(servers)
    try:
        url = server.url.replace("http://", "http://someone:s3cret@")
        code, rows, err = plan_json(capsys, str(env), f"site={url}", "--arch", HOST, "--export", str(target))
    finally:
        servers.close()
    text = target.read_text()
    assert code == 0 and rows[0]["binary"] is not None
    assert "s3cret" not in text and "hunter2" not in text and "s3cret" not in err
    assert json.dumps(rows).count("s3cret") == 0
    assert f"site: {server.url}" in text


def test_text_from_an_environment_never_reaches_the_terminal_raw(capsys: pytest.CaptureFixture[str],
                                                                  tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", 'spack:\n  specs: ["zlib\\e[31m@1.3", "curl\\u202e"]\n  packages:\n'
                                      '    zlib:\n      "\\e]52;c;AAAA\\a": 1\n')
    for fmt in ("table", "csv", "json"):
        _, out, err = cli(capsys, str(env), str(mirror), "--arch", HOST, "--format", fmt)
        assert "\x1b" not in out + err and "\u202e" not in out + err and "\x07" not in out + err
    _, rows, _ = plan_json(capsys, str(env), str(mirror), "--arch", HOST)
    assert rows[0]["spec"] == "zlib\x1b[31m@1.3"  # JSON is lossless


def test_hostile_environments_exit_2_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                 mirror: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nspack:\n  specs: *b\n")
    big = write_env(tmp_path / "big", "spack:\n  specs: [" + "zlib, " * 40_000 + "zlib]\n")
    directory = tmp_path / "dir"
    (directory / "spack.yaml").mkdir(parents=True)
    for env, said in ((bomb, "a YAML alias at line 2"), (big, "larger than 0 MB (--max-file-size)"),
                      (directory, "not a regular file: a directory")):
        code, out, err = cli(capsys, str(env), str(mirror), "--format", "json", "--max-file-size", "0.1")
        assert code == 2 and out == "[]\n" and said in err and len(err.strip().splitlines()) == 1


def test_a_requirement_that_cannot_be_read_is_said_even_when_no_root_needs_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [nothere]
          packages:
            all:
              require: '%gcc@12 target=x86_64_v2'
            hdf5:
              require:
              - spec: '+mpi'
                when: '^openmpi'
        """)
    _, _, err = plan_json(capsys, str(env), str(mirror), "--arch", HOST)
    lines = err.splitlines()
    assert len([line for line in lines if "'%gcc@12 target=x86_64_v2'" in line and "not evaluated" in line]) == 1
    assert len([line for line in lines if "packages:hdf5:require" in line and "names a dependency" in line]) == 1


def test_an_environment_naming_an_oci_mirror_is_planned_from_its_registry(capsys: pytest.CaptureFixture[str],
                                                                           tmp_path: Path) -> None:
    # As JuliaParallel's environment names ghcr.io: here a loopback registry holding the test mirror's index.
    with serve_registry(auth="bearer") as registry:
        registry.push_index("ci/buildcache", json.dumps(index()).encode())
        env = write_env(tmp_path / "env", f"""\
            spack:
              specs: [hdf5 +mpi, curl, app]
              packages:
                all:
                  require: ['target=x86_64_v3', '~cuda']
                mpi:
                  require: openmpi
              mirrors:
                ci: oci+http://{registry.host}/ci/buildcache
            """)
        code, rows, err = plan_json(capsys, str(env), "--arch", HOST)
    assert "reading the environment's 1 mirror: ci" in err
    found = by_spec(rows)
    assert found["hdf5 +mpi"]["status"] == "cached" and found["hdf5 +mpi"]["binary"]["hash"] == hash_of("hdfompi")
    assert found["hdf5 +mpi"]["binary"]["tag"] == "ci"  # as the environment names the mirror
    assert found["curl"]["binary"]["hash"] == hash_of("curl84")  # the newest version; its closure complete
    assert found["app"]["status"] == "partly" and found["app"]["missing"] == [hash_of("gone")]
    assert code == 1


def test_export_keeps_an_includes_condition_and_never_writes_over_an_include_whatever_its_condition(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, mirror: Path) -> None:
    env = write_env(tmp_path / "env", """\
        spack:
          specs: [zlib]
          include:
          - {path: darwin.yaml, when: 'platform == "darwin"'}
          - {path: maybe.yaml, optional: true}
        """)
    (tmp_path / "env" / "darwin.yaml").write_text("packages: {all: {require: 'target=aarch64'}}\n")
    target = tmp_path / "pinned.yaml"
    code, _, _ = cli(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(target))
    included = yaml.safe_load(target.read_text())["spack"]["include"]
    assert code == 0 and included == [{"path": str(tmp_path / "env" / "darwin.yaml"), "when": 'platform == "darwin"'},
                                      {"path": str(tmp_path / "env" / "maybe.yaml"), "optional": True}]
    before = (tmp_path / "env" / "darwin.yaml").read_text()  # not read here (its when: is false), still an input
    code, _, err = cli(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(tmp_path / "env" / "darwin.yaml"),
                       "--force")
    assert code == 2 and "or one it includes" in err and (tmp_path / "env" / "darwin.yaml").read_text() == before


def test_export_writes_an_unpinned_matrix_row_as_spack_1_reads_its_parts(capsys: pytest.CaptureFixture[str],
                                                                         tmp_path: Path, mirror: Path) -> None:
    # In one string what follows %gcc is gcc's: the row's own target goes before it, as the parts meant it.
    env = write_env(tmp_path / "env", """\
        spack:
          specs:
          - matrix: [[nothere], ['%gcc@13'], ['target=zen4'], ['^zlib']]
        """)
    target = tmp_path / "pinned.yaml"
    code, rows, _ = plan_json(capsys, str(env), str(mirror), "--arch", HOST, "--export", str(target))
    assert rows[0]["spec"] == "nothere %gcc@13 target=zen4 ^zlib"  # the json says the root as written
    assert yaml.safe_load(target.read_text())["spack"]["specs"] == ["nothere target=zen4 %gcc@13 ^zlib"]
