"""OpenPGP cleartext-signed text (RFC 9580 §7) read for what it says, unverified: a `.spec.json.sig`
the user wants, a mirror's signed record or key index. Checking the signature is provenance's job.

The signature starts at the first line that is exactly its armour line: the signed text may hold
that line too, dash-escaped (`- -----BEGIN PGP SIGNATURE-----`), and that one is text.
"""

from __future__ import annotations

import re

CLEARSIGNED = b"-----BEGIN PGP SIGNED MESSAGE-----"
SIGNATURE_START = b"-----BEGIN PGP SIGNATURE-----"
SIGNATURE_END = b"-----END PGP SIGNATURE-----"
_SIGNATURE_LINE = re.compile(rb"^-----BEGIN PGP SIGNATURE-----[ \t]*\r?$", re.MULTILINE)


def is_clearsigned(record: bytes) -> bool:
    return record.lstrip().startswith(CLEARSIGNED)


def armour_headers(record: bytes) -> list[tuple[bytes, bytes]]:
    """The armour headers between the opening line and the blank line (`Hash: SHA512`), as (name, value)."""
    head = _split(record)[0]
    headers = []
    for line in head.splitlines()[1:]:
        name, colon, value = line.partition(b":")
        if colon:
            headers.append((name.strip(), value.strip()))
    return headers


def signature_block(record: bytes) -> bytes | None:
    """The armoured signature that follows the text; None when there is none."""
    found = _SIGNATURE_LINE.search(record)
    if found is None:
        return None
    end = record.find(SIGNATURE_END, found.start())
    return record[found.start() : end + len(SIGNATURE_END)] if end >= 0 else None


def cleartext(record: bytes) -> bytes:
    """The text a clearsigned record carries (dash-escaping undone), unverified: to read what it says."""
    body = _split(record)[1]
    lines = [line[2:] if line.startswith(b"- ") else line for line in body.splitlines()]
    return b"\n".join(lines)


def _split(record: bytes) -> tuple[bytes, bytes]:
    """The armour head (opening line and headers) and the dash-escaped text before the signature."""
    record = record.lstrip()
    head, _, rest = record.partition(b"\n\n")
    if not rest and b"\r\n\r\n" in record:
        head, _, rest = record.partition(b"\r\n\r\n")
    found = _SIGNATURE_LINE.search(rest)
    return head, rest[: found.start()] if found is not None else rest
