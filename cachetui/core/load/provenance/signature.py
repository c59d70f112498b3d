"""Whether a clearsigned record verifies against the keys its cache publishes, in Python (no `gpg` or `gpgv`).

Sequoia (`pysequoia`) checks the signature. The signature's issuer is read first, so that a key the
cache does not publish (`unknown-key`, naming its key ID) is told apart from text that changed since
it was signed (`bad`). Signing subkeys count: Spack's official binaries are signed by a subkey of the
key the cache publishes, and the signer shown is the primary key (its fingerprint and user ID). A good
signature by a key that has since expired is `verified`, with its expiry beside it, as gpg says "Good
signature ... [expired]": Sequoia checks that the key was alive when it signed.

A signature is `bad` when gpg would not count it, each with its own reason (`docs/provenance.md`
lists them): its key or signing subkey is revoked, it was made after the key expired, or the
armour's `Hash:` header names another digest than the signature used (Sequoia ignores the header;
gpg refuses the record). Whether the signed text is about the binary it is filed under is the
record's question (`records.py`), not the signature's.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from cachetui.core.load.sources.clearsigned import armour_headers, signature_block

VERIFIED, UNSIGNED, BAD, UNKNOWN_KEY, UNCHECKED = "verified", "unsigned", "bad", "unknown-key", "unchecked"
OUTCOMES = (VERIFIED, UNSIGNED, BAD, UNKNOWN_KEY, UNCHECKED)

MAX_CERTS_PER_FILE = 8  # a key file holds one certificate as Spack writes it (`gpg --export` of one key)
_HEX_ID = re.compile(r"[0-9a-fA-F]{16}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")


@dataclass(frozen=True)
class Signature:
    """A signed record's outcome, with who signed it and when that key expires (facts beside the outcome)."""

    outcome: str  # one of OUTCOMES
    signer: str | None = None  # verified, and bad where a published key signed: the primary key's fingerprint;
    # unknown-key: the key ID the signature names
    user_id: str | None = None  # verified: the primary key's user ID
    expires: str | None = None  # the signing key's expiry, ISO 8601 (UTC); None when it never expires or is unknown
    expired: bool | None = None  # verified: that expiry has passed (the signature was made before it); else None
    reason: str = ""  # bad and unchecked: why, in one line

    @classmethod
    def unchecked(cls, reason: str) -> Signature:
        return cls(UNCHECKED, reason=" ".join(reason.split()))


@dataclass(frozen=True)
class PublishedKey:
    """One key a cache publishes: its primary key, and the fingerprints and key IDs of it and its subkeys."""

    fingerprint: str  # the primary key's, uppercase hex
    user_id: str | None
    cert: Any = field(repr=False, compare=False)  # a pysequoia.Cert
    expiries: dict[str, dt.datetime | None] = field(repr=False, compare=False, default_factory=dict)
    # lowercase fingerprint and key ID of the primary key and of each subkey -> that key's own expiry
    revoked: frozenset[str] = frozenset()  # the same names, of the keys a revocation signature covers

    def holds(self, issuer: str) -> bool:
        return issuer.lower() in self.expiries

    def revokes(self, issuer: str) -> bool:
        """Whether the (sub)key that signed, or the primary key above it, is revoked."""
        return bool({issuer.lower(), self.fingerprint.lower()} & self.revoked)

    def expiry_of(self, issuer: str) -> dt.datetime | None:
        """When the (sub)key that signed stops being valid: its own expiry or its primary key's, the sooner."""
        found = [e for e in (self.expiries.get(issuer.lower()), self.expiries.get(self.fingerprint.lower()))
                 if e is not None]
        return min(found) if found else None


@dataclass(frozen=True)
class Keyring:
    """The keys a cache publishes, and the ones it lists that could not be read (one line each)."""

    keys: tuple[PublishedKey, ...] = ()
    unreadable: tuple[str, ...] = ()

    def holding(self, issuer: str) -> PublishedKey | None:
        return next((key for key in self.keys if key.holds(issuer)), None)


class KeyUnreadable(Exception):
    """A published key that does not parse as an OpenPGP certificate."""


def read_keys(data: bytes, where: str = "one key file") -> tuple[list[PublishedKey], list[str]]:
    """The certificates in an armoured (or binary) key file as keys, and one line for each that signs nothing
    (see `published_key`); KeyUnreadable when the file holds no certificate at all."""
    certs, problems = read_certs(data, where)
    return publish(certs, problems)


def read_certs(data: bytes, where: str = "one key file") -> tuple[dict[str, Any], list[str]]:
    """The file's certificates by fingerprint (at most MAX_CERTS_PER_FILE read), copies of one merged; KeyUnreadable
    when it holds none."""
    import pysequoia

    try:
        certs = pysequoia.Cert.split_bytes(data)
    except Exception as exc:  # noqa: BLE001 - Sequoia raises RuntimeError for any malformed input
        raise KeyUnreadable(first_line(exc)) from None
    if not certs:
        raise KeyUnreadable("no OpenPGP key in it")
    merged: dict[str, Any] = {}
    problems: list[str] = []
    for cert in certs[:MAX_CERTS_PER_FILE]:
        merge_into(merged, cert, problems)
    if len(certs) > MAX_CERTS_PER_FILE:
        problems.append(f"{len(certs)} certificates in {where}; only the first {MAX_CERTS_PER_FILE} are read")
    return merged, problems


def merge_into(merged: dict[str, Any], cert: Any, problems: list[str]) -> None:
    """`cert` added to `merged` by fingerprint: a second copy of a key is merged into the first, never dropped,
    since it may carry what the first lacks (a revocation, a newer binding)."""
    fingerprint = cert.fingerprint.upper()
    if fingerprint not in merged:
        merged[fingerprint] = cert
        return
    try:
        merged[fingerprint] = merged[fingerprint].merge(cert)
    except Exception as exc:  # noqa: BLE001 - Sequoia refuses what it cannot merge
        problems.append(f"key {fingerprint}: two copies that cannot be merged ({first_line(exc)})")


def publish(certs: dict[str, Any], problems: list[str]) -> tuple[list[PublishedKey], list[str]]:
    """Each certificate as a key, and one more line for each that signs nothing."""
    keys = []
    for fingerprint, cert in certs.items():
        try:
            keys.append(published_key(cert))
        except KeyUnreadable as exc:
            problems.append(f"key {fingerprint}: {exc}")
    return keys, problems


def published_key(cert: Any) -> PublishedKey:
    """One certificate as a PublishedKey; KeyUnreadable when Sequoia finds no valid binding signature for it now
    (a bare key packet, a SHA-1 self-signature, a key created in the future): such a key signs nothing."""
    try:
        return _published(cert)
    except Exception as exc:  # noqa: BLE001 - Sequoia raises RuntimeError for a key its policy refuses
        raise KeyUnreadable(f"no valid binding signature ({first_line(exc)})") from None


def _published(cert: Any) -> PublishedKey:
    from pysequoia.packet import PacketPile, SignatureType, Tag

    expiries: dict[str, dt.datetime | None] = {}
    revoked: set[str] = set()
    current: tuple[str, str, dt.datetime | None] | None = None  # fingerprint, key ID, creation
    newest: dict[str, dt.datetime] = {}  # per subkey, the creation of the binding signature read so far
    for packet in PacketPile.from_bytes(bytes(cert)):
        if packet.tag in (Tag.PublicKey, Tag.PublicSubkey):
            current = (packet.fingerprint or "", packet.key_id or "", packet.key_created)
            expiries[current[0]] = expiries[current[1]] = None
        elif packet.tag == Tag.Signature and current is not None \
                and packet.signature_type == SignatureType.SubkeyRevocation:
            revoked.update(current[:2])
        elif (packet.tag == Tag.Signature and current is not None and current[2] is not None
              and packet.signature_type == SignatureType.SubkeyBinding):
            made = packet.signature_created or current[2]
            if current[0] in newest and newest[current[0]] > made:
                continue  # a later binding signature already said when this subkey expires
            newest[current[0]] = made
            period = packet.key_validity_period
            expiries[current[0]] = expiries[current[1]] = current[2] + period if period else None
    fingerprint = cert.fingerprint.upper()
    expiries[fingerprint.lower()] = expiries[fingerprint.lower()[-16:]] = cert.expiration
    if cert.is_revoked:  # Sequoia checks the revocation signature of the primary key itself
        revoked.update((fingerprint.lower(), fingerprint.lower()[-16:]))
    user_ids = [str(uid) for uid in cert.user_ids]
    return PublishedKey(fingerprint, user_ids[0] if user_ids else None, cert, expiries, frozenset(revoked))


def verify(record: bytes, keyring: Keyring, now: dt.datetime | None = None) -> tuple[Signature, bytes | None]:
    """A clearsigned record's outcome against `keyring`, and the text the signature covers when it verified."""
    import pysequoia

    sig = _signature(record)
    issuer = sig.issuer if sig is not None else None
    if sig is None or issuer is None:
        return Signature(BAD, reason="the signature's armour is malformed"), None
    key = keyring.holding(issuer)
    if key is None:
        if keyring.unreadable:
            return Signature.unchecked(f"signed by key {_key_id(issuer)}, and a key the cache publishes could not "
                                       f"be read: {keyring.unreadable[0]}"), None
        return Signature(UNKNOWN_KEY, signer=_key_id(issuer),
                         reason="signed by a key the cache does not publish"), None
    refused = _hash_header_refused(record, sig)
    if refused:
        return Signature(BAD, reason=refused), None
    try:
        result = pysequoia.verify(bytes=record, store=lambda _ids: [key.cert])
        signing_key = str(getattr(result.valid_sigs[0], "signing_key", issuer)) if result.valid_sigs else None
    except Exception:  # noqa: BLE001 - Sequoia raises RuntimeError whatever failed
        result, signing_key = None, None
    # gpg says "Good signature" of these and then counts them out; Sequoia refuses them outright. Either way
    # the text may be intact: the reason says which rule refused it, never "the text changed".
    expiry = key.expiry_of(signing_key or issuer)
    if key.revokes(signing_key or issuer):
        return Signature(BAD, signer=key.fingerprint, reason="key revoked"), None
    if expiry is not None and sig.created is not None and sig.created > expiry:
        return Signature(BAD, signer=key.fingerprint, reason=f"signed after the key expired on {iso(expiry)}"), None
    if result is None:
        return Signature(BAD, reason="does not verify: the text changed since it was signed, or the signature "
                                     "is damaged"), None
    if not result.valid_sigs:
        return Signature(BAD, reason="does not verify"), None
    moment = now or dt.datetime.now(dt.timezone.utc)
    return Signature(VERIFIED, signer=key.fingerprint, user_id=key.user_id, expires=iso(expiry),
                     expired=expiry is not None and expiry <= moment), result.bytes


@dataclass(frozen=True)
class _Sig:
    """What verify reads of a signature packet, read once where its parse is guarded."""

    issuer: str | None  # the fingerprint (else the key ID) it names, lowercase
    created: dt.datetime | None
    hash_algorithm: str  # pysequoia's HashAlgorithm member name ("SHA512")


def _signature(record: bytes) -> _Sig | None:
    """The record's signature packet, read; None when its armour or any field Sequoia reads does not parse."""
    import pysequoia

    block = signature_block(record)
    if block is None:
        return None
    try:
        sig = pysequoia.Sig.from_bytes(block)
        issuer = sig.issuer_fingerprint or sig.issuer_key_id
        return _Sig(issuer.lower() if issuer and _HEX_ID.fullmatch(issuer) else None, sig.created,
                    str(sig.hash_algorithm).rsplit(".", 1)[-1])
    except Exception:  # noqa: BLE001 - Sequoia raises RuntimeError for any field it cannot read (an unknown digest)
        return None


def _hash_header_refused(record: bytes, sig: _Sig) -> str:
    """Why the armour's `Hash:` headers contradict the signature's digest (gpg refuses such a record); empty
    when they name it, or when there is none (RFC 9580 makes the header optional)."""
    named = [part.strip().upper().decode("ascii", "replace") for name, value in armour_headers(record)
             if name.lower() == b"hash" for part in value.split(b",")]
    used = _HASH_NAMES.get(sig.hash_algorithm)
    if not named or used in named:
        return ""
    return f"the armour's Hash header says {', '.join(named)[:40]}, the signature used {used or 'another digest'}"


# pysequoia's HashAlgorithm member -> the name an armour Hash header gives it (RFC 9580 §6.2.2.3)
_HASH_NAMES = {"MD5": "MD5", "SHA1": "SHA1", "RipeMD": "RIPEMD160", "SHA224": "SHA224", "SHA256": "SHA256",
               "SHA384": "SHA384", "SHA512": "SHA512", "SHA3_256": "SHA3-256", "SHA3_512": "SHA3-512"}


def _key_id(issuer: str) -> str:
    """A key ID as gpg prints it: the last 16 hex digits of a fingerprint, uppercase."""
    return issuer[-16:].upper()


def iso(moment: dt.datetime | None) -> str | None:
    """A moment as ISO 8601 in UTC, `Z` for the zone."""
    if moment is None:
        return None
    return moment.astimezone(dt.timezone.utc).isoformat().replace("+00:00", "Z")


def first_line(exc: BaseException) -> str:
    """An error's first line, cut: Sequoia's messages go on with a Rust backtrace."""
    return next(iter(str(exc).splitlines()), type(exc).__name__)[:200]
