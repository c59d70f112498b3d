"""Provenance: signed records read as Spack lays them out, verified with keys the tests make, sizes, closures.

Mirrors come from tests/signed_mirror.py (layout v3 and v2, on disk and on a loopback server).
No test needs `gpg` or `gpgv`: one runs `cachetui verify` with a PATH that has neither.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pysequoia
import pytest
from pysequoia.packet import PacketPile, Tag

from cachetui.cli.main import main
from cachetui.core.load import Provenance, load_corpus, sample_path
from cachetui.core.load.provenance import MAX_RECORD_BYTES
from cachetui.core.model.corpus import Corpus
from tests.dag_mirror import hash_of
from tests.mirrors import serve
from tests.signed_mirror import ARCH, COMPILER, EXPIRED, RECORDS, Keys, tarball, tarball_sizes, write_both


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory: pytest.TempPathFactory, keys: Keys) -> dict[str, Path]:
    return write_both(tmp_path_factory.mktemp("signed"), keys)


@pytest.fixture(scope="module")
def server(mirrors: dict[str, Path]) -> Iterator:
    servers = serve(next(iter(mirrors.values())).parent)
    yield next(servers)
    servers.close()


def _where(mirrors: dict[str, Path], server: object, layout: str, over: str) -> str:
    return server.at(layout) if over == "http" else str(mirrors[layout])  # type: ignore[attr-defined]


def _spec(corpus: Corpus, name: str) -> int:
    (spec,) = corpus.occurrences(hash_of(name))
    return spec


def _key_ids(cert: object) -> set[str]:
    return {p.key_id.upper() for p in PacketPile.from_bytes(bytes(cert)) if p.tag in (Tag.PublicKey, Tag.PublicSubkey)}


@pytest.mark.parametrize("over", ["disk", "http"])
@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_each_binary_gets_the_outcome_signer_and_size_its_record_calls_for(
        mirrors: dict[str, Path], server: object, keys: Keys, layout: str, over: str) -> None:
    corpus = load_corpus([_where(mirrors, server, layout, over)])
    assert corpus.report.errors == []
    provenance = Provenance(corpus, timeout=10)
    got = {name: provenance.binary(_spec(corpus, name)) for name, (_, held, _, _) in RECORDS.items() if held}
    published = keys.cert.fingerprint.upper()
    for name in ("app", "zlib", "libc3", "tool", "lacks"):
        signature = got[name].signature
        assert (signature.outcome, signature.signer, signature.user_id, signature.expires) == \
            ("verified", published, "Test Cache <cache@example.org>", None)
        assert got[name].size == len(tarball(name))
    assert got["plain"].signature.outcome == "unsigned" and got["plain"].size == len(tarball("plain"))
    assert got["tampered"].signature.outcome == "bad" and got["tampered"].size is None
    foreign = got["foreign"].signature
    assert foreign.outcome == "unknown-key" and foreign.signer in _key_ids(keys.stranger.extract_certificate())
    assert foreign.signer not in _key_ids(keys.cert)
    gone = got["gone"]
    assert gone.signature.outcome == "unchecked" and "no signed record" in gone.signature.reason and gone.size is None
    swapped = got["swapped"]  # zlib's good record filed as swapped's: it counts for zlib only, and so does its size
    assert (swapped.signature.outcome, swapped.signature.reason, swapped.size) == \
        ("bad", f"a signed record of zlib@1.3/{hash_of('zlib')[:7]}", None)


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_a_good_signature_by_a_key_since_expired_is_verified_with_its_expiry(
        mirrors: dict[str, Path], keys: Keys, layout: str) -> None:
    corpus = load_corpus([str(mirrors[layout])])
    old = Provenance(corpus).binary(_spec(corpus, "old"))
    expired = keys.expired_cert
    assert old.signature.outcome == "verified" and old.signature.signer == expired.fingerprint.upper()
    assert old.signature.expired
    assert old.signature.expires == expired.expiration.isoformat().replace("+00:00", "Z")


def test_the_signer_is_the_primary_key_though_a_signing_subkey_signed(mirrors: dict[str, Path], keys: Keys) -> None:
    record = (mirrors["v3"] / "v3" / "manifests" / "spec" / "app" / f"app-1.0-{hash_of('app')}.spec.manifest.json")
    text = record.read_bytes()
    start = text.index(b"-----BEGIN PGP SIGNATURE-----")
    issuer = pysequoia.Sig.from_bytes(text[start:]).issuer_fingerprint
    assert issuer != keys.cert.fingerprint  # a subkey signed it, as Spack's official key does
    corpus = load_corpus([str(mirrors["v3"])])
    assert Provenance(corpus).binary(_spec(corpus, "app")).signature.signer == keys.cert.fingerprint.upper()


def test_a_missing_manifest_is_unchecked_never_unsigned(tmp_path: Path, mirrors: dict[str, Path]) -> None:
    root = shutil.copytree(mirrors["v3"], tmp_path / "m")
    (root / "v3" / "manifests" / "spec" / "plain" / f"plain-1.0-{hash_of('plain')}.spec.manifest.json").unlink()
    corpus = load_corpus([str(root)])
    plain = Provenance(corpus).binary(_spec(corpus, "plain"))
    assert plain.signature.outcome == "unchecked" and plain.size is None


@pytest.mark.parametrize("over", ["disk", "http"])
def test_a_record_over_the_cap_is_refused_unread(mirror_server: object, mirrors: dict[str, Path], over: str) -> None:
    root = shutil.copytree(mirrors["v3"], mirror_server.root / "m")  # type: ignore[attr-defined]
    (root / "v3" / "manifests" / "spec" / "plain" / f"plain-1.0-{hash_of('plain')}.spec.manifest.json").write_bytes(
        b" " * (MAX_RECORD_BYTES + 1))
    corpus = load_corpus([mirror_server.at("m") if over == "http" else str(root)])  # type: ignore[attr-defined]
    plain = Provenance(corpus).binary(_spec(corpus, "plain"))
    assert plain.signature.outcome == "unchecked" and "cap" in plain.signature.reason


def test_a_published_key_that_does_not_parse_leaves_its_records_unchecked(tmp_path: Path, mirrors: dict[str, Path],
                                                                           keys: Keys) -> None:
    root = shutil.copytree(mirrors["v2"], tmp_path / "m")
    (root / "build_cache" / "_pgp" / f"{keys.cert.fingerprint.upper()}.pub").write_text("not a key")
    corpus = load_corpus([str(root)])
    app = Provenance(corpus).binary(_spec(corpus, "app"))
    assert app.signature.outcome == "unchecked" and "does not parse" in app.signature.reason


def test_malformed_armour_is_bad(tmp_path: Path, mirrors: dict[str, Path]) -> None:
    root = shutil.copytree(mirrors["v3"], tmp_path / "m")
    record = root / "v3" / "manifests" / "spec" / "zlib" / f"zlib-1.3-{hash_of('zlib')}.spec.manifest.json"
    head, _, _ = record.read_bytes().partition(b"-----BEGIN PGP SIGNATURE-----")
    record.write_bytes(head + b"-----BEGIN PGP SIGNATURE-----\n\n!!!!\n-----END PGP SIGNATURE-----\n")
    corpus = load_corpus([str(root)])
    zlib = Provenance(corpus).binary(_spec(corpus, "zlib"))
    assert zlib.signature.outcome == "bad" and "armour" in zlib.signature.reason


def test_binaries_from_site_documents_are_unchecked() -> None:
    corpus = load_corpus([sample_path()])
    sample = Provenance(corpus).binary(0)
    assert sample.signature.outcome == "unchecked" and "site documents" in sample.signature.reason


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_the_closure_of_a_binary_with_three_dependencies_downloads_the_four_tarballs(
        mirrors: dict[str, Path], layout: str) -> None:
    corpus = load_corpus([str(mirrors[layout])])
    download = Provenance(corpus).closure(_spec(corpus, "app"))
    assert {b.package for b in download.binaries} == {"app", "zlib", "libc3", "tool"}  # cmake is build only
    assert download.size == tarball_sizes("app", "zlib", "libc3", "tool")
    assert download.not_held == 0 and download.binaries[0].package == "app"


def test_a_closure_counts_the_records_no_source_holds(mirrors: dict[str, Path]) -> None:
    corpus = load_corpus([str(mirrors["v3"])])
    download = Provenance(corpus).closure(_spec(corpus, "lacks"))
    assert (download.count, download.not_held, download.size) == (1, 1, len(tarball("lacks")))


def test_a_closure_takes_each_hash_from_the_first_source_named(mirrors: dict[str, Path]) -> None:
    corpus = load_corpus([f"second={mirrors['v2']}", f"first={mirrors['v3']}"])
    download = Provenance(corpus).closure(_spec_in(corpus, "app", "first"))
    assert [b.tag for b in download.binaries[1:]] == ["second"] * 3  # named first on the command line


def _spec_in(corpus: Corpus, name: str, tag: str) -> int:
    return next(i for i in corpus.occurrences(hash_of(name)) if corpus.spec(i).tag == tag)


def test_a_binary_is_read_once_per_run(mirrors: dict[str, Path], server: object) -> None:
    corpus = load_corpus([server.at("v3")])  # type: ignore[attr-defined]
    provenance = Provenance(corpus)
    provenance.binary(_spec(corpus, "app"))
    before = len(server.requests)  # type: ignore[attr-defined]
    again = provenance.binary(_spec(corpus, "app"))
    assert len(server.requests) == before and again.signature.outcome == "verified"  # type: ignore[attr-defined]


def test_a_v2_size_is_the_tarballs_size_over_http(mirrors: dict[str, Path], server: object) -> None:
    corpus = load_corpus([server.at("v2")])  # type: ignore[attr-defined]
    Provenance(corpus).binary(_spec(corpus, "tool"))
    tarball_path = f"/v2/build_cache/{ARCH}/{COMPILER}/tool-2.1/{ARCH}-{COMPILER}-tool-2.1-{hash_of('tool')}.spack"
    assert f"HEAD {tarball_path}" in server.requests  # type: ignore[attr-defined]
    assert tarball_path not in server.requests  # type: ignore[attr-defined]  # never downloaded


# -- cachetui verify ---------------------------------------------------------------------------------------


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, object, str]:
    code = main(["verify", "--no-cache", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if "json" in args else out, err


def test_verify_needs_no_gpg_on_the_path(mirrors: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it: no gpg, no gpgv
    assert shutil.which("gpg") is None and shutil.which("gpgv") is None
    code, rows, _ = _verify(capsys, str(mirrors["v3"]), "--spec", "app", "--closure", "--format", "json")
    assert code == 0
    assert sorted(r["package"] for r in rows) == ["app", "libc3", "tool", "zlib"]  # type: ignore[attr-defined]
    assert {r["signature"] for r in rows} == {"verified"}  # type: ignore[attr-defined]


def test_verify_lists_one_row_per_binary_and_source_with_the_contract_fields(
        mirrors: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, _ = _verify(capsys, str(mirrors["v3"]), str(mirrors["v2"]), "--spec", "foreign", "--format", "json")
    assert code == 1  # not every binary is verified
    assert sorted((r["tag"], r["signature"]) for r in rows) == [("v2", "unknown-key"), ("v3", "unknown-key")]  # type: ignore[attr-defined]
    for row in rows:  # type: ignore[attr-defined]
        assert {"hash", "package", "tag", "signature", "signer", "expires", "size"} <= set(row)
        assert row["size"] == len(tarball("foreign")) and row["expires"] is None


def test_verify_says_unknown_values_with_the_nearest_and_prints_an_empty_list(
        mirrors: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, err = _verify(capsys, str(mirrors["v3"]), "--spec", "zlb", "--format", "json")
    assert (code, rows) == (1, []) and "zlib" in err


def test_verify_with_nothing_matched_is_exit_1(mirrors: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, rows, _ = _verify(capsys, str(mirrors["v3"]), "--spec", "zlib@9", "--format", "json")
    assert (code, rows) == (1, [])


def test_verify_table_shows_each_outcome(mirrors: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _verify(capsys, str(mirrors["v2"]))
    assert code == 1
    lines = {line.split()[0]: line for line in str(out).splitlines()[1:]}
    assert " bad " in lines["tampered"] and " unsigned " in lines["plain"] and " unchecked " in lines["gone"]
    assert "(expired)" in lines["old"] and " verified " in lines["old"]


def test_verify_usage_errors_are_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["verify", "--format", "csv"])
    assert exit_.value.code == 2
    capsys.readouterr()


@pytest.mark.parametrize("name", ["old.spec.manifest.json", "old.spec.json.sig"])
def test_the_committed_expired_records_are_the_ones_the_mirror_describes(name: str) -> None:
    from tests.signed_mirror import old_manifest, old_v2_spec

    signed = (EXPIRED / name).read_bytes()
    verified = pysequoia.verify(bytes=signed, store=lambda _ids: [_expired_cert()]).bytes
    text = old_manifest() if name.endswith("manifest.json") else old_v2_spec()
    assert verified is not None and verified.rstrip(b"\n") == text.rstrip(b"\n")


def _expired_cert() -> object:
    return pysequoia.Cert.from_bytes((EXPIRED / "expired-key.asc").read_bytes())


# -- OCI: never signed; the size of the image's last layer, the push date from its config -------------------


def _push_spec_image(registry: object, repository: str, name: str, version: str, config: bytes,
                     layers: list[bytes]) -> None:
    import hashlib

    def digest(data: bytes) -> str:
        return "sha256:" + hashlib.sha256(data).hexdigest()

    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": digest(config),
                           "size": len(config)},
                "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": digest(layer),
                            "size": len(layer)} for layer in layers]}
    tag = f"{name}-{version}-{hash_of(name)}.spack"  # as Spack tags a binary's image
    registry.manifests.setdefault(repository, {})[tag] = json.dumps(manifest).encode()  # type: ignore[attr-defined]
    blobs = registry.blobs.setdefault(repository, {})  # type: ignore[attr-defined]
    blobs[digest(config)] = config
    for layer in layers:
        blobs[digest(layer)] = layer


def test_an_oci_binary_is_unsigned_with_its_last_layers_size_and_its_push_date() -> None:
    from tests.dag_mirror import index as dag_index
    from tests.registry import serve_registry
    from tests.signed_mirror import RECORDS as DAG

    with serve_registry(auth="bearer") as registry:
        registry.push_index("builds/cache", json.dumps(dag_index(DAG)).encode())
        config = json.dumps({"architecture": "amd64", "archive_timestamp": "2026-01-02T03:04:05+00:00"}).encode()
        _push_spec_image(registry, "builds/cache", "zlib", "1.3", config, [b"base layer", tarball("zlib")])
        corpus = load_corpus([f"oci+http://{registry.host}/builds/cache"])
        provenance = Provenance(corpus, timeout=10)
        zlib = provenance.binary(_spec(corpus, "zlib"))
        gone = provenance.binary(_spec(corpus, "tool"))
    expected = ("unsigned", len(tarball("zlib")), "2026-01-02T03:04:05Z")
    assert (zlib.signature.outcome, zlib.size, zlib.pushed) == expected
    assert gone.signature.outcome == "unchecked" and gone.size is None  # no image: nothing could be read


# -- the keys the user's Spack trusts: read from a copy, the GnuPG home left as it was ---------------------


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(root.rglob("*"))}


def test_spacks_trusted_keys_are_read_and_its_gnupg_home_is_left_byte_for_byte(tmp_path: Path, keys: Keys) -> None:
    import subprocess

    from cachetui.core.load import trusted_fingerprints

    home = tmp_path / "gpg"
    home.mkdir(mode=0o700)
    (tmp_path / "key.asc").write_text(str(keys.cert))
    subprocess.run(["gpg", "--homedir", str(home), "--batch", "--import", str(tmp_path / "key.asc")],
                   check=True, capture_output=True)
    subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"], check=False, capture_output=True)
    (home / "trustdb.gpg").unlink()  # gpg opening this home in place would write a new one
    before = _tree(home)
    assert trusted_fingerprints(str(home)) == {keys.cert.fingerprint.upper()}
    assert _tree(home) == before


def test_without_gpg_which_keys_spack_trusts_cannot_be_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cachetui.core.load import trusted_fingerprints

    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "gpg-home").mkdir()
    assert trusted_fingerprints(str(tmp_path / "gpg-home")) is None


def test_a_cache_that_publishes_no_key_index_publishes_no_key(tmp_path: Path, mirrors: dict[str, Path]) -> None:
    root = shutil.copytree(mirrors["v3"], tmp_path / "m")
    (root / "v3" / "manifests" / "key" / "keys.manifest.json").unlink()
    corpus = load_corpus([str(root)])
    assert Provenance(corpus).binary(_spec(corpus, "app")).signature.outcome == "unknown-key"


def test_a_key_blob_that_does_not_match_its_checksum_leaves_records_unchecked(
        tmp_path: Path, mirrors: dict[str, Path], keys: Keys) -> None:
    root = shutil.copytree(mirrors["v3"], tmp_path / "m")
    manifest = root / "v3" / "manifests" / "key" / f"{keys.cert.fingerprint.upper()}.key.manifest.json"
    checksum = json.loads(manifest.read_text())["data"][0]["checksum"]
    blob = root / "blobs" / "sha256" / checksum[:2] / checksum
    blob.write_bytes(blob.read_bytes().replace(b"\n", b"\r\n", 1))
    corpus = load_corpus([str(root)])
    app = Provenance(corpus).binary(_spec(corpus, "app"))
    assert app.signature.outcome == "unchecked" and "checksum mismatch" in app.signature.reason


def test_a_name_that_would_leave_the_mirror_is_never_looked_for(tmp_path: Path, mirrors: dict[str, Path]) -> None:
    from cachetui.core.load.provenance.records import Binary, read_record
    from cachetui.core.load.provenance.signature import Keyring

    outside = tmp_path / "secret.spec.manifest.json"
    outside.write_text('{"version": 3, "data": []}')
    binary = Binary("../../../secret", "1.0", hash_of("zlib"))
    reading = read_record(binary, str(mirrors["v3"]), "v3", Keyring, 5)
    assert reading.signature.outcome == "unchecked" and reading.record is None


def test_a_record_spack_signed_with_gpg_verifies_under_spacks_own_file_name(tmp_path: Path) -> None:
    """Spack's own test mirror: the name cachetui looks for is the one Spack wrote, and Sequoia reads gpg's
    signature by an RSA primary key (no subkey) with its expiry."""
    real = Path(__file__).parent / "fixtures" / "provenance" / "spack-v2-signed"
    fixture = Path(__file__).parent / "fixtures" / "mirrors" / "db-v8-eaf9828b" / "v2_layout" / "signed"
    root = shutil.copytree(fixture, tmp_path / "signed")
    for record in real.glob("*.spec.json.sig"):
        shutil.copy(record, root / "build_cache" / record.name)
    (root / "build_cache" / "_pgp").mkdir()
    for key in real.glob("*.pub"):
        shutil.copy(key, root / "build_cache" / "_pgp" / key.name)
    (root / "build_cache" / "_pgp" / "index.json").write_text(json.dumps({"keys": {key.stem: {} for key in
                                                                                   real.glob("*.pub")}}))
    corpus = load_corpus([str(root)])
    (libelf,) = corpus.occurrences("rqh2vuf6fqwkmipzgi2wjx352mq7y7ez")
    found = Provenance(corpus).binary(libelf)
    signature = found.signature
    assert (signature.outcome, signature.signer, signature.user_id, signature.expires) == \
        ("verified", "CBAB2C1032C6FF5078049EC0FA61D50C12CAD37E", "Spack <spack@spack.spack>", "2028-05-15T18:38:14Z")
    assert found.size is None  # the fixture has no .spack tarball: its size is unknown, not 0


@pytest.mark.parametrize("sizes, said", [
    ((1000, 2000), "2 binaries, 3.0 kB"),
    ((1000, None), "2 binaries, at least 1.0 kB (1 size unknown)"),
    ((None,), "1 binary, size unknown"),
    ((None, None), "2 binaries, sizes unknown"),
])
def test_a_closure_whose_sizes_nobody_published_is_said_unknown_never_at_least_0_bytes(sizes, said):
    from cachetui.core.load import ClosureDownload
    from cachetui.present.output.provenance import closure_words

    known = [s for s in sizes if s is not None]
    download = ClosureDownload(binaries=tuple(object() for _ in sizes),  # type: ignore[misc]
                               size=sum(known) if len(known) == len(sizes) else None, known_size=sum(known),
                               sizes_unknown=len(sizes) - len(known), not_held=0)
    assert closure_words(download) == said
