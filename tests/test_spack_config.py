"""The mirrors of the user's Spack configuration: every scope rule, credentials, offline copies, as a user runs it.

HOME, PATH and every SPACK_* variable point into tmp_path (tests/spack_env.py): the
developer's own Spack is never read. Mirrors are served from loopback; a mirror that must
never be contacted is checked against the servers' request logs.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources import recognise
from cachetui.core.load.sources.oci import Credentials
from cachetui.core.load.sources.spack_config import read_configuration, spack_platform
from cachetui.core.model.problems import UnusableInput
from tests.mirrors import DB7, DB8, MirrorServer, expected_records, index_bytes, v3_mirror
from tests.registry import serve_registry
from tests.spack_env import SpackEnv, isolated_spack


@pytest.fixture(autouse=True)
def spack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpackEnv:
    return isolated_spack(tmp_path, monkeypatch)


def _urls() -> dict[str, str]:
    return {m.name: m.url for m in read_configuration().mirrors}


def _names() -> list[str]:
    return [m.name for m in read_configuration().mirrors]


# -- scopes and merging ----------------------------------------------------------------------------------------


def test_scopes_in_spack_1x_order(spack: SpackEnv) -> None:
    """defaults < system < site < user < spack < environment: the highest that names a mirror wins."""
    etc = spack.root / "etc" / "spack"
    scopes = {"defaults": etc / "defaults", "system": spack.system, "site": etc / "site", "user": spack.user,
              "spack": etc}
    for scope, directory in scopes.items():
        spack.mirrors(directory, f"mirrors:\n  shared: https://{scope}.example/m\n  only-{scope}: /{scope}\n")
    assert _urls()["shared"] == "https://spack.example/m"
    assert _names() == ["shared", "only-spack", "only-user", "only-site", "only-system", "only-defaults"]
    environment = spack.home / "env"
    spack.write(environment / "spack.yaml", "spack:\n  mirrors:\n    shared: https://env.example/m\n")
    spack.setenv("SPACK_ENV", str(environment))
    assert _urls()["shared"] == "https://env.example/m"
    assert _names()[0] == "shared" and "only-defaults" in _names()


def test_the_defaults_scope_reads_base_then_the_platform(spack: SpackEnv) -> None:
    defaults = spack.root / "etc" / "spack" / "defaults"
    spack.write(defaults / "include.yaml", "include:\n- path: ${platform}\n  optional: true\n- path: base\n")
    spack.mirrors(defaults / "base", "mirrors:\n  spack-public: {binary: false, url: https://mirror.spack.io}\n"
                                     "  m: https://base.example\n")
    spack.mirrors(defaults / spack_platform(), "mirrors:\n  m: https://platform.example\n")
    assert _urls() == {"m": "https://platform.example", "spack-public": "https://mirror.spack.io"}
    assert not next(m for m in read_configuration().mirrors if m.name == "spack-public").binary


def test_a_platform_subfolder_is_above_its_scope(spack: SpackEnv) -> None:
    spack.mirrors(spack.user, "mirrors:\n  m: https://user.example\n")
    spack.mirrors(spack.user / spack_platform(), "mirrors:\n  m: https://user-platform.example\n")
    spack.mirrors(spack.user / "not-this-platform", "mirrors:\n  m: https://other.example\n")
    assert _urls() == {"m": "https://user-platform.example"}


def test_spack_root_from_a_spack_on_path_resolved_never_run(spack: SpackEnv, tmp_path: Path) -> None:
    spack.monkeypatch.delenv("SPACK_ROOT")
    real = spack.root / "bin" / "spack"
    spack.write(real, "#!/bin/sh\necho ran >> " + str(tmp_path / "ran") + "\n")
    real.chmod(0o755)
    link_dir = tmp_path / "on-path"
    link_dir.mkdir()
    (link_dir / "spack").symlink_to(real)
    spack.setenv("PATH", str(link_dir))
    spack.mirrors(spack.root / "etc" / "spack", "mirrors:\n  from-root: https://root.example\n")
    assert _urls() == {"from-root": "https://root.example"}
    assert not (tmp_path / "ran").exists()


def test_without_spack_root_only_the_local_scopes_are_read(spack: SpackEnv) -> None:
    spack.monkeypatch.delenv("SPACK_ROOT")
    spack.mirrors(spack.root / "etc" / "spack", "mirrors:\n  from-root: https://root.example\n")
    spack.mirrors(spack.user, "mirrors:\n  mine: https://user.example\n")
    assert _urls() == {"mine": "https://user.example"}


def test_user_and_system_paths_move_and_local_config_can_be_disabled(spack: SpackEnv, tmp_path: Path) -> None:
    spack.mirrors(spack.user, "mirrors:\n  home: https://home.example\n")
    elsewhere = tmp_path / "elsewhere"
    spack.mirrors(elsewhere, "mirrors:\n  moved: https://moved.example\n")
    spack.mirrors(spack.system, "mirrors:\n  system: https://system.example\n")
    spack.mirrors(spack.root / "etc" / "spack" / "site", "mirrors:\n  site: https://site.example\n")
    assert set(_urls()) == {"home", "system", "site"}
    spack.setenv("SPACK_USER_CONFIG_PATH", str(elsewhere))
    assert set(_urls()) == {"moved", "system", "site"}
    spack.setenv("SPACK_DISABLE_LOCAL_CONFIG", "")  # set at all: user and system are gone
    assert set(_urls()) == {"site"}


def test_includes_of_local_files_sit_below_the_scope_that_includes_them(spack: SpackEnv) -> None:
    spack.write(spack.user / "include.yaml", """\
        include:
        - extra/first.yaml
        - path: $HOME/second
        - path: /nowhere/optional
          optional: true
        - path: /nowhere/skipped
          when: '"SPACK_NOT_SET" in env'
        """)
    spack.write(spack.user / "extra" / "first.yaml", "mirrors:\n  a: https://first.example\n  b: https://first.example\n")
    spack.mirrors(spack.home / "second", "mirrors:\n  a: https://second.example\n  c: https://second.example\n")
    spack.mirrors(spack.user, "mirrors:\n  b: https://user.example\n")
    config = read_configuration()
    assert {m.name: m.url for m in config.mirrors} == {
        "a": "https://first.example", "b": "https://user.example", "c": "https://second.example"}
    assert config.problems == []


def test_an_environment_with_mirrors_override_drops_the_inherited_ones(spack: SpackEnv) -> None:
    spack.mirrors(spack.user, "mirrors:\n  inherited: https://user.example\n")
    environment = spack.home / "env"
    spack.write(environment / "spack.yaml", """\
        spack:
          include: [local.yaml]
          mirrors::
            mine: https://env.example
        """)
    spack.write(environment / "local.yaml", "mirrors:\n  included: https://included.example\n")
    spack.setenv("SPACK_ENV", str(environment))
    assert _urls() == {"mine": "https://env.example"}


def test_a_mirror_override_replaces_rather_than_merges(spack: SpackEnv) -> None:
    spack.mirrors(spack.user, "mirrors:\n  m: {url: https://user.example, binary: false}\n")
    spack.mirrors(spack.root / "etc" / "spack", "mirrors:\n  m::\n    url: https://spack.example\n")
    (mirror,) = read_configuration().mirrors
    assert mirror.url == "https://spack.example" and mirror.binary
    spack.mirrors(spack.root / "etc" / "spack", "mirrors:\n  m:\n    url: https://spack.example\n")
    (mirror,) = read_configuration().mirrors
    assert mirror.url == "https://spack.example" and not mirror.binary  # merged: binary: false stays


def test_url_string_fetch_and_push_forms(spack: SpackEnv, tmp_path: Path) -> None:
    spack.mirrors(spack.user, """\
        mirrors:
          plain: https://plain.example/m
          with-url: {url: https://url.example/m}
          split:
            fetch: https://fetch.example/m
            push: https://push.example/m
          split-dicts:
            url: https://top.example/m
            fetch: {url: https://fetch2.example/m}
            push: {url: https://push2.example/m}
          local: ~/mirror
          file: file:///srv/mirror
        """)
    urls = _urls()
    assert urls["plain"] == "https://plain.example/m" and urls["with-url"] == "https://url.example/m"
    assert urls["split"] == "https://fetch.example/m" and urls["split-dicts"] == "https://fetch2.example/m"
    assert urls["local"] == f"file://{spack.home}/mirror" and urls["file"] == "file:///srv/mirror"


def test_access_pairs_in_every_form(spack: SpackEnv) -> None:
    spack.setenv("OCI_USER", "robot")
    spack.setenv("OCI_TOKEN", "tok-secret")
    spack.mirrors(spack.user, """\
        mirrors:
          variables:
            url: oci://ghcr.io/a/b
            access_pair: {id_variable: OCI_USER, secret_variable: OCI_TOKEN}
          literal-id:
            url: oci://ghcr.io/a/c
            fetch: {access_pair: {id: someone, secret_variable: OCI_TOKEN}}
          old-list:
            url: oci://ghcr.io/a/d
            push: {access_pair: [old-user, old-secret]}
          unset:
            url: oci://ghcr.io/a/e
            access_pair: {id_variable: OCI_USER, secret_variable: NOT_SET}
        """)
    config = read_configuration()
    credentials = {m.name: m.credentials for m in config.mirrors}
    assert credentials == {"variables": Credentials("robot", "tok-secret"), "literal-id": Credentials("someone", "tok-secret"),
                           "old-list": Credentials("old-user", "old-secret"), "unset": None}
    (warning,) = config.problems
    assert "$NOT_SET is not set" in warning.reason
    assert "tok-secret" not in repr(config) and "old-secret" not in repr(config)


@pytest.mark.parametrize(
    "text",
    ["mirrors: [not, a, mapping]\n", "mirrors:\n  m: {url: [1]}\n", "mirrors: {m: &a x, n: *a}\n", "mirrors: {\n",
     "\xff\n"],
    ids=["list", "no-url", "alias", "invalid", "binary"],
)
def test_a_broken_file_is_one_problem_and_the_other_scopes_still_count(spack: SpackEnv, text: str) -> None:
    spack.mirrors(spack.root / "etc" / "spack", "mirrors:\n  good: https://good.example\n")
    (spack.user / "mirrors.yaml").parent.mkdir(parents=True)
    (spack.user / "mirrors.yaml").write_bytes(text.encode("latin-1"))
    config = read_configuration()
    assert "good" in {m.name for m in config.mirrors}
    assert len(config.problems) == 1 and "\n" not in config.problems[0].reason


def test_spack_mirror_names_are_checked_before_anything_loads(spack: SpackEnv) -> None:
    spack.mirrors(spack.user, "mirrors:\n  bin: https://bin.example\n  src: {url: https://src.example, binary: false}\n")
    assert recognise("spack-mirrors:bin").only == frozenset({"bin"})
    with pytest.raises(UnusableInput, match="no mirror named 'nope'.*bin, src"):
        recognise("spack-mirrors:nope")
    with pytest.raises(UnusableInput, match="source mirror"):
        recognise("spack-mirrors:src")


def test_no_binary_mirror_at_all_is_a_usage_error(spack: SpackEnv, capsys: pytest.CaptureFixture[str]) -> None:
    spack.mirrors(spack.user, "mirrors:\n  src: {url: https://src.example, binary: false}\n")
    assert main(["check", "--spack-mirrors"]) == 2
    assert "no binary mirror" in capsys.readouterr().err


# -- loading them ------------------------------------------------------------------------------------------------


def test_binary_mirrors_load_under_their_names_and_source_mirrors_are_never_contacted(
        spack: SpackEnv, mirror_server: MirrorServer) -> None:
    v3_mirror(mirror_server.root / "v3", index_bytes(DB8))
    v3_mirror(mirror_server.root / "sources", index_bytes(DB7))
    spack.mirrors(spack.user, f"""\
        mirrors:
          site-cache: {mirror_server.at("v3")}
          sources:
            url: {mirror_server.at("sources")}
            binary: false
        """)
    corpus = load_corpus(["spack-mirrors:"])
    assert corpus.report.problems == [] and corpus.tags == ["site-cache"]
    assert not [r for r in mirror_server.requests if "sources" in r]
    assert corpus.origins[mirror_server.at("v3")].configured


def test_a_private_s3_mirror_is_one_line_and_the_public_bucket_is_read_over_https(spack: SpackEnv) -> None:
    from cachetui.core.load.sources.mirror import Net
    from cachetui.core.load.sources.spack_config import SpackMirrors, configured_groups

    spack.mirrors(spack.user, """\
        mirrors:
          private: {url: s3://my-bucket/cache, access_pair: {id_variable: A, secret_variable: B}}
          signed-public: {url: s3://spack-binaries/develop, profile: work}
          public: s3://spack-binaries/develop
          gcs: gs://bucket/cache
        """)
    groups, problems = configured_groups(SpackMirrors(), Net())
    assert [(g.tag, g.origin) for g in groups] == [("public", "https://binaries.spack.io/develop")]
    assert groups[0].listing == "s3://spack-binaries/develop"  # dated from its bucket's listing, as if named
    assert [p.path for p in problems] == ["s3://my-bucket/cache", "s3://spack-binaries/develop", "gs://bucket/cache"]
    assert all("not supported" in p.reason and "\n" not in p.reason for p in problems)


def test_a_view_reads_its_own_index(spack: SpackEnv, mirror_server: MirrorServer) -> None:
    root = mirror_server.root / "m"
    checksum = v3_mirror(root, index_bytes(DB7))
    view = root / "v3" / "manifests" / "index" / "gpu"
    view.mkdir()
    (root / "v3" / "manifests" / "index" / "index.manifest.json").rename(view / "index.manifest.json")
    spack.mirrors(spack.user, f"mirrors:\n  m: {{url: {mirror_server.at('m')}, view: gpu}}\n")
    corpus = load_corpus(["spack-mirrors:m"])
    assert corpus.report.problems == [] and corpus.n_specs == len(expected_records(index_bytes(DB7)))
    assert any(checksum in r for r in mirror_server.requests)


def test_registry_credentials_from_a_mirror_config(spack: SpackEnv, capsys: pytest.CaptureFixture[str]) -> None:
    spack.setenv("OCI_USER", "robot")
    spack.setenv("OCI_TOKEN", "s3cr3t-t0ken")
    with serve_registry(auth="bearer", users={"robot": "s3cr3t-t0ken"}, private={"team/cache"}) as registry:
        registry.push_index("team/cache", index_bytes(DB8))
        spack.mirrors(spack.user, f"""\
            mirrors:
              team:
                url: oci+http://{registry.host}/team/cache
                access_pair: {{id_variable: OCI_USER, secret_variable: OCI_TOKEN}}
            """)
        assert main(["check", "--spack-mirrors", "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["tags"] == 1 and "s3cr3t-t0ken" not in out + err
    token_request = next(r for r in registry.log if r.path.startswith("/token"))
    assert token_request.headers["Authorization"].startswith("Basic ")


def test_a_basic_registry_with_credentials(spack: SpackEnv) -> None:
    spack.setenv("OCI_TOKEN", "pw")
    with serve_registry(auth="basic", users={"me": "pw"}) as registry:
        registry.push_index("team/cache", index_bytes(DB7), compress=True)
        spack.mirrors(spack.user, f"mirrors:\n  team: {{url: oci+http://{registry.host}/team/cache, "
                                  "access_pair: {id: me, secret_variable: OCI_TOKEN}}\n")
        corpus = load_corpus(["spack-mirrors:"])
    assert corpus.report.problems == [] and corpus.tags == ["team"]
    assert not registry.requests_to("/token")


# -- done when: as a new user would try it -----------------------------------------------------------------------


def _user_setup(spack: SpackEnv, registry_host: str, http_url: str, sources_url: str) -> None:
    spack.mirrors(spack.user, f"""\
        mirrors:
          team-oci:
            url: oci+http://{registry_host}/team/buildcache
            signed: false
            access_pair: {{id_variable: TEAM_USER, secret_variable: TEAM_TOKEN}}
          site-v3: {http_url}
          spack-sources:
            url: {sources_url}
            binary: false
        """)
    spack.setenv("TEAM_USER", "ci-bot")


@pytest.mark.parametrize("right", [True, False], ids=["right-credentials", "wrong-credentials"])
def test_done_when(spack: SpackEnv, mirror_server: MirrorServer, capsys: pytest.CaptureFixture[str],
                   right: bool) -> None:
    secret = "ghp_S3CRET_value_never_shown"
    v3_mirror(mirror_server.root / "site", index_bytes(DB7))
    v3_mirror(mirror_server.root / "sources", index_bytes(DB7))
    spack.setenv("TEAM_TOKEN", secret if right else "wrong-" + secret)
    with serve_registry(auth="bearer", users={"ci-bot": secret}, private={"team/buildcache"}) as registry:
        registry.push_index("team/buildcache", index_bytes(DB8))
        _user_setup(spack, registry.host, mirror_server.at("site"), mirror_server.at("sources"))
        code = main(["check", "--spack-mirrors", "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert secret not in out + err
    assert not [r for r in mirror_server.requests if "sources" in r]
    if right:
        assert code == 0 and report["tags"] == 2 and report["errors"] == []
        assert report["specs"] == len(expected_records(index_bytes(DB8))) + len(expected_records(index_bytes(DB7)))
    else:
        (error,) = report["errors"]
        assert code == 1 and report["tags"] == 1  # the other mirror still loads
        assert error["path"] == f"oci+http://{registry.host}/team/buildcache"
        assert error["reason"] == "denied: the registry refused the credentials configured for it"
    cache = Path(os.environ["XDG_CACHE_HOME"])
    assert all(secret.encode() not in p.read_bytes() for p in cache.rglob("*") if p.is_file())


# -- offline: cachetui's copy, or Spack's ------------------------------------------------------------------------


def _spack_cache(directory: Path, key: str, index: bytes, mtime: float) -> Path:
    """`<misc_cache>/indices` as Spack writes it: contents.json, and the index as downloaded."""
    checksum = hashlib.sha256(index).hexdigest()
    name = f"{hashlib.sha256(key.encode()).hexdigest()[:10]}_{checksum[:10]}.json"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(index)
    os.utime(directory / name, (mtime, mtime))
    (directory / "contents.json").write_text(json.dumps({key: {"index_hash": checksum, "index_path": name,
                                                               "etag": None}}))
    return directory / name


@pytest.mark.parametrize("moved", ["default", "SPACK_USER_CACHE_PATH", "misc_cache"])
def test_offline_spack_s_copy_is_offered_with_its_date(spack: SpackEnv, tmp_path: Path, moved: str) -> None:
    with serve_registry() as registry:
        url = f"oci+http://{registry.host}/team/buildcache"
    # The registry is gone; Spack downloaded its index on 2026-01-02.
    saved = time.mktime((2026, 1, 2, 12, 0, 0, 0, 0, 0)) - time.timezone
    if moved == "default":
        indices = spack.home / ".spack" / "cache" / "indices"
    elif moved == "SPACK_USER_CACHE_PATH":
        spack.setenv("SPACK_USER_CACHE_PATH", str(tmp_path / "user-cache"))
        indices = tmp_path / "user-cache" / "cache" / "indices"
    else:
        spack.write(spack.user / "config.yaml", f"config:\n  misc_cache: {tmp_path}/misc\n")
        indices = tmp_path / "misc" / "indices"
    copy = _spack_cache(indices, f"{url}__v3", index_bytes(DB8), saved)
    before = copy.read_bytes(), copy.stat().st_mtime
    spack.mirrors(spack.user, f"mirrors:\n  team: {url}\n")
    corpus = load_corpus(["spack-mirrors:"], cache=CorpusCache())
    assert corpus.report.errors == [] and corpus.n_specs == 6
    (warning,) = corpus.report.warnings
    assert "offline copy from 2026-01-02 12:00 UTC" in warning.reason and "Spack's cache" in warning.reason
    label = f"{url} (offline copy from 2026-01-02 12:00 UTC)"
    assert {d.path for d in corpus.documents} == {label}
    assert all("offline copy from 2026-01-02" in d.generation for d in corpus.documents)
    assert corpus.origins[label].configured
    assert (copy.read_bytes(), copy.stat().st_mtime) == before  # Spack's cache is never written


def test_offline_the_newest_copy_wins_and_a_tampered_one_is_not_used(spack: SpackEnv, mirror_server) -> None:  # noqa: ANN001
    v3_mirror(mirror_server.root / "m", index_bytes(DB8))
    url = mirror_server.at("m")
    spack.mirrors(spack.user, f"mirrors:\n  m: {url}\n")
    load_corpus(["spack-mirrors:"], cache=CorpusCache())  # cachetui keeps its own copy (today)
    indices = spack.home / ".spack" / "cache" / "indices"
    _spack_cache(indices, f"{url}__v3", index_bytes(DB7), time.time() - 86400 * 3)
    corpus = _offline(url)
    assert "cachetui's cache" in corpus.report.warnings[-1].reason and corpus.n_specs == 6
    # Spack's copy is newer but altered: it is not used.
    copy = _spack_cache(indices, f"{url}__v3", index_bytes(DB7), time.time() + 60)
    copy.write_bytes(index_bytes(DB7) + b" ")
    corpus = _offline(url)
    assert corpus.n_specs == 6 and any("does not have the sha256" in w.reason for w in corpus.report.warnings)


def _offline(url: str):  # noqa: ANN202
    """Load while the mirror refuses connections (every other request goes through)."""
    import unittest.mock

    from cachetui.core.load.sources import transport

    real = transport._read_http

    def refused(location: str, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if location.startswith(url):
            raise transport.FetchError(location, "connection refused")
        return real(location, *args, **kwargs)

    with unittest.mock.patch.object(transport, "_read_http", refused):
        return load_corpus(["spack-mirrors:"], cache=CorpusCache())


def test_a_password_in_a_mirror_url_is_never_shown(spack: SpackEnv, capsys: pytest.CaptureFixture[str]) -> None:
    spack.mirrors(spack.user, """\
        mirrors:
          bad-oci: oci://robot:pa55word@ghcr.io:notaport/x
          bad-s3: s3://key:pa55word@my-bucket/cache
          ok: https://good.example/m
        """)
    from cachetui.core.load.sources.mirror import Net
    from cachetui.core.load.sources.spack_config import SpackMirrors, configured_groups

    groups, problems = configured_groups(SpackMirrors({"bad-oci", "bad-s3"}), Net())
    assert groups == [] and len(problems) == 2
    assert all("pa55word" not in p.path + p.reason for p in problems)
    with pytest.raises(UnusableInput) as raised:
        recognise("oci://robot:pa55word@ghcr.io:x/y")
    assert "pa55word" not in str(raised.value)


def test_spack_s_own_include_yaml_does_not_read_a_scope_twice_or_out_of_turn(spack: SpackEnv, tmp_path: Path) -> None:
    """`$SPACK_ROOT/etc/spack/include.yaml` (Spack 1.x) names user, site and system: they keep their places."""
    spack.write(spack.root / "etc" / "spack" / "include.yaml", """\
        include:
          - name: "user"
            path_override_env_var: SPACK_USER_CONFIG_PATH
            path: "~/.spack"
            optional: true
            prefer_modify: true
            when: '"SPACK_DISABLE_LOCAL_CONFIG" not in env'
          - name: "site"
            path: "$spack/etc/spack/site"
            optional: true
          - name: "system"
            path_override_env_var: SPACK_SYSTEM_CONFIG_PATH
            path: "/etc/spack"
            optional: true
            when: '"SPACK_DISABLE_LOCAL_CONFIG" not in env'
        """)
    spack.mirrors(spack.user, "mirrors:\n  m: https://user.example\n")
    spack.mirrors(spack.root / "etc" / "spack" / "site", "mirrors:\n  m: https://site.example\n")
    moved = tmp_path / "moved"
    spack.mirrors(moved, "mirrors:\n  other: https://moved.example\n")
    config = read_configuration()
    assert {m.name: m.url for m in config.mirrors} == {"m": "https://user.example"} and config.problems == []
    spack.setenv("SPACK_USER_CONFIG_PATH", str(moved))
    assert _urls() == {"other": "https://moved.example", "m": "https://site.example"}
    spack.setenv("SPACK_DISABLE_LOCAL_CONFIG", "1")
    assert _urls() == {"m": "https://site.example"}


def test_every_command_takes_the_configured_mirrors(spack: SpackEnv, mirror_server: MirrorServer,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    v3_mirror(mirror_server.root / "old", index_bytes(DB7))
    v3_mirror(mirror_server.root / "new", index_bytes(DB8))
    spack.mirrors(spack.user, f"mirrors:\n  old: {mirror_server.at('old')}\n  new: {mirror_server.at('new')}\n")
    assert main(["diff", "old", "new", "--spack-mirrors", "--format", "json", "--no-cache"]) == 1
    assert json.loads(capsys.readouterr().out)["old"] == "old"
    assert main(["query", "--spack-mirror", "new", "--format", "json", "--no-cache"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["tag"] for r in rows} == {"new"} and len(rows) == len(expected_records(index_bytes(DB8)))
    assert main(["query", "--spack-mirror", "nope"]) == 2
    assert "no mirror named 'nope'" in capsys.readouterr().err
