"""Spack DAG hashes: 32 characters of lowercase base32."""

from __future__ import annotations

import re

HASH_LENGTH = 32
SHORT_LENGTH = 7  # what `spack find -l` prints
_VALID = re.compile(r"[a-z2-7]{32}")


def is_valid_hash(text: str) -> bool:
    return _VALID.fullmatch(text) is not None


def short_hash(text: str) -> str:
    return text[:SHORT_LENGTH]
