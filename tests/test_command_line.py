"""The command line says what it does: what a command reads when no source is named, a mistyped command, an unknown
option holding control characters, and an answer whose reader went away."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cachetui.cli.main import command_after_options, main, mistyped_command
from cachetui.core.load.sample import sample_path
from tests.spack_env import SpackEnv, isolated_spack
from tests.wanted_files import lockfile, nodes, write_mirror

SAMPLE = str(sample_path())
SAID = "cachetui: no SOURCE named: reading what --spack-mirrors reads, your Spack configuration's 1 binary mirror: site"
SOURCE_MIRROR = "  sources: {url: 'https://example.org/src', binary: false}\n"  # `spack mirror add` of sources only


@pytest.fixture
def spack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpackEnv:
    return isolated_spack(tmp_path, monkeypatch)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- no SOURCE ------------------------------------------------------------------------------------------------


def test_with_no_source_each_command_reads_your_spack_mirrors_and_says_so(
        spack: SpackEnv, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mirror = write_mirror(tmp_path / "m", nodes())
    spack.mirrors(spack.user, f"mirrors:\n  site: file://{mirror}\n{SOURCE_MIRROR}")
    lock = tmp_path / "spack.lock"
    lock.write_text(json.dumps(lockfile()))
    held = {node["hash"] for node in nodes().values() if "external" not in node}

    code, out, err = run(capsys, "check", "--json", "--no-cache")
    assert code == 0 and err.splitlines() == [SAID]
    assert (json.loads(out)["tags"], json.loads(out)["specs"]) == (1, len(held))
    code, out, err = run(capsys, "query", "--format", "json", "--no-cache")
    assert code == 0 and err.splitlines() == [SAID]
    assert {row["hash"] for row in json.loads(out)} == held and {row["tag"] for row in json.loads(out)} == {"site"}
    code, out, err = run(capsys, "diff", "site", "site", "--no-cache")  # tags of what --spack-mirrors reads
    assert code == 0 and err.splitlines() == [SAID] and out.startswith("site -> site")
    code, out, err = run(capsys, "coverage", str(lock), "--format", "json", "--no-cache")
    assert code == 0 and err.splitlines() == [SAID]
    assert {row["status"] for row in json.loads(out)} <= {"hit", "external"}  # the mirror holds the environment
    code, out, err = run(capsys, "verify", "--format", "json", "--no-cache")
    assert err.splitlines()[0] == SAID and err.count(SAID) == 1
    assert {row["hash"] for row in json.loads(out)} == held
    for named in (["--spack-mirror", "site"], [SAMPLE]):  # a source named in any way is read, and nothing is said
        code, out, err = run(capsys, "check", "--json", "--no-cache", *named)
        assert (code, err) == (0, "") and json.loads(out)["specs"] in (len(held), 362)


def test_with_no_source_and_no_binary_mirror_a_command_asks_for_one(
        spack: SpackEnv, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spack.mirrors(spack.user, f"mirrors:\n{SOURCE_MIRROR}")
    lock = tmp_path / "spack.lock"
    lock.write_text(json.dumps(lockfile()))
    for argv, no_answer in ((["check", "--json"], ""), (["query", "--format", "json"], "[]\n"),
                            (["diff", "develop-2025-04-20", "develop"], ""),
                            (["coverage", str(lock), "--format", "json"], "[]\n"),
                            (["verify", "--format", "json"], "[]\n")):
        code, out, err = run(capsys, *argv, "--no-cache")
        assert (code, out) == (2, no_answer), argv
        (line,) = err.splitlines()  # one line, never an answer about the bundled sample
        assert line.startswith("cachetui: no SOURCE named, and your Spack configuration has no binary mirror")
        assert "name a source" in line and line.endswith(SAMPLE)


# -- text typed on the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["query", SAMPLE, "--x\x1b]2;pwned\x07\u202e\x9b"], ["--x\x1b]2;pwned\x07\u202e\x9b"],
                                  ["verify", SAMPLE, "--format", "\x1b[31mjson\u2066"]])
def test_an_unknown_option_is_echoed_inert(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as usage:
        main(argv)
    err = capsys.readouterr().err
    assert usage.value.code == 2 and "error:" in err
    assert not {"\x1b", "\x07", "\x9b", "\u202e", "\u2066"} & set(err)
    assert "\\x1b" in err


def test_a_mistyped_command_names_the_nearest(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "qeury", "--spec", "zlib", SAMPLE)
    assert (code, out) == (2, "")
    assert err == "cachetui: 'qeury' is no command, nor a file or directory to open: did you mean query? " \
                  "(see 'cachetui --help')\n"
    assert [mistyped_command(w) for w in ("chek", "verfy", "coverge", "dif", "conifg")] == \
        ["check", "verify", "coverage", "diff", "config"]
    (tmp_path / "chek").mkdir()  # a path that exists is a SOURCE, whatever it is called
    assert [mistyped_command(w) for w in ("chek", "./qeury", "qeury=file:///m", "--qeury", "x", "zlib")] == [None] * 6
    code, _, err = run(capsys, "nosuchdir")  # nothing near a command: a missing path, as before
    assert code == 2 and "no such file or directory: nosuchdir" in err


# -- an answer whose reader went away -------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [["query", SAMPLE, "--format", "json"],  # the answer: 0
                                  ["query", SAMPLE, "--package", "nosuch", "--format", "json"]])  # the answer: 1
def test_a_closed_pipe_exits_141_without_a_traceback(argv: list[str], tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: `| head -0`, deterministically
    try:
        done = subprocess.run([sys.executable, "-m", "cachetui", *argv, "--no-cache"], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path)
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr and "Broken" not in done.stderr


def test_a_command_named_after_an_option_is_a_usage_error_never_a_source(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cachetui --debug coverage LOCK SRC` took `coverage` for a SOURCE and opened the browser on it."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "--debug", "coverage", "spack.lock", SAMPLE)
    assert (code, out) == (2, "")
    assert err.startswith("cachetui: 'coverage' is a command: name it first, then its options")
    assert command_after_options(["check"]) == "check"
    (tmp_path / "check").mkdir()  # a directory of that name is a SOURCE, and opens
    assert command_after_options(["check"]) is None
    code, _, err = run(capsys, "--spack-mirror", "diff", "--want", "coverage", "nosuchdir")  # values, not SOURCEs
    assert code == 2 and "is a command" not in err


@pytest.mark.parametrize("order", ["sources first", "options between", "options last"])
def test_a_commands_options_may_come_before_between_or_after_its_sources(order: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # `cachetui plan spack.yaml --arch … mirror/` as users type it: mirror/ is a SOURCE, not a stray word.
    env = Path(__file__).parent / "fixtures" / "plan" / "real" / "icon-santis"
    options, sample = ["--arch", "linux-ubuntu22.04-x86_64_v3", "--format", "json", "--no-cache"], str(sample_path())
    argv = {"sources first": [str(env), sample, *options], "options between": [str(env), *options[:2], sample,
                                                                                  *options[2:]],
            "options last": [str(env), *options, sample]}[order]
    code = main(["plan", *argv])
    rows = json.loads(capsys.readouterr().out)
    assert code == 1 and [row["status"] for row in rows if row["package"] == "py-mpi4py"] == ["partly"]
