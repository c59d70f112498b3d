"""Stale or refused data is never shown as current: offline copies said by every command, refusals are errors,
and nothing loaded is never an answer.

Mirrors are served on 127.0.0.1 (tests/mirrors.py, tests/hostile_server.py, tests/registry.py); an offline copy
is made by loading once while the server is up, then stopping it. Nothing reaches the internet.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus
from tests.conftest import front_matter
from tests.hostile_server import PASSWORD, USER, HostileServer, serve_hostile
from tests.mirrors import DB7, DB8, index_bytes, serve, v2_mirror, v3_mirror
from tests.registry import serve_registry

OFFLINE = "offline copy from "
DB8_SPECS, DB7_SPECS = 6, 2


@pytest.fixture
def offline_url(tmp_path: Path) -> str:
    """A mirror (DB 8, tag `develop`) read once while it was up, then gone: only its offline copy is left."""
    www = tmp_path / "www"
    v3_mirror(www / "develop", index_bytes(DB8))
    servers = serve(www)
    url = next(servers).at("develop")
    assert main(["query", url]) == 0
    servers.close()
    return url


@pytest.fixture
def current(tmp_path: Path) -> str:
    """A mirror on disk (DB 7, tag `unsigned`): always current."""
    return str(v2_mirror(tmp_path / "disk" / "unsigned", DB7))


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[HostileServer]:
    root = tmp_path / "hostile-www"
    v3_mirror(root / "develop", index_bytes(DB8))
    yield from serve_hostile(root)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _said_offline(err: str, url: str) -> bool:
    """`check`'s warning, repeated on stderr as every command says it."""
    return any(line.startswith(f"cachetui: warning: {url}: cannot reach the mirror") and OFFLINE in line
               for line in err.splitlines())


# -- an offline copy is said by every command that uses it ----------------------------------------------------


@pytest.mark.parametrize("fmt", ["table", "spack"])
def test_query_says_offline_copy_on_each_of_its_rows_and_on_stderr(
        capsys: pytest.CaptureFixture[str], offline_url: str, current: str, fmt: str) -> None:
    code, out, err = _run(capsys, "query", offline_url, current, "--format", fmt)
    assert code == 0 and _said_offline(err, offline_url)
    rows = [line for line in out.splitlines() if "libelf" in line or "libdwarf" in line]
    stale = [line for line in rows if OFFLINE in line]
    assert len(rows) == 4 + 2 and len(stale) == 4  # DB 8's libelf and libdwarf from the copy, DB 7's current
    if fmt == "table":
        assert all(" develop " in line for line in stale) and all(" unsigned " in line for line in rows
                                                                   if line not in stale)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_query_json_and_csv_carry_the_offline_copy_in_path(
        capsys: pytest.CaptureFixture[str], offline_url: str, current: str, fmt: str) -> None:
    code, out, err = _run(capsys, "query", offline_url, current, "--format", fmt)
    records = json.loads(out) if fmt == "json" else list(csv.DictReader(io.StringIO(out)))
    paths = {record["tag"]: record["path"] for record in records}
    assert code == 0 and _said_offline(err, offline_url)
    assert paths["develop"].startswith(f"{offline_url} ({OFFLINE}") and OFFLINE not in paths["unsigned"]


def test_diff_says_which_side_is_an_offline_copy(
        capsys: pytest.CaptureFixture[str], offline_url: str, current: str) -> None:
    code, out, err = _run(capsys, "diff", offline_url, current)
    old, _, new = out.splitlines()[0].partition(" -> ")
    assert code == 1 and _said_offline(err, offline_url)
    assert old.startswith(f"{offline_url} ({OFFLINE}") and OFFLINE not in new

    code, out, err = _run(capsys, "diff", offline_url, current, "--format", "json")
    offline = json.loads(out)["offline"]
    assert len(offline["old"]) == 1 and offline["old"][0].startswith(OFFLINE) and offline["new"] == []
    assert _said_offline(err, offline_url)

    code, out, _ = _run(capsys, "diff", offline_url, current, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and all(row["old_offline"].startswith(OFFLINE) and row["new_offline"] == "" for row in rows)


def test_diff_of_two_tags_says_the_tag_read_from_an_offline_copy(
        capsys: pytest.CaptureFixture[str], offline_url: str, current: str) -> None:
    code, out, err = _run(capsys, "diff", "unsigned", "develop", offline_url, current)
    assert out.splitlines()[0].startswith(f"unsigned -> develop ({OFFLINE}") and _said_offline(err, offline_url)


def test_current_data_says_nothing_of_offline_copies(capsys: pytest.CaptureFixture[str], current: str) -> None:
    code, out, err = _run(capsys, "query", current)
    assert code == 0 and "offline" not in out + err
    code, out, err = _run(capsys, "diff", current, current, "--format", "json")
    assert json.loads(out)["offline"] == {"old": [], "new": []}


def test_query_says_an_index_of_indexes_read_from_its_stored_copy(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    www = tmp_path / "www"
    v3_mirror(www / "develop", index_bytes(DB8))
    (www / "cache_spack_io_index.json").write_text(json.dumps({"develop": [{"label": "root", "url": "develop"}]}))
    servers = serve(www)
    url = next(servers).at("cache_spack_io_index.json")
    assert main(["query", url]) == 0
    servers.close()
    code, out, err = _run(capsys, "query", url, "--package", "libelf")
    assert code == 0 and f"cachetui: warning: {url}: cannot reach it" in err and "showing the copy stored" in err
    assert _said_offline(err, url.rsplit("/", 1)[0] + "/develop")  # and the mirror it names, from its own copy


# -- refused credentials are an error, and no offline copy stands in for them ---------------------------------


def test_a_wrong_password_is_an_error_naming_the_mirror_and_its_offline_copy_is_not_shown(
        capsys: pytest.CaptureFixture[str], hostile: HostileServer, current: str) -> None:
    assert main(["query", hostile.with_credentials("private/develop")]) == 0  # the copy a wrong password must not see
    wrong = hostile.with_credentials("private/develop", password="wrong-one")
    code, out, err = _run(capsys, "query", wrong, current, "--package", "libelf")
    assert code == 1
    (error,) = [line for line in err.splitlines() if "private/develop" in line]
    assert f"http://{USER}:***@127.0.0.1:{hostile.port}/private/develop" in error
    assert "HTTP 401" in error and "refused" in error and "cannot reach" not in error
    assert "wrong-one" not in out + err and PASSWORD not in out + err
    assert "offline" not in out + err and " develop " not in out  # only the current mirror's libelf
    assert len([line for line in out.splitlines() if " unsigned " in line]) == 1


def test_a_mirror_that_answers_403_is_an_error_and_its_offline_copy_is_not_shown(hostile: HostileServer) -> None:
    url = hostile.at("develop")
    assert load_corpus([url], cache=CorpusCache()).n_specs == DB8_SPECS
    hostile.forbidden = True
    corpus = load_corpus([url], cache=CorpusCache())
    (error,) = corpus.report.errors
    assert corpus.n_specs == 0 and corpus.report.warnings == [] and corpus.offline == {}
    assert "HTTP 403" in error.reason and "refused" in error.reason


def test_an_index_of_indexes_that_answers_403_is_an_error_and_its_stored_copy_is_not_used(
        hostile: HostileServer) -> None:
    (hostile.root / "cache_spack_io_index.json").write_text(json.dumps({"develop": [{"label": "root",
                                                                                      "url": "develop"}]}))
    url = hostile.at("cache_spack_io_index.json")
    assert load_corpus([url], cache=CorpusCache()).n_specs == DB8_SPECS
    hostile.forbidden = True
    corpus = load_corpus([url], cache=CorpusCache())
    (error,) = corpus.report.errors
    assert corpus.n_specs == 0 and corpus.report.warnings == [] and "HTTP 403" in error.reason


def test_a_registry_that_denies_access_is_an_error_and_its_offline_copy_is_not_shown() -> None:
    with serve_registry(auth="bearer") as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        url = f"oci+http://{registry.host}/spack/buildcache"
        assert load_corpus([url], cache=CorpusCache()).n_specs == DB8_SPECS
        registry.denied.add("spack/buildcache")
        corpus = load_corpus([url], cache=CorpusCache())
    (error,) = corpus.report.errors
    assert corpus.n_specs == 0 and corpus.report.warnings == []
    assert error.path == url and "HTTP 403" in error.reason


# -- nothing loaded is never an answer ------------------------------------------------------------------------


@pytest.fixture(params=["unreachable", "refused", "bad documents"])
def nothing_loads(request: pytest.FixtureRequest, hostile: HostileServer, tmp_path: Path,
                  unused_port: int) -> str:
    """A source that loads nothing: a mirror not there (and no copy), one that refuses, documents all broken."""
    if request.param == "unreachable":
        return f"http://127.0.0.1:{unused_port}/develop"
    if request.param == "refused":
        assert main(["query", hostile.with_credentials("private/develop")]) == 0  # a copy exists, and is not used
        return hostile.with_credentials("private/develop", password="wrong-one")
    listing = tmp_path / "site" / "_cache" / "develop" / "zlib" / "specs.md"
    listing.parent.mkdir(parents=True)
    listing.write_text(front_matter(title="[unclosed"))
    return str(tmp_path / "site")


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("argv", [["query", "--package", "zlib"], ["query", "--spec", "zlib", "--format", "json"],
                                  ["query"], ["diff", "develop", "develop-2"]])
def test_nothing_loaded_is_said_and_exits_2_never_unknown_package(
        capsys: pytest.CaptureFixture[str], nothing_loads: str, argv: list[str]) -> None:
    code, out, err = _run(capsys, *argv, nothing_loads)
    assert code == 2 and out == ("[]\n" if "json" in argv else "")  # json stays JSON: the empty answer
    assert "cachetui: no source loaded" in err and "unknown" not in err and "no binary" not in err
    assert "offline" not in err and "wrong-one" not in err


def test_nothing_loaded_is_said_by_diff_of_two_sources(
        capsys: pytest.CaptureFixture[str], nothing_loads: str, current: str) -> None:
    code, out, err = _run(capsys, "diff", nothing_loads, current)
    assert code == 2 and out == "" and "cachetui: no source loaded" in err


def test_check_reports_every_error_and_says_that_no_source_loaded(
        capsys: pytest.CaptureFixture[str], nothing_loads: str) -> None:
    code, out, err = _run(capsys, "check", "--json", nothing_loads)
    report = json.loads(out)
    assert code == 1 and report["specs"] == 0 and report["errors"] and report["warnings"] == []
    assert "cachetui: no source loaded" in err


def test_a_source_that_loads_empty_is_not_nothing_loaded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, "query", "--package", "zlib", str(tmp_path))
    assert code == 1 and "unknown package 'zlib'" in err and "no source loaded" not in err
