"""OCI registries as build caches: references, the distribution API with its logins, and verification.

Every registry is a loopback fake (tests/registry.py); blobs that redirect go to a second
server reached as `localhost`, which must never see the registry's Authorization.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources import recognise
from cachetui.core.load.sources.mirror import MirrorError, Net
from cachetui.core.load.sources.oci import Credentials, Registry, Repository, parse_challenges, parse_reference
from cachetui.core.model.problems import Severity, UnusableInput
from tests.mirrors import DB7, DB8, expected_records, index_bytes
from tests.registry import serve_registry, serve_storage
from tests.spack_env import SpackEnv, isolated_spack
from tests.test_mirrors import _records


@pytest.fixture(autouse=True)
def spack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpackEnv:
    return isolated_spack(tmp_path, monkeypatch)


# -- references, as Spack parses them ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "scheme", "domain", "name"),
    [
        ("oci://ghcr.io/spack/github-actions-buildcache", "https", "ghcr.io", "spack/github-actions-buildcache"),
        ("oci://ghcr.io/JuliaParallel/github-actions-buildcache", "https", "ghcr.io",
         "juliaparallel/github-actions-buildcache"),
        ("oci://user/image", "https", "index.docker.io", "user/image"),  # no dot: a Docker Hub user
        ("oci://ubuntu", "https", "index.docker.io", "library/ubuntu"),
        ("oci://localhost/buildcache", "https", "localhost", "buildcache"),
        ("oci+http://localhost:5000/buildcache", "http", "localhost:5000", "buildcache"),
        ("oci+http://127.0.0.1:5000/a/b:some-tag", "http", "127.0.0.1:5000", "a/b"),  # a tag is ignored
        ("oci://MyHost/x", "https", "MyHost", "x"),  # not all lowercase: a host, as Docker reads it
        ("oci://ghcr.io/a/b/", "https", "ghcr.io", "a/b"),
    ],
)
def test_references_are_read_as_spack_reads_them(url: str, scheme: str, domain: str, name: str) -> None:
    assert parse_reference(url) == Repository(scheme, domain, name)


@pytest.mark.parametrize("url", ["oci://", "oci://ghcr.io/", "oci://ghcr.io/a b", "oci://ghcr.io/-x"])
def test_a_malformed_reference_is_a_usage_error(url: str) -> None:
    with pytest.raises(UnusableInput):
        recognise(url)


def test_the_tag_is_the_last_path_part_unless_named() -> None:
    assert recognise("oci://ghcr.io/spack/github-actions-buildcache").tag == "github-actions-buildcache"
    assert recognise("ci=oci://ghcr.io/spack/Github-Actions-Buildcache").tag == "ci"
    assert recognise("oci://ghcr.io/spack/Cache").origin == "oci://ghcr.io/spack/cache"


def test_challenges_are_parsed_as_rfc_7235_says() -> None:
    header = ('Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:a/b:pull", '
              'Basic realm="x \\"quoted\\""')
    assert parse_challenges(header) == {
        "bearer": {"realm": "https://ghcr.io/token", "service": "ghcr.io", "scope": "repository:a/b:pull"},
        "basic": {"realm": 'x "quoted"'},
    }
    assert parse_challenges("") == {}


def test_credentials_never_show_in_a_repr() -> None:
    credentials = Credentials("me", "hunter2-secret")
    assert "hunter2-secret" not in repr(credentials) and "hunter2-secret" not in repr(Registry(
        parse_reference("oci://ghcr.io/a/b"), credentials))


def test_an_http_realm_is_refused_for_an_https_registry() -> None:
    """Credentials (and even an anonymous login) never go over plain HTTP for an oci:// source."""
    registry = Registry(parse_reference("oci://ghcr.io/a/b"), Credentials("me", "secret"))
    with pytest.raises(MirrorError, match="login realm is not an https URL") as raised:
        registry._login('Bearer realm="http://127.0.0.1:9/token",service="x",scope="y"', Net(timeout=1))
    assert "secret" not in str(raised.value)


# -- the index, through the distribution API ------------------------------------------------------------------


@pytest.mark.parametrize("compress", [False, True], ids=["plain-layer", "gzip-layer"])
@pytest.mark.parametrize("fixture", [DB7, DB8], ids=["db7", "db8"])
def test_an_anonymous_token_login_reads_the_index(compress: bool, fixture: Path) -> None:
    with serve_registry(auth="bearer") as registry:
        registry.push_index("spack/buildcache", index_bytes(fixture), compress=compress)
        corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"])
    assert corpus.report.problems == []
    assert corpus.tags == ["buildcache"]
    assert _records(corpus) == expected_records(index_bytes(fixture))
    first, token, *rest = registry.log
    assert first.path == "/v2/spack/buildcache/manifests/index.spack" and "Authorization" not in first.headers
    assert token.path.startswith("/token?") and "scope=repository%3Aspack%2Fbuildcache%3Apull" in token.path
    assert "Authorization" not in token.headers  # anonymous
    assert [r.path.split("/")[4] for r in rest] == ["manifests", "blobs"]
    assert all(r.headers["Authorization"].startswith("Bearer token-") for r in rest)
    assert rest[0].headers["Accept"].startswith("application/vnd.oci.image.manifest.v1+json")


def test_a_blob_redirected_to_another_host_never_gets_the_token() -> None:
    with serve_registry(auth="bearer") as registry:
        digest = registry.push_index("spack/buildcache", index_bytes(DB8))
        with serve_storage(registry) as storage:
            corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"])
    assert corpus.report.problems == [] and corpus.n_specs == 6
    assert registry.log[-1].path == f"/v2/spack/buildcache/blobs/{digest}"
    assert [r.path for r in storage.log] == [f"/blob/{digest}?signature=xyz"]
    assert registry.log[-1].headers["Authorization"].startswith("Bearer ")  # the registry itself got it
    assert all("Authorization" not in r.headers for r in storage.log)


def test_the_index_is_fetched_once_and_then_known_by_its_digest() -> None:
    with serve_registry() as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        cache = CorpusCache()
        load_corpus([f"oci+http://{registry.host}/spack/buildcache"], cache=cache)
        registry.log.clear()
        corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"], cache=cache)
    assert corpus.n_specs == 6 and corpus.cache_status == "hit"
    assert [r.path for r in registry.log] == ["/v2/spack/buildcache/manifests/index.spack"]


def test_a_tampered_layer_is_refused_and_the_other_source_still_loads(mirror_server) -> None:  # noqa: ANN001
    with serve_registry() as registry:
        registry.push_index("spack/bad", index_bytes(DB8), served=index_bytes(DB7))
        registry.push_index("spack/good", index_bytes(DB7))
        corpus = load_corpus([f"oci+http://{registry.host}/spack/bad", f"oci+http://{registry.host}/spack/good"])
    (problem,) = corpus.report.problems
    assert problem.path.startswith(f"oci+http://{registry.host}/spack/bad@sha256:")
    assert "checksum mismatch" in problem.reason and "\n" not in problem.reason
    assert corpus.tags == ["good"] and corpus.n_specs == len(expected_records(index_bytes(DB7)))


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda r: None, "no such repository, or it is not public (registries answer both alike)"),
        (lambda r: r.push_tag("spack/buildcache", "zlib-1.3-abcdefabcdefabcdefabcdefabcdefab.spack"),
         "no index.spack tag: the repository has no build-cache index"),
        (lambda r: (r.private.add("spack/buildcache"), r.push_index("spack/buildcache", index_bytes(DB8))),
         "no such repository, or it is not public (registries answer both alike)"),
    ],
    ids=["404-no-repository", "404-no-index", "401-private"],
)
def test_errors_are_one_line_naming_the_repository(setup, message: str) -> None:  # noqa: ANN001
    with serve_registry(auth="bearer") as registry:
        setup(registry)
        corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"])
    (problem,) = corpus.report.problems
    assert problem.path == f"oci+http://{registry.host}/spack/buildcache"
    assert problem.reason.startswith(message) and problem.severity is Severity.ERROR


def test_a_basic_challenge_without_credentials_is_denied_in_one_line() -> None:
    with serve_registry(auth="basic", users={"me": "pw"}) as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"])
    (problem,) = corpus.report.problems
    assert problem.reason.startswith("denied: the registry asks for a user name and password")


def test_a_registry_that_is_not_there_is_one_line(unused_port: int) -> None:
    corpus = load_corpus([f"oci+http://127.0.0.1:{unused_port}/spack/buildcache"])
    (problem,) = corpus.report.problems
    assert problem.path == f"oci+http://127.0.0.1:{unused_port}/spack/buildcache"
    assert "connection refused" in problem.reason


def test_an_oversized_layer_is_not_downloaded() -> None:
    with serve_registry() as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        manifest = json.loads(registry.manifests["spack/buildcache"]["index.spack"])
        manifest["layers"][0]["size"] = 3 << 30
        registry.manifests["spack/buildcache"]["index.spack"] = json.dumps(manifest).encode()
        corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"])
    (problem,) = corpus.report.problems
    assert "over the" in problem.reason and "limit" in problem.reason
    assert not registry.requests_to("/v2/spack/buildcache/blobs/")


def test_a_layer_longer_than_its_manifest_says_is_cut_off() -> None:
    """Memory stays bounded by what the manifest declared, whatever the registry streams."""
    with serve_registry() as registry:
        digest = registry.push_index("spack/buildcache", index_bytes(DB8))
        registry.blobs["spack/buildcache"][digest] = index_bytes(DB8) + b" " * 100_000
        corpus = load_corpus([f"oci+http://{registry.host}/spack/buildcache"])
    (problem,) = corpus.report.problems
    declared = len(index_bytes(DB8))
    assert problem.path == f"oci+http://{registry.host}/spack/buildcache" and f"over the {declared} bytes" in problem.reason


# -- as a user types it ---------------------------------------------------------------------------------


def test_query_lists_exactly_the_index_binaries(capsys: pytest.CaptureFixture[str]) -> None:
    with serve_registry(auth="bearer") as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        code = main(["query", f"oci+http://{registry.host}/spack/buildcache", "--format", "json", "--no-cache"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0
    assert sorted(r["hash"] for r in rows) == sorted(expected_records(index_bytes(DB8)))
    assert {r["tag"] for r in rows} == {"buildcache"}


def test_oci_mixes_with_other_sources(mirror_server) -> None:  # noqa: ANN001
    from tests.mirrors import v3_mirror

    v3_mirror(mirror_server.root / "develop", index_bytes(DB7))
    with serve_registry(auth="bearer") as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        corpus = load_corpus([mirror_server.at("develop"), f"ci=oci+http://{registry.host}/spack/buildcache"])
    assert corpus.report.problems == [] and sorted(corpus.tags) == ["ci", "develop"]


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]



def test_offline_a_registry_s_last_index_is_shown_as_an_offline_copy() -> None:
    with serve_registry(auth="bearer") as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8), compress=True)
        url = f"oci+http://{registry.host}/spack/buildcache"
        load_corpus([url], cache=CorpusCache())
    corpus = load_corpus([url], cache=CorpusCache())  # the registry is gone
    assert corpus.n_specs == 6 and corpus.report.errors == []
    (warning,) = corpus.report.warnings
    assert "cannot reach the mirror" in warning.reason and "offline copy from" in warning.reason
    (path,) = {d.path for d in corpus.documents}
    assert path.startswith(f"{url} (offline copy from ") and corpus.cache_status != "hit"


def test_basic_credentials_go_to_the_registry_alone() -> None:
    with serve_registry(auth="basic", users={"me": "pw-secret"}) as registry:
        digest = registry.push_index("team/cache", index_bytes(DB8))
        with serve_storage(registry) as storage:
            client = Registry(parse_reference(f"oci+http://{registry.host}/team/cache"), Credentials("me", "pw-secret"))
            ref = client.locate(Net(timeout=5))
            data = ref.reader(Net(timeout=5), "")
    assert data == index_bytes(DB8) and ref.checksum == digest.removeprefix("sha256:")
    blob = registry.requests_to("/v2/team/cache/blobs/")[-1]
    assert blob.headers["Authorization"].startswith("Basic ")
    assert storage.log and all("Authorization" not in r.headers for r in storage.log)
