"""OpenPGP cleartext-signed text (RFC 9580 §7) read for what it says, unverified: a `.spec.json.sig`
the user wants, a mirror's signed record or key index. Checking the signature is provenance's job."""

from __future__ import annotations

CLEARSIGNED = b"-----BEGIN PGP SIGNED MESSAGE-----"
SIGNATURE_START = b"-----BEGIN PGP SIGNATURE-----"


def is_clearsigned(record: bytes) -> bool:
    return record.lstrip().startswith(CLEARSIGNED)


def cleartext(record: bytes) -> bytes:
    """The text a clearsigned record carries (dash-escaping undone), unverified: to read what it says."""
    head, _, rest = record.lstrip().partition(b"\n\n")
    if not rest and b"\r\n\r\n" in record:
        head, _, rest = record.lstrip().partition(b"\r\n\r\n")
    body = rest.split(SIGNATURE_START, 1)[0]
    lines = [line[2:] if line.startswith(b"- ") else line for line in body.splitlines()]
    return b"\n".join(lines)
