"""A signature counts only for the binary it names, with gpg's reasons; one bad key costs only itself.

Mirrors come from tests/signed_mirror.py; keys that pysequoia cannot make (a revoked signing subkey,
a key from the future, a SHA-1 self-signature) were made by gpg once, by
tests/fixtures/provenance/make_refused_keys.py, and are committed.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pysequoia
import pytest
from pysequoia.packet import PacketPile

from cachetui.cli.main import main
from cachetui.core.load import Provenance, load_corpus
from cachetui.core.load.provenance import keys as key_reading
from cachetui.core.load.provenance.keys import MAX_KEY_BYTES, MAX_KEYS_BYTES, published_keys
from cachetui.core.load.provenance.signature import Keyring, read_keys, verify
from cachetui.core.load.provenance.named import named_by, names_other
from cachetui.core.load.sources.clearsigned import cleartext
from tests.dag_mirror import hash_of
from tests.signed_mirror import ARCH, COMPILER, EXPIRED, RECORDS, Keys, clearsign, write_both

CLEAR = pysequoia.SignatureMode.CLEAR


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys()


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory: pytest.TempPathFactory, keys: Keys) -> dict[str, Path]:
    return write_both(tmp_path_factory.mktemp("trust"), keys)


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict], str]:
    code = main(["verify", "--no-cache", *args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def _keyring(cert: object) -> Keyring:
    found, problems = read_keys(str(cert).encode())
    assert problems == []
    return Keyring(tuple(found))


def _v2_copy(mirrors: dict[str, Path], tmp_path: Path) -> Path:
    return Path(shutil.copytree(mirrors["v2"], tmp_path / "v2"))


def _publish_v2(root: Path, certs: dict[str, bytes]) -> None:
    """The v2 mirror's published keys replaced by `certs` (fingerprint -> key file bytes)."""
    pgp = root / "build_cache" / "_pgp"
    for old in pgp.iterdir():
        old.unlink()
    for fingerprint, data in certs.items():
        (pgp / f"{fingerprint}.pub").write_bytes(data)
    (pgp / "index.json").write_text(json.dumps({"keys": dict.fromkeys(certs, {})}))


# -- 1. a record about another binary --------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_zlibs_signed_record_copied_over_anothers_is_bad_in_verifys_json_and_table(
        mirrors: dict[str, Path], capsys: pytest.CaptureFixture[str], layout: str) -> None:
    code, rows, _ = _verify(capsys, str(mirrors[layout]), "--spec", "swapped")
    said = f"a signed record of zlib@1.3/{hash_of('zlib')[:7]}"
    assert code == 1
    assert [(r["package"], r["signature"], r["reason"], r["size"], r["expired"]) for r in rows] == \
        [("swapped", "bad", said, None, None)]
    assert main(["verify", "--no-cache", str(mirrors[layout]), "--spec", "swapped"]) == 1
    (row,) = capsys.readouterr().out.splitlines()[1:]
    assert " bad " in row and row.rstrip().endswith(said)


def _spec_blob_of(record: Path) -> str:
    checksum = next(e["checksum"] for e in json.loads(cleartext(record.read_bytes()))["data"] if "spec" in e["mediaType"])
    return f"blobs/sha256/{checksum[:2]}/{checksum}"


def _v3_record(root: Path, name: str) -> Path:
    version = RECORDS[name][0]
    return root / "v3" / "manifests" / "spec" / name / f"{name}-{version}-{hash_of(name)}.spec.manifest.json"


@pytest.mark.parametrize("swapped", [False, True])
def test_a_v3_record_whose_spec_blob_is_gone_is_unchecked_with_no_size(mirrors: dict[str, Path], tmp_path: Path,
                                                                        swapped: bool) -> None:
    """Its own record, or zlib's copied over it: which binary it is about is unknown, so is whose size it gives."""
    root = Path(shutil.copytree(mirrors["v3"], tmp_path / "v3"))
    name = "swapped" if swapped else "zlib"
    (root / _spec_blob_of(_v3_record(root, name))).unlink()
    corpus = load_corpus([str(root)])
    (spec,) = corpus.occurrences(hash_of(name))
    found = Provenance(corpus).binary(spec)
    assert (found.signature.outcome, found.size) == ("unchecked", None)
    assert found.signature.reason.startswith("which binary the signed record is about cannot be read: its spec blob")


def test_a_signed_record_that_names_no_binary_is_bad(mirrors: dict[str, Path], keys: Keys, tmp_path: Path) -> None:
    root = _v2_copy(mirrors, tmp_path)
    record = root / "build_cache" / f"{ARCH}-{COMPILER}-zlib-1.3-{hash_of('zlib')}.spec.json.sig"
    record.write_bytes(clearsign(keys.published, b'{"spec": {"nodes": []}}'))
    corpus = load_corpus([str(root)])
    (zlib,) = corpus.occurrences(hash_of("zlib"))
    found = Provenance(corpus).binary(zlib)
    assert (found.signature.outcome, found.size) == ("bad", None)
    assert found.signature.reason.startswith("a signed record that names no binary")


@pytest.mark.parametrize("root_node, filed_as", [
    ({"name": "zlib", "version": "1.3", "hash": "b" * 32}, ("zlib", "1.3", "a" * 32)),  # a rebuild: hash alone
    ({"name": "zlib", "version": "1.3.1", "hash": "a" * 32}, ("zlib", "1.3", "a" * 32)),  # version alone
    ({"name": "zlib", "version": "==1.3", "hash": "a" * 32}, ("zlib", "1.3", "a" * 32)),  # one `=` is Spack's
    ({"name": "zlib-ng", "version": "1.3", "hash": "a" * 32}, ("zlib", "1.3", "a" * 32)),  # name alone
])
def test_a_record_naming_another_binary_in_any_one_part_names_another(root_node: dict, filed_as: tuple) -> None:
    named = named_by(json.dumps({"spec": {"_meta": {"version": 5}, "nodes": [root_node]}}).encode())
    assert named is not None and names_other(*filed_as, named)
    same = named_by(json.dumps({"spec": {"nodes": [{**root_node, **dict(zip(("name", "version", "hash"),
                                                                                 ("zlib", "=1.3", "a" * 32)))}]}}).encode())
    assert same is not None and not names_other(*filed_as, same)


def test_a_record_naming_a_huge_package_is_said_cut(keys: Keys, mirrors: dict[str, Path], tmp_path: Path) -> None:
    root = _v2_copy(mirrors, tmp_path)
    record = root / "build_cache" / f"{ARCH}-{COMPILER}-zlib-1.3-{hash_of('zlib')}.spec.json.sig"
    huge = {"spec": {"nodes": [{"name": "z" * 100_000, "version": "1", "hash": hash_of("zlib")}]}}
    record.write_bytes(clearsign(keys.published, json.dumps(huge).encode()))
    corpus = load_corpus([str(root)])
    (zlib,) = corpus.occurrences(hash_of("zlib"))
    reason = Provenance(corpus).binary(zlib).signature.reason
    assert reason.startswith("a signed record of zzz") and len(reason) < 200 and "(100000 characters)" in reason


# -- 2. the reason says what happened ----------------------------------------------------------------------


def test_a_revoked_key_is_bad_key_revoked_never_the_text_changed(mirrors: dict[str, Path], keys: Keys,
                                                                   tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    revoked = keys.cert.merge(pysequoia.Cert.from_bytes(bytes(keys.cert) + bytes(keys.cert.revoke(
        keys.published.certifier()))))
    assert revoked.is_revoked
    root = _v2_copy(mirrors, tmp_path)
    _publish_v2(root, {keys.cert.fingerprint.upper(): str(revoked).encode()})
    code, rows, _ = _verify(capsys, str(root), "--spec", "zlib")
    assert code == 1
    assert [(r["signature"], r["reason"], r["signer"], r["expired"]) for r in rows] == \
        [("bad", "key revoked", keys.cert.fingerprint.upper(), None)]


def test_a_revoked_signing_subkey_is_bad_key_revoked() -> None:
    """gpg says "Good signature" of this record and then "This subkey has been revoked by its owner"."""
    found, problems = read_keys((EXPIRED / "revoked-subkey.asc").read_bytes())
    assert problems == []
    signature, text = verify((EXPIRED / "revoked-subkey.sig").read_bytes(), Keyring(tuple(found)))
    assert (signature.outcome, signature.reason, text) == ("bad", "key revoked", None)


def test_a_signature_made_after_the_key_expired_is_bad_naming_the_date() -> None:
    key = pysequoia.Tsk.generate("Late <late@example.org>")  # Sequoia dates a new key a minute back
    record = bytes(pysequoia.sign(key.signer(), b"{}\n", mode=CLEAR))
    signed_at = pysequoia.Sig.from_bytes(record[record.index(b"-----BEGIN PGP SIGNATURE"):]).created
    expiry = signed_at - dt.timedelta(seconds=30)
    cert = key.extract_certificate().set_expiration(expiry, key.certifier())
    signature, text = verify(record, _keyring(cert))
    said = expiry.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")
    assert (signature.outcome, signature.reason, text) == ("bad", f"signed after the key expired on {said}", None)


def test_a_hash_header_that_contradicts_the_signatures_digest_is_bad(keys: Keys) -> None:
    record = clearsign(keys.published, b"{}\n")
    assert b"Hash: SHA512\n" in record  # what Sequoia signs with
    good, _ = verify(record, _keyring(keys.cert))
    lying, text = verify(record.replace(b"Hash: SHA512\n", b"Hash: SHA256\n"), _keyring(keys.cert))
    assert good.outcome == "verified"
    assert (lying.outcome, lying.reason, text) == \
        ("bad", "the armour's Hash header says SHA256, the signature used SHA512", None)
    listed, _ = verify(record.replace(b"Hash: SHA512\n", b"Hash: SHA256, SHA512\n"), _keyring(keys.cert))
    assert listed.outcome == "verified"  # a header may list several digests


def test_a_signed_text_holding_a_dash_escaped_armour_line_verifies_and_reads_whole(keys: Keys) -> None:
    text = b'{"note":\n-----BEGIN PGP SIGNATURE-----\n"x"}\n'
    record = clearsign(keys.published, text)
    assert b"\n- -----BEGIN PGP SIGNATURE-----\n" in record  # dash-escaped by the signer
    signature, verified_text = verify(record, _keyring(keys.cert))
    assert signature.outcome == "verified" and verified_text == text
    assert cleartext(record).rstrip(b"\n") == text.rstrip(b"\n")


def _with_unknown_digest(record: bytes) -> bytes:
    """The record with its signature packet's hash algorithm byte set to one no standard names (202)."""
    start = record.index(b"-----BEGIN PGP SIGNATURE-----")
    packet = bytearray(bytes(pysequoia.Sig.from_bytes(record[start:])))
    assert packet[0] == 0xC2 and packet[2] == 4  # a new-format signature packet, one length byte, version 4
    packet[5] = 202
    return record[:start] + pysequoia.armor(bytes(packet), pysequoia.ArmorKind.Signature).encode()


def test_a_signature_naming_an_unknown_digest_costs_only_its_record(mirrors: dict[str, Path], keys: Keys,
                                                                    tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Sequoia raises reading such a field: that record is bad, and every other one is still checked."""
    root = _v2_copy(mirrors, tmp_path)
    record = root / "build_cache" / f"{ARCH}-{COMPILER}-zlib-1.3-{hash_of('zlib')}.spec.json.sig"
    record.write_bytes(_with_unknown_digest(record.read_bytes()))
    code, rows, err = _verify(capsys, str(root), "--spec", "app", "--closure")
    assert code == 1 and "Traceback" not in err
    assert {r["package"]: r["signature"] for r in rows} == \
        {"app": "verified", "zlib": "bad", "libc3": "verified", "tool": "verified"}


def test_a_second_copy_of_a_key_is_merged_never_dropped(mirrors: dict[str, Path], keys: Keys, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The key file holds the key, then the same key with its revocation: the revocation counts."""
    revoked = keys.cert.merge(pysequoia.Cert.from_bytes(bytes(keys.cert) + bytes(keys.cert.revoke(
        keys.published.certifier()))))
    root = _v2_copy(mirrors, tmp_path)
    _publish_v2(root, {keys.cert.fingerprint.upper(): str(keys.cert).encode() + str(revoked).encode()})
    _, rows, _ = _verify(capsys, str(root), "--spec", "zlib")
    assert [(r["signature"], r["reason"]) for r in rows] == [("bad", "key revoked")]


# -- 3. one bad key costs only itself ----------------------------------------------------------------------


def _bare_key(keys: Keys) -> bytes:
    stranger = keys.stranger.extract_certificate()
    packet = next(iter(PacketPile.from_bytes(bytes(stranger))))
    return pysequoia.armor(bytes(packet), pysequoia.ArmorKind.PublicKey).encode()


def _fingerprint_of(data: bytes) -> str:
    return pysequoia.Cert.split_bytes(data)[0].fingerprint.upper()


@pytest.mark.parametrize("bad", ["bare", "future-key.asc", "sha1-key.asc"])
def test_a_key_with_no_valid_binding_signature_is_said_once_and_the_rest_is_checked(
        mirrors: dict[str, Path], keys: Keys, tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    data = _bare_key(keys) if bad == "bare" else (EXPIRED / bad).read_bytes()
    root = _v2_copy(mirrors, tmp_path)
    _publish_v2(root, {_fingerprint_of(data): data, keys.cert.fingerprint.upper(): str(keys.cert).encode()})
    code, rows, err = _verify(capsys, str(root), "--spec", "app", "--closure")
    assert code == 0  # every listed binary was signed by the good key
    assert {r["signature"] for r in rows} == {"verified"} and len(rows) == 4
    warnings = [line for line in err.splitlines() if "published keys" in line]
    assert len(warnings) == 1 and _fingerprint_of(data) in warnings[0] and "no valid binding signature" in warnings[0]
    assert "backtrace" not in err.lower()


def test_a_published_key_that_links_out_of_the_mirror_is_refused(mirrors: dict[str, Path], keys: Keys,
                                                                 tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = _v2_copy(mirrors, tmp_path)
    outside = tmp_path / "outside.pub"
    outside.write_text(str(keys.cert))
    key = root / "build_cache" / "_pgp" / f"{keys.cert.fingerprint.upper()}.pub"
    key.unlink()
    key.symlink_to(outside)
    code, rows, err = _verify(capsys, str(root), "--spec", "zlib")
    assert code == 1 and [r["signature"] for r in rows] == ["unchecked"]
    assert "a link out of the source; not read" in rows[0]["reason"]
    assert sum("a link out of the source" in line for line in err.splitlines()) == 1


def test_a_record_that_links_out_of_the_mirror_is_not_read(mirrors: dict[str, Path], keys: Keys,
                                                           tmp_path: Path) -> None:
    root = _v2_copy(mirrors, tmp_path)
    record = root / "build_cache" / f"{ARCH}-{COMPILER}-zlib-1.3-{hash_of('zlib')}.spec.json.sig"
    outside = tmp_path / "elsewhere.sig"
    shutil.move(record, outside)
    record.symlink_to(outside)
    corpus = load_corpus([str(root)])
    (zlib,) = corpus.occurrences(hash_of("zlib"))
    signature = Provenance(corpus).binary(zlib).signature
    assert signature.outcome == "unchecked" and "a link out of the source" in signature.reason


def test_the_keys_read_from_one_cache_are_bounded_in_total(keys: Keys, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """31 one-megabyte key files of one small certificate: once 2 MB are read, the rest are said, not read."""
    cert = str(keys.cert).encode()
    filler = cert * (MAX_KEY_BYTES // len(cert))
    pgp = tmp_path / "build_cache" / "_pgp"
    pgp.mkdir(parents=True)
    names = [f"{n:040X}" for n in range(31)]
    for name in names:
        (pgp / f"{name}.pub").write_bytes(filler)
    (pgp / "index.json").write_text(json.dumps({"keys": dict.fromkeys(names, {})}))
    read: list[int] = []
    original = key_reading.fetch
    monkeypatch.setattr(key_reading, "fetch", lambda *a, **k: (f := original(*a, **k), read.append(len(f.data)))[0])
    keyring = published_keys(str(tmp_path), "v2", 5)
    assert sum(read) <= MAX_KEYS_BYTES + MAX_KEY_BYTES + 1024  # the index, and the file that crossed the line
    assert [key.fingerprint for key in keyring.keys] == [keys.cert.fingerprint.upper()]
    assert any("more keys not read" in line for line in keyring.unreadable)


# -- 4. `expired` is a fact of a verified signature only ------------------------------------------------


@pytest.mark.parametrize("layout", ["v3", "v2"])
def test_expired_is_null_for_every_value_but_verified(mirrors: dict[str, Path], capsys: pytest.CaptureFixture[str],
                                                      layout: str) -> None:
    _, rows, _ = _verify(capsys, str(mirrors[layout]))
    assert len(rows) == sum(held for _, held, _, _ in RECORDS.values())
    assert {r["signature"] for r in rows} == {"verified", "unsigned", "bad", "unknown-key", "unchecked"}
    for row in rows:
        assert (row["expired"] is None) == (row["signature"] != "verified"), row
    assert next(r for r in rows if r["package"] == "old")["expired"] is True

