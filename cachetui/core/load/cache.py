"""Warm start: the parsed corpus kept in the user's cache directory.

One cache file per set of input roots, under `$XDG_CACHE_HOME/cachetui` (or
`~/.cache/cachetui`). It holds the built Corpus, the stamp (size, mtime, ctime,
inode) of every file a result was built from (documents and the spec files they name),
and each walked directory's (mtime, ctime):

- nothing changed: the corpus is returned as it was (a stat per file and directory);
- some files changed, appeared or vanished: only those are parsed again; the others'
  specs are taken from the cached corpus and the model is rebuilt;
- a result that an I/O failure shaped (an unreadable file or directory) is never reused:
  it is tried again on the next load;
- the cache is keyed by a digest of the parsing code, so a changed parser never serves
  old results; a corrupt cache, or one not private to this user, is not used.

The file is mapped (cachetui.core.load.cache_file): every process of this user
that opens the same cache shares its pages, and builds Python objects only for what it reads.
It is read only from a directory and file that this user owns and nobody else can write (see
cachetui.core.load.private_dir), written whole and renamed, never changed in place. A file that
is truncated, foreign, from another format or inconsistent is rebuilt, and said once
(`damaged`). Nothing is ever written next to the input documents.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np

from cachetui.core.load.cache_file import CACHE_FORMAT, BufferFile, Damaged, map_buffers
from cachetui.core.load.cache_layout import from_buffers, to_buffers
from cachetui.core.load.cache_names import cache_stem, default_cache_dir
from cachetui.core.load.code_digest import code_digest, digest_beside, loading_modules, source_digest
from cachetui.core.load.private_dir import (
    NotPrivate,
    PrivateFile,
    open_private,
    private_directory,
    private_subdirectory,
)
from cachetui.core.load.snapshot import Snapshot

__all__ = ["CACHE_FORMAT", "CACHE_REBUILT", "CorpusCache", "cache_key", "code_digest", "default_cache_dir",
           "loading_modules", "source_digest"]



CACHE_REBUILT = "warm cache not used (rebuilt)"  # the one warning a damaged cache file costs, said by every command
LOCKS = "locks"  # the subdirectory of one empty file per set of sources, locked while they are read
LOCK_PATIENCE_S = 120.0  # longer than another process's load of the same sources takes: it is stopped, not slow
LOCK_POLL_S = 0.05


class CorpusCache:
    """Reads and writes snapshots; `refused` says why the cache was not used, `damaged` why a file was rebuilt."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or default_cache_dir()
        self.refused: str | None = None
        self.damaged: str | None = None  # "<file>: <what was wrong>", when a cache file could not be trusted
        self._digest: threading.Thread | None = None  # the code's digest, worked out beside a load (will_write)

    def name_for(self, roots: list[str], max_bytes: int) -> str:
        return f"{cache_stem(roots, max_bytes)}.map"

    def will_write(self) -> None:
        """Said by a load that found no file to reuse: what a file's key needs is worked out beside the load (and
        waited for as its file is closed, written or not: nothing of it outlives the load)."""
        self._digest = digest_beside(self.directory)

    def _digested(self) -> None:
        digest, self._digest = self._digest, None
        if digest is not None:
            digest.join()

    def read(self, name: str) -> Snapshot | None:
        """The stored snapshot, mapped; None when missing, not private, damaged or from other code."""
        try:
            with private_directory(self.directory, create=False) as dir_fd:
                return self._mapped(dir_fd, name) if dir_fd is not None else None
        except NotPrivate as exc:  # the directory: neither read nor write anything in it
            self.refused = exc.reason
            return None

    def _mapped(self, dir_fd: int, name: str) -> Snapshot | None:
        """A file found private, mapped and checked; anything else (foreign, a symlink, damaged) is no cache.

        Such a file is replaced on the next write: the directory itself is private.
        """
        try:
            with open_private(dir_fd, name) as handle:
                if handle is None:
                    return None
                return Snapshot(**from_buffers(*map_buffers(handle, CACHE_FORMAT, cache_key(name, self.directory))))
        except NotPrivate:
            return None
        except Damaged as exc:
            self.damaged = f"{self.directory / name}: {exc.reason}"
        except Exception as exc:  # noqa: BLE001 - whatever a damaged file does, it is only a missed warm start
            self.damaged = f"{self.directory / name}: unreadable ({type(exc).__name__})"
        return None

    @contextmanager
    def locked(self, name: str, waiting: Callable[[], None] | None = None,
               patience: float = LOCK_PATIENCE_S) -> Iterator[None]:
        """Held while the sources behind `name` are looked at, read and their file written. Another process reading
        the same sources at that moment (two visitors of one `serve` reloading) waits, then finds the file written:
        one read, shared. `waiting` hears when this one has to wait; after `patience` seconds (a process stopped
        mid-load holds it) it reads alone. A directory where no lock can be taken (not private, not writable, no
        locks on this file system) locks nothing: a load never fails for it."""
        fd = None
        try:
            with private_subdirectory(self.directory, LOCKS, create=True) as dir_fd:
                if dir_fd is not None:
                    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                    fd = os.open(f"{name}.lock", flags, 0o600, dir_fd=dir_fd)
        except (NotPrivate, OSError):
            fd = None
        try:
            if fd is not None and not _lock(fd):
                if waiting is not None:
                    waiting()
                deadline = time.monotonic() + patience
                while not _lock(fd) and time.monotonic() < deadline:
                    time.sleep(LOCK_POLL_S)
            yield
        finally:
            if fd is not None:
                _unlock(fd)
                os.close(fd)

    @contextmanager
    def writing(self, name: str) -> Iterator[CacheWriter]:
        """A cache file to write while the corpus is finished: its columns put as they are made, then the rest of
        the snapshot (`complete`). Left without `complete`, nothing is written."""
        writer = CacheWriter(self, name)
        try:
            yield writer
        finally:
            writer.close()


class CacheWriter:
    """One cache file being written (see CorpusCache.writing). A failure to cache is never a failure to load:
    a directory not private, a full disk and the like leave no file, and the writer takes nothing more."""

    def __init__(self, cache: CorpusCache, name: str) -> None:
        self._cache, self._name = cache, name
        self._resources = ExitStack()
        self._dir_fd = -1  # the private directory's, once opened
        self._file: PrivateFile | None = None
        self._buffers: BufferFile | None = None
        self._given_up = cache.refused is not None
        self.written = False  # the file is there, whole, under its name

    def put(self, name: str, array: np.ndarray) -> None:
        """One of the corpus's buffers (`single.version`, `multi.variant.flat`, ...), as soon as it is made."""
        buffers = self._opened()
        if buffers is not None:
            try:
                buffers.put(name, array)
            except OSError:
                self._give_up()

    def complete(self, snapshot: Snapshot) -> None:
        """Every buffer not yet put, the table and the header; then the file is synced and given its name."""
        buffers, file = self._opened(), self._file
        if buffers is None or file is None:
            return
        try:
            made, meta = to_buffers(snapshot)
            for name, array in made:
                if name not in buffers:
                    buffers.put(name, array)
            buffers.close(CACHE_FORMAT, cache_key(self._name, self._cache.directory), meta())
            file.commit()
            self.written = True
            _forget_pickle(self._dir_fd, self._name)
        except OSError:
            self._give_up()

    def _opened(self) -> BufferFile | None:
        if self._buffers is None and not self._given_up:
            try:
                dir_fd = self._resources.enter_context(private_directory(self._cache.directory, create=True))
                assert dir_fd is not None  # created when missing
                self._dir_fd = dir_fd
                self._file = self._resources.enter_context(PrivateFile(dir_fd, self._name))
                self._buffers = self._resources.enter_context(BufferFile(self._file.handle))
            except NotPrivate as exc:
                self._cache.refused = exc.reason
                self._give_up()
            except OSError:
                self._give_up()
        return self._buffers

    def _give_up(self) -> None:
        self._given_up, self._buffers = True, None
        self.close()

    def close(self) -> None:
        """The writing thread stopped, an uncommitted file removed, the directory closed."""
        try:
            self._resources.close()
        finally:
            self._cache._digested()


def _lock(fd: int) -> bool:
    """Whether the lock is held now; True when the file system takes no locks (nothing to share the read with)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # ENOLCK and the like: the load goes on alone
        return True
    return True


def _unlock(fd: int) -> None:
    """The lock let go of now, not when the last copy of its descriptor closes: a parsing worker forked during the
    load holds a copy until it exits."""
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    except OSError:
        pass


def cache_key(name: str, directory: Path) -> bytes:
    """What a cache file must say it was written for: this code (and format), and these sources (its name).
    `directory` is the cache's, where the code's digest is remembered."""
    return hashlib.sha256(f"{code_digest(directory)}\0{name}".encode()).digest()


def _forget_pickle(dir_fd: int, name: str) -> None:
    """Remove the same sources' `.pickle` cache that development versions wrote beside this one: nothing reads
    it, and it holds as much of the user's disk again."""
    try:
        os.unlink(name.removesuffix(".map") + ".pickle", dir_fd=dir_fd)
    except OSError:
        pass
