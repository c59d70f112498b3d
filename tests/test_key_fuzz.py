"""Fuzzing what a cache publishes about its keys and signatures: key files, the key index, clearsigned records.

Whatever the bytes, reading them ends in a Keyring or a Signature with its reason, never an internal
error, and never costs more than the caps allow. Bounded in `make test` (the "ci" profile); `make fuzz`
runs the long profile. The first property would have found a bare key packet ending the whole run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pysequoia
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysequoia.packet import PacketPile

from cachetui.core.load.provenance.keys import MAX_KEYS, published_keys
from cachetui.core.load.provenance.signature import OUTCOMES, VERIFIED, Keyring, KeyUnreadable, read_keys, verify

KEY = pysequoia.Tsk.generate("Fuzz <fuzz@example.org>")
CERT = KEY.extract_certificate()
PACKETS = [bytes(packet) for packet in PacketPile.from_bytes(bytes(CERT))]
RECORD = bytes(pysequoia.sign(KEY.signer(), b'{"spec": {"nodes": []}}\n', mode=pysequoia.SignatureMode.CLEAR))
FUZZ = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _mutated(data: bytes) -> st.SearchStrategy[bytes]:
    """`data` with bytes changed, cut, or repeated: what a damaged or hostile file looks like."""
    flips = st.lists(st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)), max_size=6)
    return st.one_of(
        flips.map(lambda changes: bytes(_flip(bytearray(data), changes))),
        st.integers(0, len(data)).map(lambda n: data[:n]),
        st.integers(1, 40).map(lambda n: data * n),
    )


def _flip(data: bytearray, changes: list[tuple[int, int]]) -> bytearray:
    for at, value in changes:
        data[at] = value
    return data


def _armoured(packets: list[bytes]) -> bytes:
    return pysequoia.armor(b"".join(packets), pysequoia.ArmorKind.PublicKey).encode()


# Any subsequence of a real certificate's packets, in any order: a bare key, a key without its
# binding signatures, signatures without their key.
certificate_parts = st.lists(st.sampled_from(PACKETS), min_size=1, max_size=len(PACKETS) + 2).map(_armoured)
key_files = st.one_of(certificate_parts, _mutated(str(CERT).encode()), _mutated(bytes(CERT)), st.binary(max_size=256))


@FUZZ
@given(key_files)
def test_a_key_file_is_keys_and_problems_or_one_unreadable_line(data: bytes) -> None:
    try:
        keys, problems = read_keys(data)
    except KeyUnreadable as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert len(keys) <= 8 and all(isinstance(line, str) and "\n" not in line for line in problems)
    for key in keys:
        key.revokes(key.fingerprint)  # what verify asks of every key it holds
        key.expiry_of(key.fingerprint)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=50),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=45), inner, max_size=4),
    max_leaves=10,
)
fingerprints = st.from_regex(r"[0-9A-F]{40}", fullmatch=True)


@FUZZ
@given(index=st.one_of(json_values, st.dictionaries(st.just("keys"), st.dictionaries(fingerprints, json_values,
                                                                                     max_size=40))),
       files=st.lists(key_files, max_size=5))
def test_any_key_index_and_key_files_give_a_keyring_within_the_caps(tmp_path_factory, index, files) -> None:  # noqa: ANN001
    root = Path(tmp_path_factory.mktemp("keys"))
    pgp = root / "build_cache" / "_pgp"
    pgp.mkdir(parents=True)
    (pgp / "index.json").write_text(json.dumps(index))
    listed = list(index["keys"]) if isinstance(index, dict) and isinstance(index.get("keys"), dict) else []
    for name, data in zip(listed, files, strict=False):
        (pgp / f"{name}.pub").write_bytes(data)
    keyring = published_keys(str(root), "v2", 5)
    assert isinstance(keyring, Keyring) and len(keyring.keys) <= MAX_KEYS
    assert all("\n" not in line for line in keyring.unreadable)


@FUZZ
@given(_mutated(RECORD))
def test_any_record_gets_one_of_the_five_values_with_expired_only_when_verified(record: bytes) -> None:
    signature, text = verify(record, Keyring(tuple(read_keys(str(CERT).encode())[0])))
    assert signature.outcome in OUTCOMES
    assert (signature.expired is None) == (signature.outcome != VERIFIED)
    assert (text is not None) == (signature.outcome == VERIFIED)
    assert signature.outcome == VERIFIED or signature.reason


_START = RECORD.index(b"-----BEGIN PGP SIGNATURE-----")
SIGNATURE_PACKET = bytes(pysequoia.Sig.from_bytes(RECORD[_START:]))


def _rearmoured(packet: bytes) -> bytes:
    """The record with its signature packet replaced, armoured anew: the armour's checksum holds, so what is
    tried is the packet's fields (a digest, a time, an issuer no key has), not the base64 around them."""
    return RECORD[:_START] + pysequoia.armor(packet, pysequoia.ArmorKind.Signature).encode()


@FUZZ
@given(_mutated(SIGNATURE_PACKET).map(_rearmoured))
def test_any_signature_packet_gets_one_of_the_five_values(record: bytes) -> None:
    signature, text = verify(record, Keyring(tuple(read_keys(str(CERT).encode())[0])))
    assert signature.outcome in OUTCOMES and (text is not None) == (signature.outcome == VERIFIED)
