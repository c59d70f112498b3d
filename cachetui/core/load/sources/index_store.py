"""The last verified index of each mirror, kept so an unchanged mirror costs one small request.

Indexes are stored under the private cache directory, named by the location they came from
and the checksum that verified them (the v3 manifest's, or v2's `index.json.hash`): the
next load asks the mirror only for that checksum, and when it is the same, the index is
read from here. When the network is down, the last index of that location is used, with
a warning that says how old it is. Only bytes that passed verification are ever stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from cachetui.core.load.private_dir import NotPrivate, open_private, private_directory, write_private


@dataclass(frozen=True)
class StoredIndex:
    data: bytes
    checksum: str
    stored_at: float  # seconds since the epoch
    layout: str = ""  # v3 or v2, when the index came from a mirror


def _key(location: str) -> str:
    return hashlib.sha256(location.encode()).hexdigest()[:20]


class IndexStore:
    """Verified index bytes per (location, checksum), plus a pointer to each location's latest."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "indexes"

    def get(self, location: str, checksum: str) -> bytes | None:
        """The stored index of `location` with this checksum, if any."""
        return self._read(f"{_key(location)}-{checksum}.json")

    def latest(self, location: str) -> StoredIndex | None:
        """The last index stored for `location`, whatever its checksum (for offline use)."""
        pointer = self._read(f"{_key(location)}.latest")
        try:
            info = json.loads(pointer) if pointer else {}
            checksum, stored_at, layout = str(info["checksum"]), float(info["stored_at"]), str(info.get("layout", ""))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        data = self.get(location, checksum)
        return StoredIndex(data, checksum, stored_at, layout) if data is not None else None

    def put(self, location: str, checksum: str, data: bytes, layout: str = "") -> None:
        """Keep verified bytes; a failure to store is never a failure to load."""
        key = _key(location)
        pointer = json.dumps({"location": location, "checksum": checksum, "stored_at": time.time(),
                              "layout": layout}).encode()
        try:
            with private_directory(self.directory, create=True) as dir_fd:
                assert dir_fd is not None
                write_private(dir_fd, f"{key}-{checksum}.json", lambda handle: _write(handle, data))
                write_private(dir_fd, f"{key}.latest", lambda handle: _write(handle, pointer))
                _prune(dir_fd, key, keep=f"{key}-{checksum}.json")
        except (NotPrivate, OSError):
            pass

    def _read(self, name: str) -> bytes | None:
        try:
            with private_directory(self.directory, create=False) as dir_fd:
                if dir_fd is None:
                    return None
                with open_private(dir_fd, name) as handle:
                    return handle.read() if handle is not None else None
        except (NotPrivate, OSError):
            return None


def _prune(dir_fd: int, key: str, keep: str) -> None:
    """One index per location: an older one is never served again once a newer one is stored."""
    for name in os.listdir(dir_fd):
        if name.startswith(f"{key}-") and name != keep:
            os.unlink(name, dir_fd=dir_fd)


def _write(handle: BinaryIO, data: bytes) -> None:
    handle.write(data)
