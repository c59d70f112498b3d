"""Who signed a binary, whether its signed record verifies, and how much an install downloads.

Read lazily, per binary, from the mirror it was loaded from (see `book.Provenance`); never installs
anything, and needs no `gpg` or `gpgv` (Sequoia verifies, see `signature`).
"""

from cachetui.core.load.provenance.book import (
    FETCH_AT_ONCE,
    KEPT,
    BinaryProvenance,
    ClosureDownload,
    Provenance,
    closure_download,
)
from cachetui.core.load.provenance.keys import MAX_KEY_BYTES, MAX_KEYS
from cachetui.core.load.provenance.records import MAX_RECORD_BYTES
from cachetui.core.load.provenance.signature import (
    BAD,
    OUTCOMES,
    UNCHECKED,
    UNKNOWN_KEY,
    UNSIGNED,
    VERIFIED,
    Signature,
)
from cachetui.core.load.provenance.trusted import spack_gnupg_home, trusted_fingerprints

__all__ = [
    "BAD",
    "FETCH_AT_ONCE",
    "KEPT",
    "MAX_KEYS",
    "MAX_KEY_BYTES",
    "MAX_RECORD_BYTES",
    "OUTCOMES",
    "UNCHECKED",
    "UNKNOWN_KEY",
    "UNSIGNED",
    "VERIFIED",
    "BinaryProvenance",
    "ClosureDownload",
    "Provenance",
    "Signature",
    "closure_download",
    "spack_gnupg_home",
    "trusted_fingerprints",
]
