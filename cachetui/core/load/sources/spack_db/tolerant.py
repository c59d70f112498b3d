"""The tolerant reading, for a document the typed decode cannot even skip through (`NaN`, `Infinity`, a bad
byte in a key, DB 5's wrapped nodes): read whole as Spack's reader (Python's `json`) reads it, each record
mended to the typed shape, then read as the typed reading reads it, so both render a record alike."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from cachetui.core.load.sources.spack_db.faults import (
    KNOWN_VERSIONS,
    NO_SPEC,
    NOT_UTF8,
    WRONG_TYPES,
    Faults,
    IndexFormatError,
    version_problems,
)
from cachetui.core.load.sources.spack_db.shape import fits_typed_shape, mended_record
from cachetui.core.load.sources.spack_db.typed import DatabaseContent, documents, typed_rows
from cachetui.core.model.problems import Severity
from cachetui.core.spack.words import one_line


def read_tolerantly(data: bytes, origin: str, tag: str, generation: str) -> DatabaseContent:
    database, bad_bytes = _database(data)
    version = str(database.get("version", ""))
    faults = Faults(origin)
    nodes = _without_bad_bytes(database["installs"], faults) if bad_bytes else database["installs"]
    installs: dict[str, msgspec.Raw] = {}
    for hash_ in list(nodes):
        record = nodes.pop(hash_)  # each record's objects freed once mended: the tree shrinks as the bytes grow
        if not isinstance(record, dict):
            faults.not_an_object(hash_, record)
            continue
        held = record.get("in_buildcache") is True
        try:
            mended = mended_record(record)
        except UnicodeEncodeError:  # a lone surrogate escaped in the JSON: text no UTF-8 can hold
            if held:
                faults.add(hash_, NOT_UTF8)
            continue
        if mended is None:
            if held:
                faults.add(hash_, NO_SPEC)
            continue
        if held and version in KNOWN_VERSIONS and not fits_typed_shape(record):
            faults.add(hash_, WRONG_TYPES, Severity.WARNING)
        installs[str(hash_)] = mended
    rows = typed_rows(installs, faults)
    return DatabaseContent(version, documents(rows, origin, tag, generation),
                           version_problems(version, origin) + faults.report())


def tolerant_membership(data: bytes) -> set[str]:
    database, bad_bytes = _database(data)
    return {str(h) for h, r in database["installs"].items()
            if isinstance(r, dict) and r.get("in_buildcache") is True and not (bad_bytes and _has_bad_bytes(h))}


def _database(data: bytes) -> tuple[dict[str, Any], bool]:
    """The `database` object, as Spack's reader (Python's json) reads it; and whether some bytes were not UTF-8.

    Bytes that are not UTF-8 are kept as lone surrogates, so they cost only the records that hold them.
    """
    try:
        text, bad_bytes = str(data, "utf-8"), False
    except UnicodeDecodeError:
        text, bad_bytes = str(data, "utf-8", "surrogateescape"), True
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise IndexFormatError(f"not valid JSON: {one_line(str(exc))}") from None
    database = document.get("database") if isinstance(document, dict) else None
    if not isinstance(database, dict) or not isinstance(database.get("installs"), dict):
        raise IndexFormatError("no 'database.installs' mapping: not a Spack build-cache index")
    return database, bad_bytes


def _has_bad_bytes(value: Any) -> bool:
    """Whether a decoded record holds a lone surrogate (a byte that was not UTF-8), without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and any("\udc80" <= c <= "\udcff" for c in item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _without_bad_bytes(nodes: dict[str, Any], faults: Faults) -> dict[str, Any]:
    """The records whose text is all UTF-8; the others named (when in the build cache) and dropped,
    so that no other record's dependency shows their bytes either."""
    kept = {}
    for hash_, record in nodes.items():
        if _has_bad_bytes(hash_) or _has_bad_bytes(record):
            if not (isinstance(record, dict) and record.get("in_buildcache") is False):
                faults.add(hash_, NOT_UTF8)
        else:
            kept[hash_] = record
    return kept
