"""The fast lane for documents in the site's current shape: typed decoding, no per-line parsing.

Nearly every document is five single-line keys (`title`, `layout`, `categories`, `meta`,
`spec_details`) whose JSON is regular. Those are read with a typed msgspec decoder, which
checks every field's type in C while it builds the values, so nothing is looked at twice.
Anything else (another key, a multi-line value, CRLF, a BOM, a null where a string belongs,
a bad hash, a repeated hash) returns None, and the general path reads the document and
says what is wrong with it. Both lanes give the same document for the same bytes (tested).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from cachetui.core.load.sources.site.document import MAX_SIZE, check_meta, package_of
from cachetui.core.load.sources.site.listing import Meta, SpecEntry
from cachetui.core.load.sources.site.parse import YAML_WORDS
from cachetui.core.model.records import UNKNOWN_SIZE, ParsedDocument, SpecColumns
from cachetui.core.spack.compilers import normalise_compiler
from cachetui.core.spack.hashes import all_valid_hashes

# The front matter as the site writes it: three short lines matched, then meta and spec_details,
# one line each, found with memchr-speed searches (a regex would walk their ~40 kB char by char).
_HEAD = re.compile(
    rb'---\ntitle: "([^"\\\n\r]*)"\nlayout: [A-Za-z_][A-Za-z0-9_./-]*\n'
    rb"categories: \[package, ([A-Za-z_][A-Za-z0-9_./-]*)\]\nmeta: \{"
)
_KEY_LINES = {"title": 2, "layout": 3, "categories": 4, "meta": 5, "spec_details": 6}


_DETAILS = msgspec.json.Decoder(list[SpecEntry])
_META = msgspec.json.Decoder(Meta)
astuple = msgspec.structs.astuple  # fields in declaration order: compiler, hash, os, ... versions


def fast_document(path: str, data: bytes) -> ParsedDocument | None:
    """The document, when `data` is in the current regular shape; None sends it down the general path."""
    match = _HEAD.match(data)
    if match is None or not (data.isascii() or _utf8(data)):  # the general path says where a bad byte is
        return None
    meta_at = match.end() - 1
    details_at = data.find(b"\n", meta_at) + 1 + len(b"spec_details: ")
    end = data.find(b"\n", details_at)
    if not data.startswith(b"\nspec_details: [", details_at - len(b"\nspec_details: ")) or end < 0 \
            or data[end : end + 5] not in (b"\n---\n", b"\n---") or data.find(b"\r", meta_at, end) >= 0:
        return None
    raw_title, raw_tag = match.groups()
    view = memoryview(data)
    try:
        entries = _DETAILS.decode(view[details_at:end])
        meta = _META.decode(view[meta_at : details_at - len(b"\nspec_details: ")])
        title, tag = raw_title.decode(), raw_tag.decode()
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
        return None
    if not entries or tag.lower() in YAML_WORDS:
        return None
    columns = _columns(entries)
    if columns is None:
        return None
    doc = ParsedDocument(path, package_of(title, path), tag, title, "current", columns)
    check_meta(meta, columns, doc, _KEY_LINES)
    return doc


def _utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def _columns(entries: list[SpecEntry]) -> SpecColumns | None:
    """The entries column by column, or None when one needs the general path's care (and its warnings)."""
    compilers, hashes, oss, platforms, sizes, stacks, targets, variants, versions = zip(*map(astuple, entries))
    if not all(versions) or not all_valid_hashes(hashes) or len(set(hashes)) != len(hashes):
        return None  # a hash not as Spack writes one, or listed twice
    sizes_read = _sizes(sizes)
    if sizes_read is None:
        return None
    return SpecColumns(list(hashes), [v[0] for v in versions], list(map(normalise_compiler, compilers)),
                       list(platforms), list(oss), list(targets), list(variants), list(stacks), sizes_read)


def _sizes(sizes: tuple[Any, ...]) -> list[int] | None:
    """Each size, `-` as unknown; None when one is not a size (the general path says which)."""
    kinds = set(map(type, sizes))
    if kinds == {int}:  # the usual document: every size known, checked without a step per spec in Python
        return list(sizes) if 0 <= min(sizes) and max(sizes) < MAX_SIZE else None
    if kinds == {str} and set(sizes) == {"-"}:
        return [UNKNOWN_SIZE] * len(sizes)
    numeric = [size for size in sizes if size != "-"]
    if not all(type(size) is int and 0 <= size < MAX_SIZE for size in numeric):
        return None
    return [UNKNOWN_SIZE if size == "-" else size for size in sizes]
