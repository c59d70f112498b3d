"""The warm cache's file: named flat buffers behind a checked header, mapped read-only.

Layout (little-endian):

    header   96 bytes  magic "CTUICMAP", format (u32), 0 (u32), file length (u64), table length (u64),
                       key (32 bytes: the cache key's digest), checksum (32 bytes: SHA-256 of the
                       header's first 64 bytes and the table)
    table    JSON      {"buffers": {name: [dtype, offset, count]}, "meta": {...}}; offsets count from
                       the first byte after the table, rounded up to 64
    buffers            each a 1-D numpy array's bytes, starting on a multiple of 64

The buffers are not checksummed (hashing a whole site's 100 MB at every start would cost more than
the start itself); whoever reads them checks every id and offset within bounds, once, in numpy
(cachetui.core.load.cache_layout). A file is written whole to a temporary name and renamed, never
changed in place: a process that has it mapped keeps the pages it mapped.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
from typing import Any, BinaryIO

import numpy as np

CACHE_FORMAT = 6  # 3: dependency columns keep unheld records and externals; 4: the installable column;
# 5: a problem says whether it is stale, the corpus which documents are offline copies; 6: mapped buffers, no pickle
MAGIC = b"CTUICMAP"
_HEADER = struct.Struct("<8sIIQQ32s32s")
_CHECKED = 64  # the header's bytes before its checksum
_ALIGN = 64
# What a buffer may hold: a dtype named in a file is one of these or the file is damaged.
_DTYPES = {np.dtype(t).str: np.dtype(t) for t in (np.uint8, np.bool_, np.int8, np.int16, np.int32, np.int64)}


class Damaged(Exception):
    """A cache file that cannot be trusted: truncated, foreign, from another format, corrupt."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def write_buffers(handle: BinaryIO, format_: int, key: bytes, buffers: dict[str, np.ndarray],
                  meta: dict[str, Any]) -> None:
    """Write the file: header, table, then each buffer on a 64-byte boundary."""
    entries: dict[str, list] = {}
    position = 0
    arrays = {name: np.ascontiguousarray(array).reshape(-1) for name, array in buffers.items()}
    for name, array in arrays.items():
        entries[name] = [array.dtype.str, position, len(array)]
        position = _aligned(position + array.nbytes)
    table = json.dumps({"buffers": entries, "meta": meta}, separators=(",", ":")).encode()
    start = _aligned(_HEADER.size + len(table))
    length = start + position
    head = _HEADER.pack(MAGIC, format_, 0, length, len(table), key, bytes(32))[:_CHECKED]
    checksum = hashlib.sha256(head + table).digest()
    handle.write(head + checksum + table)
    handle.write(bytes(start - _HEADER.size - len(table)))
    written = 0
    for name, array in arrays.items():
        offset = entries[name][1]
        handle.write(bytes(offset - written))
        handle.write(array.data.cast("B"))
        written = offset + array.nbytes
    handle.write(bytes(length - start - written))


def map_buffers(handle: BinaryIO, format_: int, key: bytes) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The file's metadata and its buffers as read-only arrays over one shared mapping. Raises Damaged."""
    size = os.fstat(handle.fileno()).st_size
    if size < _HEADER.size:
        raise Damaged(f"truncated ({size} bytes)")
    mapping = mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_READ)
    magic, found_format, _, length, table_length, found_key, checksum = _HEADER.unpack_from(mapping)
    if magic != MAGIC:
        raise Damaged("not a cachetui cache file")
    if found_format != format_:
        raise Damaged(f"written in cache format {found_format}, not {format_}")
    if found_key != key:
        raise Damaged("written for other sources or another version of cachetui")
    if length != size:
        raise Damaged(f"{'truncated' if size < length else 'longer than written'} ({size} bytes of {length})")
    if _HEADER.size + table_length > size:
        raise Damaged("truncated table")
    table = mapping[_HEADER.size : _HEADER.size + table_length]
    if hashlib.sha256(mapping[:_CHECKED] + table).digest() != checksum:
        raise Damaged("checksum mismatch")
    try:
        parsed = json.loads(table)
        start = _aligned(_HEADER.size + table_length)
        return parsed["meta"], {name: _buffer(mapping, start, size, entry)
                                for name, entry in parsed["buffers"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Damaged(f"unreadable table ({exc})") from None


def _buffer(mapping: mmap.mmap, start: int, size: int, entry: list) -> np.ndarray:
    dtype_name, offset, count = entry
    dtype = _DTYPES.get(dtype_name)
    if dtype is None or not isinstance(offset, int) or not isinstance(count, int) or offset < 0 or count < 0:
        raise Damaged(f"a buffer described as {entry!r}")
    if start + offset + count * dtype.itemsize > size:
        raise Damaged("a buffer beyond the end of the file")
    return np.frombuffer(mapping, dtype=dtype, count=count, offset=start + offset)
