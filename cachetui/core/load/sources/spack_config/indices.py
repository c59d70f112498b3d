"""Spack's own copies of mirror indexes, offered when a mirror cannot be reached."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from typing import Any

from cachetui.core.load.sources.locator import is_oci, is_sha256
from cachetui.core.load.sources.mirror import MAX_INDEX_BYTES, Net, OfflineCopy
from cachetui.core.load.sources.spack_config.scopes import read_capped
from cachetui.core.model.problems import Problem, Severity

MAX_CONTENTS_BYTES = 16 << 20


class SpackIndexCache:
    """`<misc_cache>/indices`: `contents.json` maps `<url>__v<layout>[__<view>]` to a downloaded index.

    Read only, and only when a mirror cannot be reached; a copy is used only if its bytes still
    have the sha256 Spack recorded for them.
    """

    def __init__(self, directory: str, net: Net) -> None:
        self.directory = directory
        self.net = net

    def copies_of(self, url: str, view: str | None) -> Callable[[], list[OfflineCopy]]:
        return lambda: self._copies(url, view)

    def _copies(self, url: str, view: str | None) -> list[OfflineCopy]:
        """Spack's newest copy for this URL whose bytes still verify (one index in memory at a time)."""
        contents = self._contents()
        layout_of = (lambda _: "oci") if is_oci(url) else (lambda layout: layout)
        candidates = []
        for base in dict.fromkeys((url, url.rstrip("/"), url.rstrip("/") + "/")):
            for layout in ("v3", "v2"):
                candidates.append((f"{base}__v{layout[1:]}" + (f"__{view}" if view else ""), layout_of(layout)))
            if not view:  # Spack 0.x keyed by the bare URL, and kept only v2
                candidates.append((base, layout_of("v2")))
        found = []
        for key, layout in candidates:
            entry = self._entry(contents.get(key))
            if entry is not None:
                found.append((*entry, layout))
        for path, checksum, layout in sorted(found, key=lambda f: _mtime(f[0]), reverse=True):
            copy = self._copy(path, checksum, layout)
            if copy is not None:
                return [copy]
        return []

    def _contents(self) -> dict[str, Any]:
        data = read_capped(os.path.join(self.directory, "contents.json"), MAX_CONTENTS_BYTES)
        if data is None:
            return {}
        try:
            contents = json.loads(data)
        except (ValueError, RecursionError):
            self._warn("contents.json", "not valid JSON; Spack's copies of mirror indexes are not used")
            return {}
        return contents if isinstance(contents, dict) else {}

    def _entry(self, entry: object) -> tuple[str, str] | None:
        """A `contents.json` entry -> (its file, only ever in this directory; the sha256 Spack recorded)."""
        if not isinstance(entry, dict):
            return None
        checksum, name = entry.get("index_hash"), entry.get("index_path")
        if not isinstance(checksum, str) or not isinstance(name, str) or not is_sha256(checksum):
            return None
        return os.path.join(self.directory, os.path.basename(name)), checksum

    def _copy(self, path: str, checksum: str, layout: str) -> OfflineCopy | None:
        saved_at = _mtime(path)  # before reading: a copy replaced meanwhile is never dated newer than it is
        data = read_capped(path, MAX_INDEX_BYTES)
        if data is None:
            return None
        if hashlib.sha256(data).hexdigest() != checksum:
            self._warn(os.path.basename(path), f"does not have the sha256 Spack recorded for it ({checksum}); "
                                               "not used")
            return None
        return OfflineCopy(data, checksum, saved_at, layout, f"Spack's cache ({self.directory})")

    def _warn(self, name: str, reason: str) -> None:
        self.net.problems.append(Problem(os.path.join(self.directory, name), reason, Severity.WARNING))


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0

