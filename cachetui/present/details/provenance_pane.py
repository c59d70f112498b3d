"""The details pane's provenance section, in rows of words: one binary's signature, signer, size and download.

Pure (no Textual, no Rich): the app styles each row by its `tone`. The facts and their words are the
ones `cachetui verify` prints (`present/output/provenance.py`), so the pane and the CLI cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from cachetui.core.load import BinaryProvenance, ClosureDownload, Signature
from cachetui.core.load.provenance import BAD, UNKNOWN_KEY, UNSIGNED, VERIFIED
from cachetui.core.spack.hashes import hash_reference
from cachetui.present.format import human_size
from cachetui.present.output.provenance import closure_words, expiry_cell, signature_words

CHECKING = "checking signature…"
COUNTING = "counting what it downloads…"


@dataclass(frozen=True)
class PaneProvenance:
    """What is known so far of one binary's provenance: nothing yet, its record, then its closure too."""

    binary: BinaryProvenance | None = None  # None: still being fetched
    closure: ClosureDownload | None = None  # None: still being counted
    failure: str = ""  # the fetch itself failed (one line): the binary is `unchecked`, for this reason

    @property
    def complete(self) -> bool:
        """Nothing more to fetch: the record and its closure, or a failure."""
        return bool(self.failure) or (self.binary is not None and self.closure is not None)

    @property
    def signature(self) -> Signature | None:
        if self.failure:
            return Signature.unchecked(self.failure)
        return None if self.binary is None else self.binary.signature


PENDING = PaneProvenance()

# What a row's tone says: the app gives each its colour.
GOOD, WARN, FAIL, QUIET, PLAIN = "good", "warn", "fail", "quiet", ""
_TONES = {VERIFIED: GOOD, UNSIGNED: WARN, UNKNOWN_KEY: FAIL, BAD: FAIL}


@dataclass(frozen=True)
class Row:
    label: str
    value: str
    tone: str = PLAIN


def provenance_rows(shown: PaneProvenance, hash_: str) -> list[Row]:
    """The section's rows for the binary of hash `hash_`: what is known, and what is still being fetched."""
    signature = shown.signature
    if signature is None:
        return [Row("signed", CHECKING, QUIET)]
    if signature.outcome == VERIFIED:  # who signed, and their key on a row of its own: a fingerprint wraps badly
        rows = [Row("signed", f"{VERIFIED}: {signature.user_id or 'no user ID'}", GOOD),
                Row("key", signature.signer or "-")]
        if signature.expires is not None:
            rows.append(Row("expires", expiry_cell(signature), WARN if signature.expired else PLAIN))
    else:  # the one line `verify`'s readers see
        rows = [Row("signed", signature_words(signature), _TONES.get(signature.outcome, WARN))]
    binary = shown.binary
    if binary is None:  # the fetch failed: nothing else is known
        return rows
    if binary.size is not None:
        rows.append(Row("tarball", human_size(binary.size)))
    else:  # a record that does not verify says nothing worth repeating, its size included
        rows.append(Row("tarball", "size not shown: its record is bad" if signature.outcome == BAD
                        else "size not published", QUIET))
    # When it was pushed is said with what it is (`present.details.pushed.pushed_line`), once.
    if shown.closure is None:
        rows.append(Row("download", COUNTING, QUIET))
    else:
        rows.append(Row("download", f"{closure_words(shown.closure)} (spack install {hash_reference(hash_)})"))
    return rows


def signer_trusted(signature: Signature | None, trusted: frozenset[str] | None) -> bool:
    """Whether the user's Spack already trusts the key that signed: only then is the key-trust line not needed.

    `trusted` None is "cannot tell" (no gpg, or a served session): the line stays, as it does for every
    outcome but a verified one.
    """
    if signature is None or signature.outcome != VERIFIED or signature.signer is None or trusted is None:
        return False
    return signature.signer.upper() in trusted
