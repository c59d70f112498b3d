"""The warm cache's file: named flat buffers behind a checked header, mapped read-only.

Layout (little-endian):

    header   96 bytes  magic "CTUICMAP", format (u32), 0 (u32), file length (u64), table length (u64),
                       key (32 bytes: the cache key's digest), checksum (32 bytes: SHA-256 of the
                       header's first 64 bytes and the table)
    buffers            from byte 128: each a 1-D numpy array's bytes, starting on a multiple of 64
    table    JSON      the file's last `table length` bytes: {"buffers": {name: [dtype, offset, count]},
                       "meta": {...}}; offsets count from byte 128

The table comes last so that the buffers can be written as they are made, before what the table says
of them is known. The buffers are not checksummed (hashing a whole site's 100 MB at every start would
cost more than the start itself); whoever reads them checks every id and offset within bounds, once,
in numpy (cachetui.core.load.cache_layout). A file is written whole to a temporary name and renamed,
never changed in place: a process that has it mapped keeps the pages it mapped.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
from queue import SimpleQueue
from threading import Thread
from typing import Any, BinaryIO

import numpy as np

CACHE_FORMAT = 8  # the layout's number, in each file's header: raised with any change to the layout, so that a
# file written in another layout is refused (Damaged) before any of it is read
MAGIC = b"CTUICMAP"
_HEADER = struct.Struct("<8sIIQQ32s32s")
_CHECKED = 64  # the header's bytes before its checksum
_ALIGN = 64
_START = 128  # the first buffer's byte: the header, rounded up to _ALIGN
# What a buffer may hold: a dtype named in a file is one of these or the file is damaged.
_DTYPES = {np.dtype(t).str: np.dtype(t) for t in (np.uint8, np.bool_, np.int8, np.int16, np.int32, np.int64)}


class Damaged(Exception):
    """A cache file that cannot be trusted: truncated, foreign, from another format, corrupt."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


class BufferFile:
    """A cache file being written: buffers put as they are made, written from a second thread, and at the end
    (`close`) the table and the header. Nothing else writes to the handle until then.

    Copying a whole site's 130 MB into the page cache is the kernel's work: from a thread of its own, it
    goes on while this one makes the next buffers (finishing the corpus puts its columns here as it makes
    them); done in line, it would be a tenth of a cold load, with the other core idle.
    """

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._entries: dict[str, list] = {}
        self._position = 0  # where the next buffer starts, from _START
        self._writer = _Writer(handle)
        self._writer.put(bytes(_START))  # the header's place: written last, over this

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def put(self, name: str, array: np.ndarray) -> None:
        """Write a buffer (a 1-D array's bytes; it is not changed until the file is closed). Raises the
        writing thread's OSError, once it had one."""
        assert name not in self._entries, f"buffer {name!r} put twice"
        flat = np.ascontiguousarray(array).reshape(-1)
        self._entries[name] = [flat.dtype.str, self._position, len(flat)]
        end = self._position + flat.nbytes
        self._writer.put(flat)
        self._position = _aligned(end)
        self._writer.put(bytes(self._position - end))

    def close(self, format_: int, key: bytes, meta: dict[str, Any]) -> None:
        """The table after the buffers, then the header over its place. Raises OSError."""
        table = json.dumps({"buffers": self._entries, "meta": meta}, separators=(",", ":")).encode()
        self._writer.close()
        self._handle.write(table)
        head = _HEADER.pack(MAGIC, format_, 0, _START + self._position + len(table), len(table), key,
                            bytes(32))[:_CHECKED]
        self._handle.seek(0)
        self._handle.write(head + hashlib.sha256(head + table).digest())

    def __enter__(self) -> BufferFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._writer.close(raising=False)  # not closed: half written, and whoever made the file removes it


SYNC_BYTES = 32 << 20  # written and not yet synced: synced then, by the writing thread
_DATA_SYNC = getattr(os, "fdatasync", os.fsync)  # not on macOS


class _Writer:
    """Writes what it is given, in order, from a thread of its own; its error is raised at the next put or close."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._queue: SimpleQueue[np.ndarray | bytes | None] = SimpleQueue()
        self._error: BaseException | None = None
        self._thread: Thread | None = Thread(target=self._run, name="cache-writer", daemon=True)
        self._thread.start()

    def put(self, data: np.ndarray | bytes) -> None:
        if self._error is not None:  # the disk is full, say: no point in making the rest
            raise self._error
        self._queue.put(data)

    def _run(self) -> None:
        unsynced = 0
        while (data := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._handle.write(data.data.cast("B") if isinstance(data, np.ndarray) else data)
                    unsynced += data.nbytes if isinstance(data, np.ndarray) else len(data)
                    if unsynced >= SYNC_BYTES:
                        self._sync()
                        unsynced = 0
                except BaseException as exc:  # noqa: BLE001 - handed to the thread that puts, which raises it
                    self._error = exc

    def _sync(self) -> None:
        """What was written so far, on disk, while the thread that puts makes the next buffers: the commit's sync,
        when nothing else is left to do, then waits only for the rest of a file that is ~130 MB for a whole site."""
        self._handle.flush()
        try:
            fd = self._handle.fileno()
        except (OSError, ValueError):  # not a file (a test's buffer): nothing to sync
            return
        _DATA_SYNC(fd)

    def close(self, *, raising: bool = True) -> None:
        """Once all that was put is written (or failed)."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if raising and self._error is not None:
            raise self._error


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
    if _START + table_length > size:
        raise Damaged("truncated table")
    table_at = size - table_length
    table = mapping[table_at:size]
    if hashlib.sha256(mapping[:_CHECKED] + table).digest() != checksum:
        raise Damaged("checksum mismatch")
    try:
        parsed = json.loads(table)
        return parsed["meta"], {name: _buffer(mapping, table_at, entry) for name, entry in parsed["buffers"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise Damaged(f"unreadable table ({exc})") from None


def _buffer(mapping: mmap.mmap, end: int, entry: list) -> np.ndarray:
    """One buffer, which must lie between the header and the table (`end`)."""
    dtype_name, offset, count = entry
    dtype = _DTYPES.get(dtype_name)
    if dtype is None or not isinstance(offset, int) or not isinstance(count, int) or offset < 0 or count < 0:
        raise Damaged(f"a buffer described as {entry!r}")
    if _START + offset + count * dtype.itemsize > end:
        raise Damaged("a buffer beyond the end of the buffers")
    return np.frombuffer(mapping, dtype=dtype, count=count, offset=_START + offset)
