"""Spack DAG hashes: 32 characters of lowercase base32, and the 7 that `spack find -l` prints."""

from __future__ import annotations

from collections.abc import Sequence

HASH_LENGTH = 32
SHORT_LENGTH = 7  # what `spack find -l` prints
BASE32 = b"abcdefghijklmnopqrstuvwxyz234567"  # Spack's alphabet: RFC 4648 base32, lowercase


def is_base32(text: str) -> bool:
    """Some characters, all of Spack's hash alphabet (what may follow `/` in a spec)."""
    return bool(text) and not text.encode("utf-8", "surrogatepass").translate(None, BASE32)


def is_valid_hash(text: str) -> bool:
    return len(text) == HASH_LENGTH and is_base32(text)


def all_valid_hashes(hashes: Sequence[str]) -> bool:
    """Every one a valid hash, checked at C speed over the whole list (a document's hashes at once)."""
    if not hashes:
        return True
    return set(map(len, hashes)) == {HASH_LENGTH} and is_base32("".join(hashes))


def short_hash(text: str) -> str:
    return text[:SHORT_LENGTH]


def hash_reference(text: str) -> str:
    """A binary named by its hash prefix in spec syntax (`/abc1234`), as users type and paste it."""
    return "/" + short_hash(text)
