"""Warm start: the parsed corpus kept in the user's cache directory.

One cache file per set of input roots, under `$XDG_CACHE_HOME/cachetui` (or
`~/.cache/cachetui`). It holds the built Corpus, every file's signature (size,
mtime, ctime, inode) and the directory listing with each directory's mtime:

- nothing changed: the corpus is returned as it was (a stat per file and directory);
- some files changed, appeared or vanished: only those are parsed again; the others'
  specs are taken from the cached corpus and the model is rebuilt;
- a corrupt cache, an old format, or one not owned by this user: ignored and rebuilt.

The cache is a pickle, so it is read only when this user owns it and nobody else
can write to it. Nothing is ever written next to the input documents.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from cachetui import __version__
from cachetui.core.loader import Candidate
from cachetui.core.model import Corpus
from cachetui.core.problems import Problem

CACHE_FORMAT = 1
Signature = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cachetui"


def signature(path: str) -> Signature | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


@dataclass
class Snapshot:
    """What one load saw, stored with the corpus it built."""

    candidates: list[Candidate]
    directories: dict[str, int]  # path -> mtime_ns; unchanged means the listing is unchanged
    signatures: dict[str, Signature | None]
    corpus: Corpus
    walk_problems: list[Problem] = field(default_factory=list)  # symlink loops, unreadable directories
    file_problems: dict[str, list[Problem]] = field(default_factory=dict)  # each file's own problems
    format: int = CACHE_FORMAT
    versions: tuple[str, str] = field(default_factory=lambda: (__version__, sys.version))


class CorpusCache:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()

    def file_for(self, roots: list[str], max_bytes: int) -> Path:
        key = "\0".join([str(CACHE_FORMAT), str(max_bytes), *sorted(os.path.abspath(r) for r in roots)])
        return self.directory / f"corpus-{hashlib.sha256(key.encode()).hexdigest()[:24]}.pickle"

    def read(self, file: Path) -> Snapshot | None:
        """The stored snapshot, or None when missing, unsafe, corrupt or from another version."""
        try:
            info = os.stat(file)
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None  # someone else could have written it: never unpickle that
            with open(file, "rb") as handle:
                snapshot = pickle.load(handle)  # noqa: S301 - this user's own, private cache file
        except Exception:  # noqa: BLE001 - any failure means "no usable cache"
            return None
        if not isinstance(snapshot, Snapshot) or snapshot.format != CACHE_FORMAT:
            return None
        if snapshot.versions != (__version__, sys.version):
            return None
        return snapshot

    def write(self, file: Path, snapshot: Snapshot) -> None:
        """Write atomically; a failure to cache is never a failure to load."""
        try:
            file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, temporary = tempfile.mkstemp(dir=file.parent, prefix=".tmp-", suffix=".pickle")
            try:
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump(snapshot, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, file)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
        except OSError:
            pass


def listing_unchanged(snapshot: Snapshot) -> bool:
    """True when every directory the last walk read still has the same mtime."""
    for directory, mtime in snapshot.directories.items():
        try:
            if os.stat(directory).st_mtime_ns != mtime:
                return False
        except OSError:
            return False
    return True
