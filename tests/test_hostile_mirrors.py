"""Hostile mirrors and indexes: one bad record costs only itself, and one bad source never costs another.

Every server is the loopback one of tests/mirrors.py (127.0.0.1, port 0); nothing reaches the internet.
"""

from __future__ import annotations

import csv
import io
import json
import re
import socket
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cachetui.cli.main import main
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources.spack_db import MAX_RECORD_PROBLEMS, read_database
from cachetui.core.spack.variants import parse_variants, quote_value
from cachetui.present.inert import inert
from tests.hostile_server import (
    EVIL_HASH,
    EVIL_OS,
    EVIL_VALUE,
    PASSWORD,
    USER,
    HostileServer,
    evil_index,
    serve_hostile,
)
from tests.mirrors import DB7, DB8, MirrorServer, index_bytes, v2_mirror, v3_mirror


def _installs(index: bytes) -> dict:
    return json.loads(index)["database"]["installs"]


def _in_cache(index: bytes) -> list[str]:
    return [h for h, r in _installs(index).items() if r["in_buildcache"]]


def _with_bytes(index: bytes, hash_: str, marker: bytes) -> bytes:
    """The index with one record's package name carrying `marker` (raw bytes, as a server may send them)."""
    data = json.loads(index)
    name = data["database"]["installs"][hash_]["spec"]["name"]
    data["database"]["installs"][hash_]["spec"]["name"] = "@@MARK@@"
    text = json.dumps(data).encode()
    return text.replace(b"@@MARK@@", name.encode() + marker, 1)


def _with_bad_key(index: bytes, hash_: str, marker: bytes) -> bytes:
    """The index with one record's key ending in `marker` instead of its last two characters."""
    data = json.loads(index)
    installs = data["database"]["installs"]
    data["database"]["installs"] = {("@@KEY@@" if h == hash_ else h): r for h, r in installs.items()}
    return json.dumps(data).encode().replace(b"@@KEY@@", hash_[:-2].encode() + marker)


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _check_json(capsys, argv: list[str]) -> tuple[int, dict]:  # noqa: ANN001
    code = main(["check", "--no-cache", *argv, "--json"])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err
    return code, _strict_json(out)


# -- one bad record ----------------------------------------------------------------------------------------


def test_a_record_with_bytes_that_are_not_utf8_costs_only_itself(mirror_server: MirrorServer, capsys) -> None:  # noqa: ANN001
    index = index_bytes(DB8)
    bad = _in_cache(index)[0]
    v3_mirror(mirror_server.root / "hostile", _with_bytes(index, bad, b"\xff\xfe"))
    v2_mirror(mirror_server.root / "good", DB7)
    code, report = _check_json(capsys, [mirror_server.at("good"), mirror_server.at("hostile")])
    assert code == 1
    (error,) = report["errors"]
    assert bad in error["reason"] and "not valid UTF-8" in error["reason"]
    assert error["path"] == mirror_server.at("hostile")
    good_specs = len(_in_cache(index_bytes(DB7)))
    assert report["specs"] == good_specs + len(_in_cache(index)) - 1  # the good mirror in full, the rest of the other


def test_bytes_that_are_not_utf8_in_a_record_key_cost_only_that_record(mirror_server: MirrorServer) -> None:
    index = index_bytes(DB8)
    bad = _in_cache(index)[1]
    v3_mirror(mirror_server.root / "develop", _with_bad_key(index, bad, b"\xc3\x28"))
    corpus = load_corpus([mirror_server.at("develop")])
    (error,) = corpus.report.errors
    assert bad[:-2] + "\\xc3(" in error.reason  # the key as it can be named: the bad byte escaped
    assert corpus.n_specs == len(_in_cache(index)) - 1


def test_nan_and_infinity_load_as_spacks_reader_reads_them_and_output_stays_strict(
        mirror_server: MirrorServer, capsys) -> None:  # noqa: ANN001
    data = json.loads(index_bytes(DB8))
    installs = data["database"]["installs"]
    first, second = _in_cache(index_bytes(DB8))[:2]
    installs[first]["spec"]["parameters"]["weight"] = float("nan")
    installs[second]["spec"]["extra"] = [float("inf"), float("-inf")]
    text = json.dumps(data).encode()  # Python's json writes NaN and Infinity, and reads them back
    assert b"NaN" in text and b"-Infinity" in text
    v3_mirror(mirror_server.root / "develop", text)
    code, report = _check_json(capsys, [mirror_server.at("develop")])
    assert code == 0 and report["errors"] == [] and report["specs"] == 6
    assert main(["query", "--no-cache", mirror_server.at("develop"), "--format", "json"]) == 0
    rows = _strict_json(capsys.readouterr().out)
    assert len(rows) == 6 and {r["hash"] for r in rows} == set(_in_cache(index_bytes(DB8)))


def test_records_of_the_wrong_shape_are_named_and_the_rest_load(mirror_server: MirrorServer) -> None:
    data = json.loads(index_bytes(DB8))
    installs = data["database"]["installs"]
    a, b, c, d = _in_cache(index_bytes(DB8))[:4]
    installs[a] = ["not", "an", "object"]
    installs[b]["spec"] = "not a node"
    installs[c]["spec"]["version"] = 5  # wrong type: the record loads, its version shown empty
    installs[d]["spec"]["arch"] = {"platform": ["x"], "platform_os": None, "target": 3}
    v3_mirror(mirror_server.root / "develop", json.dumps(data).encode())
    corpus = load_corpus([mirror_server.at("develop")])
    errors = {e.reason.split(":")[0] for e in corpus.report.errors}
    assert errors == {f"record {a}", f"record {b}"}
    warned = " ".join(w.reason for w in corpus.report.warnings)
    assert c in warned and d in warned
    assert corpus.n_specs == 4
    assert {corpus.spec(i).hash for i in range(corpus.n_specs)} == set(_in_cache(index_bytes(DB8))) - {a, b}


def test_a_stack_index_with_bad_bytes_still_gives_its_other_members(mirror_server: MirrorServer) -> None:
    www = mirror_server.root
    index = index_bytes(DB8)
    hashes = _in_cache(index)
    root = v3_mirror(www / "develop", index)
    stack = _with_bad_key(index, hashes[0], b"\xff")  # a membership reading needs only the keys
    stack_sum = v3_mirror(www / "stack", stack)
    ioi = {"develop": [{"label": "root", "url": f"{mirror_server.url}/develop/blobs/sha256/{root[:2]}/{root}"},
                       {"label": "ml", "url": f"{mirror_server.url}/stack/blobs/sha256/{stack_sum[:2]}/{stack_sum}"}]}
    (www / "cache_spack_io_index.json").write_text(json.dumps(ioi))
    corpus = load_corpus([mirror_server.at("cache_spack_io_index.json")])
    assert corpus.report.errors == [] and corpus.n_specs == 6
    stacks = {corpus.spec(i).hash: corpus.spec(i).stacks for i in range(corpus.n_specs)}
    assert stacks[hashes[0]] == () and all(stacks[h] == ("ml",) for h in hashes[1:])
    assert "internal error" not in " ".join(p.reason for p in corpus.report.problems)


def test_a_thousand_bad_records_are_a_bounded_report(tmp_path: Path) -> None:
    data = json.loads(index_bytes(DB8))
    installs = data["database"]["installs"]
    for n in range(1000):
        installs[f"{n:032d}"] = {"spec": {"version": "1"}, "in_buildcache": True}
    content = read_database(json.dumps(data).encode(), "origin", "develop", "mirror index")
    assert len(content.problems) == MAX_RECORD_PROBLEMS + 1
    assert "980 more records skipped" in content.problems[-1].reason
    assert sum(len(d.columns) for d in content.documents) == 6


def test_bytes_that_are_not_utf8_in_parameters_cost_only_their_records() -> None:
    """A node's `parameters` and an edge's are decoded after the record (the binaries a batch at a time): bytes
    that are not UTF-8 there cost their own record, one problem each, and the others load whole."""
    def record(name: str, parameters: dict[str, object], edges: list[dict[str, object]]) -> dict[str, object]:
        return {"spec": {"name": name, "version": "1.0", "parameters": parameters, "dependencies": edges,
                         "arch": {"platform": "linux", "platform_os": "rhel8", "target": "zen4"}},
                "in_buildcache": True}

    zlib, bad_node, bad_edge, bzip2 = (c * 32 for c in "abcd")
    installs = {
        bad_node: record("curl", {"shared": True, "marker": "@@node@@"}, []),
        zlib: record("zlib", {"pic": True}, []),
        bad_edge: record("hdf5", {}, [{"name": "zlib", "hash": zlib,
                                       "parameters": {"deptypes": ["link"], "virtuals": ["@@edge@@"]}}]),
        bzip2: record("bzip2", {"debug": False}, [{"name": "zlib", "hash": zlib,
                                                   "parameters": {"deptypes": ["build"], "virtuals": ["c"]}}]),
    }
    data = json.dumps({"database": {"version": "8", "installs": installs}}).encode()
    data = data.replace(b'"@@node@@"', b'"x\xffy"').replace(b'"@@edge@@"', b'"c\xc3\x28"')
    content = read_database(data, "origin", "develop", "mirror index")
    loaded = {h: (doc.package, doc.columns.variants[i], doc.columns.compilers[i])
              for doc in content.documents for i, h in enumerate(doc.columns.hashes)}
    assert loaded == {zlib: ("zlib", ("+pic",), "none"), bzip2: ("bzip2", ("~debug",), "zlib@1.0")}
    assert [p.reason for p in content.problems] == [f"record {bad_node}: not valid UTF-8; skipped",
                                                    f"record {bad_edge}: not valid UTF-8; skipped"]


# -- the property: a bad record costs exactly itself ------------------------------------------------------

_HASH = st.from_regex(r"[a-z2-7]{32}", fullmatch=True)
_WORD = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
_FAULTS = ("bad_bytes", "bad_bytes_in_key", "not_an_object", "spec_not_an_object", "no_name", "null")
_VALUES = st.one_of(st.booleans(), _WORD, st.lists(_WORD, min_size=1, max_size=3),
                    st.sampled_from([float("nan"), float("inf"), -float("inf"), None, 7]))


@st.composite
def _databases(draw: st.DrawFn) -> tuple[bytes, set[str], set[str]]:
    """A database of generated records, some damaged: (its bytes, the good hashes, the damaged ones)."""
    hashes = draw(st.lists(_HASH, min_size=1, max_size=12, unique=True))
    installs: dict[str, object] = {}
    for h in hashes:
        edges = [{"name": "dep", "hash": other, "parameters": {"deptypes": draw(st.sampled_from([["build"], ["link", "run"]])),
                                                              "virtuals": draw(st.sampled_from([[], ["c"], ["mpi"]]))}}
                 for other in draw(st.lists(st.sampled_from(hashes), max_size=3, unique=True))]
        installs[h] = {
            "spec": {"name": draw(_WORD), "version": draw(st.from_regex(r"[0-9]{1,2}(\.[0-9]{1,2}){0,2}", fullmatch=True)),
                     "arch": {"platform": "linux", "platform_os": draw(_WORD),
                              "target": draw(st.one_of(_WORD, st.builds(lambda n: {"name": n}, _WORD)))},
                     "parameters": draw(st.dictionaries(_WORD, _VALUES, max_size=4)),
                     "dependencies": edges},
            "in_buildcache": True,
        }
    damaged = draw(st.dictionaries(st.sampled_from(hashes), st.sampled_from(_FAULTS), max_size=len(hashes)))
    markers: dict[str, bytes] = {}
    for h, fault in damaged.items():
        if fault == "not_an_object":
            installs[h] = draw(st.sampled_from([[1, 2], "text", 3]))
        elif fault == "null":
            installs[h] = None
        elif fault == "spec_not_an_object":
            installs[h]["spec"] = draw(st.sampled_from([[], "node", 1.5]))  # type: ignore[index]
        elif fault == "no_name":
            del installs[h]["spec"]["name"]  # type: ignore[index]
        else:
            markers[h] = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80abc"]))
            if fault == "bad_bytes":
                installs[h]["spec"]["name"] = f"@@{h}@@"  # type: ignore[index]
    keyed = {(f"@@{h}@@" if damaged.get(h) == "bad_bytes_in_key" else h): r for h, r in installs.items()}
    text = json.dumps({"database": {"version": "8", "installs": keyed}}).encode()
    for h, marker in markers.items():
        text = text.replace(f'"@@{h}@@"'.encode(), b'"x' + marker + h.encode() + b'"')
    return text, set(hashes) - set(damaged), set(damaged)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(_databases())
def test_a_damaged_record_costs_exactly_itself(database: tuple[bytes, set[str], set[str]]) -> None:
    data, good, damaged = database
    content = read_database(data, "origin", "develop", "mirror index")
    loaded = {h for doc in content.documents for h in doc.columns.hashes}
    assert loaded == good
    errors = [p.reason for p in content.problems if p.severity.value == "error"]
    assert len(errors) == len(damaged)
    for h in damaged:
        assert sum(h[2:] in reason for reason in errors) == 1, (h, errors)
    for h in good:
        assert not any(h in reason for reason in errors)
    for doc in content.documents:  # what loaded is text that can be shown and written
        for value in (*doc.columns.versions, *doc.columns.oss, *doc.columns.targets,
                      *(v for vs in doc.columns.variants for v in vs)):
            value.encode("utf-8")


# -- a gzip bomb ------------------------------------------------------------------------------------------


def test_a_gzip_bomb_is_refused_in_one_line_and_the_good_mirror_loads(
        mirror_server: MirrorServer, monkeypatch, capsys) -> None:  # noqa: ANN001
    from benchmarks.bomb_rss import gzip_bomb, write_bomb_mirror

    monkeypatch.setattr("cachetui.core.load.sources.mirror.MAX_INDEX_BYTES", 32 << 20)  # the bomb's size, scaled down
    write_bomb_mirror(mirror_server.root / "bomb", gzip_bomb(100 << 20))
    v2_mirror(mirror_server.root / "good", DB7)
    code, report = _check_json(capsys, [mirror_server.at("good"), mirror_server.at("bomb")])
    assert code == 1 and report["specs"] == len(_in_cache(index_bytes(DB7)))
    (error,) = report["errors"]
    assert error["reason"].startswith("expands past 32 MB (sha256 ") and error["reason"].endswith("); not read")


def test_an_index_that_inflates_to_exactly_the_limit_loads(mirror_server: MirrorServer, monkeypatch) -> None:  # noqa: ANN001
    index = index_bytes(DB8)
    monkeypatch.setattr("cachetui.core.load.sources.mirror.MAX_INDEX_BYTES", len(index))
    v3_mirror(mirror_server.root / "develop", index, compression="gzip")
    corpus = load_corpus([mirror_server.at("develop")])
    assert corpus.report.problems == [] and corpus.n_specs == 6
    monkeypatch.setattr("cachetui.core.load.sources.mirror.MAX_INDEX_BYTES", len(index) - 1)
    corpus = load_corpus([mirror_server.at("develop")])
    (error,) = corpus.report.errors
    assert "expands past" in error.reason


# -- credentials, redirects, and one line per network failure ---------------------------------------------


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[HostileServer]:
    root = tmp_path / "hostile-www"
    root.mkdir()
    yield from serve_hostile(root)


def _mirrors(www: Path) -> None:
    v3_mirror(www / "develop", index_bytes(DB8))
    v2_mirror(www / "good", DB7)


GOOD_SPECS = 2  # DB7's records in the build cache


def test_credentials_in_a_url_are_sent_to_that_host_and_never_shown(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    _mirrors(hostile.root)
    code, report = _check_json(capsys, [hostile.with_credentials("private/develop")])
    assert code == 0 and report["specs"] == 6  # the user part was credentials, not part of the host name
    assert all(seen.host == f"127.0.0.1:{hostile.port}" for seen in hostile.seen)
    assert main(["check", "--no-cache", hostile.with_credentials("private/nowhere"), hostile.at("good"), "--json"]) == 1
    out, err = capsys.readouterr()
    report = _strict_json(out)
    assert PASSWORD not in out + err and "s3cr3t" not in out + err
    (error,) = report["errors"]
    assert error["path"].startswith(f"http://{USER}:***@127.0.0.1:{hostile.port}/private/nowhere")
    assert report["specs"] == GOOD_SPECS
    main(["check", "--no-cache", hostile.with_credentials("private/nowhere")])
    out, err = capsys.readouterr()
    assert PASSWORD not in out + err and f"{USER}:***@" in out


def test_a_wrong_password_is_a_401_that_does_not_show_it(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    _mirrors(hostile.root)
    code, report = _check_json(capsys, [hostile.with_credentials("private/develop", password="wrong-one")])
    (error,) = report["errors"]
    assert code == 1 and "HTTP 401" in error["reason"] and "wrong-one" not in json.dumps(report)


def test_a_bare_token_in_a_url_is_redacted_whole(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    code, report = _check_json(capsys, [f"http://ghp_T0KEN@127.0.0.1:{hostile.port}/nowhere"])
    assert "ghp_T0KEN" not in json.dumps(report) and report["errors"][0]["path"].startswith("http://***@127.0.0.1")


def test_credentials_in_an_index_of_indexes_are_used_and_never_shown(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    _mirrors(hostile.root)
    ioi = {"develop": [{"label": "root", "url": hostile.with_credentials("private/develop")}],
           "broken": [{"label": "root", "url": hostile.with_credentials("private/nowhere")}],
           "odd": [{"label": 5, "url": hostile.with_credentials("x")}]}
    (hostile.root / "cache_spack_io_index.json").write_text(json.dumps(ioi))
    code, report = _check_json(capsys, [hostile.at("cache_spack_io_index.json")])
    text = json.dumps(report)
    assert PASSWORD not in text and "s3cr3t" not in text
    assert report["specs"] == 6 and code == 1
    assert any(f"{USER}:***@127.0.0.1" in e["path"] for e in report["errors"])


def test_authorization_never_follows_a_redirect_to_another_host(hostile: HostileServer) -> None:
    _mirrors(hostile.root)
    corpus = load_corpus([hostile.with_credentials("away/develop")])
    assert corpus.n_specs == 6
    elsewhere = [seen for seen in hostile.seen if seen.host.startswith("localhost")]
    assert elsewhere and all(seen.authorization is None for seen in elsewhere)
    assert all(seen.authorization for seen in hostile.seen if seen.host.startswith("127.0.0.1"))
    hostile.seen.clear()
    corpus = load_corpus([hostile.with_credentials("home/develop")])  # the same host: still authorised
    assert corpus.n_specs == 6 and all(seen.authorization for seen in hostile.seen)


def _one_line_error(capsys, bad: str, hostile: HostileServer, shown: str | None = None) -> dict:  # noqa: ANN001
    """`bad` fails in one line that names it (as `shown`, when it holds a password), and the good mirror loads."""
    _mirrors(hostile.root)
    code, report = _check_json(capsys, [hostile.at("good"), bad])
    assert code == 1 and report["specs"] == GOOD_SPECS  # the good mirror, in full
    (error,) = report["errors"]
    assert "\n" not in error["reason"] and "\n" not in error["path"]
    assert error["path"].startswith(shown or bad) and "s3cr3t" not in json.dumps(report)
    return error


def test_a_redirect_loop_is_one_line(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    error = _one_line_error(capsys, hostile.at("loop/develop"), hostile)
    assert re.fullmatch(r"redirect loop after \d+ hops", error["reason"]), error


def test_a_reset_connection_is_one_line(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    error = _one_line_error(capsys, hostile.with_credentials("reset/develop"), hostile,
                            f"http://{USER}:***@127.0.0.1:{hostile.port}/reset/develop")
    assert "reset" in error["reason"].lower() or "closed" in error["reason"].lower(), error


def test_tls_spoken_to_a_plain_server_is_one_line(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    error = _one_line_error(capsys, f"https://127.0.0.1:{hostile.port}/develop", hostile)
    assert error["reason"].startswith("TLS"), error


def test_a_host_name_that_does_not_resolve_is_one_line(
        hostile: HostileServer, capsys, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - no test ever asks a DNS server
        if host == "mirror.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    error = _one_line_error(capsys, f"http://{USER}:{PASSWORD}@mirror.invalid/develop", hostile,
                            f"http://{USER}:***@mirror.invalid/develop")  # an unquoted `@` in the password too
    assert error["reason"] == "cannot resolve the host name (DNS)"


# -- values that try to break lines and columns -----------------------------------------------------------


def _unsafe(text: str) -> set[str]:
    return {c for c in text if c != "\n" and unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}}


def test_control_characters_never_break_cli_lines_and_json_keeps_them_exact(
        mirror_server: MirrorServer, capsys) -> None:  # noqa: ANN001
    v3_mirror(mirror_server.root / "develop", evil_index(index_bytes(DB8)))
    source = mirror_server.at("develop")
    assert main(["query", "--no-cache", source]) == 0
    out = capsys.readouterr().out
    assert _unsafe(out) == set() and len(out.splitlines()) == 1 + 6  # the header and one line per spec
    (line,) = [row for row in out.splitlines() if EVIL_HASH in row]
    assert 'evil="x\\x0a+cuda\\x0ahash     abcdefgh\\x1b[31m\\x09col\\u202eevil\\u200b\\x07\\x0dend"' in line
    assert "fake" not in out and "+cuda " not in out  # a variant name with a space is not a variant
    assert main(["query", "--no-cache", source, "--format", "spack"]) == 0
    out = capsys.readouterr().out
    assert _unsafe(out) == set() and "\\x0a+cuda\\x0ahash" in out
    assert main(["query", "--no-cache", source, "--format", "json"]) == 0
    (row,) = [r for r in _strict_json(capsys.readouterr().out) if r["hash"] == EVIL_HASH]
    assert row["os"] == EVIL_OS and quote_value(EVIL_VALUE) in [v.removeprefix("evil=") for v in row["variants"]]
    assert main(["query", "--no-cache", source, "--format", "csv"]) == 0
    header, *rows = csv.reader(io.StringIO(capsys.readouterr().out))
    (cells,) = [r for r in rows if r[header.index("hash")] == EVIL_HASH]
    assert cells[header.index("os")] == inert(EVIL_OS)  # as the table shows it
    assert f"evil={inert(quote_value(EVIL_VALUE))}" in cells[header.index("variants")]


def test_a_value_with_a_newline_is_one_variant_whatever_it_holds() -> None:
    (variant,) = parse_variants("evil=" + quote_value(EVIL_VALUE))
    assert variant.name == "evil" and variant.values == (EVIL_VALUE,)
    assert [str(v) for v in parse_variants("k=a\n+cuda\nhash")] == ["k=a\n+cuda\nhash"]


def test_diff_of_two_sources_with_credentials_never_shows_them(hostile: HostileServer, capsys) -> None:  # noqa: ANN001
    _mirrors(hostile.root)
    for fmt in ("table", "json", "csv"):
        code = main(["diff", "--no-cache", hostile.with_credentials("private/good"),
                     hostile.with_credentials("private/develop"), "--format", fmt])
        out, err = capsys.readouterr()
        assert code == 1 and PASSWORD not in out + err and "s3cr3t" not in out + err
        assert fmt == "csv" or f"{USER}:***@127.0.0.1" in out  # CSV has no labels


def test_nan_sizes_in_site_documents_are_written_as_null(write_doc, capsys) -> None:  # noqa: ANN001
    from tests.conftest import listing, spec_entry

    path = write_doc("_cache/develop/pkg/specs.md", listing("pkg", "develop", [
        spec_entry("a" * 32, size=float("nan")), spec_entry("b" * 32, size=float("-inf"))]))
    assert main(["query", "--no-cache", str(path), "--format", "json"]) == 0
    rows = _strict_json(capsys.readouterr().out)
    assert [r["size"] for r in rows] == [None, None]


def test_a_bad_record_leaves_the_rest_of_the_index_on_the_fast_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the damaged records are read the slow way: a whole-site index with one of them costs no more memory."""
    def refused(*args: object) -> None:
        raise AssertionError("the whole index was read with Python's json")

    monkeypatch.setattr("cachetui.core.load.sources.spack_db.read_tolerantly", refused)
    index = index_bytes(DB8)
    a, b, c = _in_cache(index)[:3]
    data = json.loads(_with_bytes(index, a, b"\xff").replace(b"\xff", b"@@FF@@").decode())
    data["database"]["installs"][b]["spec"]["version"] = ["not", "a", "string"]
    data["database"]["installs"][c] = 42
    text = json.dumps(data).encode().replace(b"@@FF@@", b"\xff")
    content = read_database(text, "origin", "develop", "mirror index")
    assert {h for d in content.documents for h in d.columns.hashes} == set(_in_cache(index)) - {a, c}
    reasons = sorted(p.reason for p in content.problems)
    assert reasons == sorted([f"record {a}: not valid UTF-8; skipped", f"record {c}: is a number, not an object; skipped",
                              f"record {b}: not the shape Spack writes; fields of the wrong type are shown empty"])


def test_a_blob_longer_than_its_manifest_says_is_not_read_past_that(mirror_server: MirrorServer) -> None:
    index = index_bytes(DB8)
    checksum = v3_mirror(mirror_server.root / "develop", index)
    blob = mirror_server.root / "develop" / "blobs" / "sha256" / checksum[:2] / checksum
    blob.write_bytes(index + b" " * 100_000)
    corpus = load_corpus([mirror_server.at("develop")])
    (error,) = corpus.report.errors
    assert error.reason == f"longer than the {len(index)} bytes its manifest says (sha256 {checksum}); not read"
