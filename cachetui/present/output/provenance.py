"""Provenance in words and records: one rule for `cachetui verify` and the browser's details.

Every value a mirror wrote (user IDs, reasons naming its locations) goes out through the inert
writers (`present/output/writers.py`, `present/output/table.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TextIO

from cachetui.core.load import BinaryProvenance, ClosureDownload, Signature
from cachetui.core.load.provenance import VERIFIED
from cachetui.core.spack.hashes import hash_reference, short_hash
from cachetui.core.spack.words import counted
from cachetui.present.format import human_size
from cachetui.present.output.table import write_table
from cachetui.present.output.writers import write_json, write_lines

FORMATS = ("table", "json")
# `verify`'s table: a binary's column -> its cell (a binary's own fields, not a spec's: it names no registry field).
CELLS: dict[str, Callable[[BinaryProvenance], str]] = {
    "package": lambda b: b.package,
    "tag": lambda b: b.tag,
    "hash": lambda b: b.hash,
    "signature": lambda b: b.signature.outcome,
    "signer": lambda b: b.signature.signer or "-",
    "expires": lambda b: expiry_cell(b.signature),
    "size": lambda b: human_size(b.size),
    "note": lambda b: _note(b.signature),
}
# Cut to fit a terminal: names and words; what a binary is (its hash), its outcome, expiry and size never are.
CUT_TO_FIT = frozenset({CELLS["package"], CELLS["tag"], CELLS["signer"], CELLS["note"]})


def provenance_record(binary: BinaryProvenance) -> dict[str, Any]:
    """One binary of one source as `verify --format json` prints it."""
    signature = binary.signature
    return {
        "hash": binary.hash,
        "package": binary.package,
        "tag": binary.tag,
        "signature": signature.outcome,
        "signer": signature.signer,  # verified: the primary key's fingerprint; unknown-key: the key ID it names
        "user_id": signature.user_id,
        "expires": signature.expires,  # the signing key's expiry, ISO 8601, or null
        "expired": signature.expired,
        "reason": signature.reason or None,  # why bad or unchecked
        "size": binary.size,  # tarball bytes, or null when nobody published it
        "pushed": binary.pushed,
        "record": binary.record,
    }


def expiry_words(signature: Signature) -> str:
    """The key's expiry as a fact beside the outcome: `expired 2025-…` or `expires 2027-…`; empty when none."""
    if signature.expires is None:
        return ""
    return f"{'expired' if signature.expired else 'expires'} {signature.expires}"


def signature_words(signature: Signature) -> str:
    """The outcome in one line, with who signed and the key's expiry or the reason: what a person reads."""
    if signature.outcome == "verified":
        said = f"verified: {signature.user_id or 'no user ID'} ({signature.signer})"
    elif signature.outcome == "unknown-key":
        said = f"unknown-key: signed by key {signature.signer}, which the cache does not publish"
    elif signature.reason:
        said = f"{signature.outcome}: {signature.reason}"
    else:
        said = signature.outcome
    expiry = expiry_words(signature)
    return f"{said}; key {expiry}" if expiry else said


def closure_words(download: ClosureDownload) -> str:
    """What `spack install /HASH` downloads from the loaded caches, in one line."""
    if download.size is not None:
        size = human_size(download.size)
    elif download.sizes_unknown >= download.count:
        size = "size unknown" if download.count == 1 else "sizes unknown"  # never "at least 0 B"
    else:
        size = f"at least {human_size(download.known_size)} ({counted(download.sizes_unknown, 'size')} unknown)"
    said = f"{counted(download.count, 'binary', 'binaries')}, {size}"
    if download.not_held:
        said += f"; {counted(download.not_held, 'record')} of the closure held by no loaded source"
    if download.partial:
        said += " (counted over the closure's first records only: it is larger than cachetui walks)"
    return said


_WHOLE = tuple(i for i, cell in enumerate(CELLS.values()) if cell not in CUT_TO_FIT)


def _row(binary: BinaryProvenance, terse: bool) -> list[str]:
    """A binary's cells; `terse` (on a terminal) its hash short and its key's expiry a day, which no cut then
    makes meaningless (`2026-11-2…`)."""
    row = {column: cell(binary) for column, cell in CELLS.items()}
    if terse:
        row["hash"] = short_hash(binary.hash)
        row["expires"] = expiry_cell(binary.signature, day=True)
    return list(row.values())


def write_provenance(out: TextIO, binaries: Sequence[BinaryProvenance], fmt: str, *, width: int | None = None,
                     download: ClosureDownload | None = None, asked: Sequence[str] = ()) -> None:
    """JSON: one record per binary, in the order given. The table: those not verified first (what to look at),
    each group in that order; on a terminal (`width`), short hashes and the table fitted to it (None, piped:
    nothing is cut); then, given a closure's `download`, its total line for the hashes `asked`
    (`download_line`)."""
    if fmt == "json":
        write_json(out, [provenance_record(b) for b in binaries])
        return
    if binaries:
        ordered = sorted(binaries, key=lambda b: b.signature.outcome == VERIFIED)
        write_table(out, [list(CELLS), *(_row(b, width is not None) for b in ordered)], width=width, whole=_WHOLE)
    if download is not None:
        write_lines(out, [download_line(download, asked)])


SAID_HASHES = 3  # the hashes a download line names; past that it counts them


def download_line(download: ClosureDownload, asked: Sequence[str] = ()) -> str:
    """`download: 4 binaries, 12.3 kB (spack install /abc1234)`: what installing the hashes `asked` downloads,
    in the browser's words (`closure_words`); `asked` empty: the first binary's."""
    hashes = list(dict.fromkeys(asked)) or [b.hash for b in download.binaries[:1]]
    named = (" ".join(map(hash_reference, hashes)) if len(hashes) <= SAID_HASHES
             else f"of the {len(hashes)} hashes matched")
    return f"download: {closure_words(download)} (spack install {named})"


def expiry_cell(signature: Signature, *, day: bool = False) -> str:
    """The key's expiry as a table cell (and the details pane's row): `DATE`, `DATE (expired)` or `-`; `day`: its
    date alone (`2027-05-15`, where the record says `2027-05-15T18:38:14Z`)."""
    if signature.expires is None:
        return "-"
    expires = signature.expires.partition("T")[0] if day else signature.expires
    return f"{expires} (expired)" if signature.expired else expires


def _note(signature: Signature) -> str:
    return signature.user_id or signature.reason or ""
