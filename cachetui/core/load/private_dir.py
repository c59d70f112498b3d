"""Files in a directory that only this user can write: the warm-start caches.

On shared HPC file systems a cache directory or file that someone else owns, or that
others can write, could be swapped for a file that says what someone else chose. So the
directory is created 0700, opened without following symlinks and checked with `fstat`
on the open descriptor; files are opened relative to that descriptor, again without
following symlinks, and checked the same way: no gap between the check and the use.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class NotPrivate(Exception):
    """The directory or file could be written by someone else: it is not used."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _check(info: os.stat_result, what: str) -> None:
    if info.st_uid != os.getuid():
        raise NotPrivate(f"{what} is owned by another user")
    if info.st_mode & 0o022:
        raise NotPrivate(f"{what} is writable by group or others")


def _make_private(path: Path) -> None:
    """Create `path` and any missing parents 0700 (`mkdir(parents=True)` would give parents the default mode)."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    try:
        for directory in reversed(missing):
            directory.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise NotPrivate(f"cannot create {missing[0]}: {exc.strerror or exc}") from None


@contextmanager
def private_directory(path: Path, *, create: bool) -> Iterator[int | None]:
    """A descriptor on `path` once it is checked private; None when it does not exist (and not `create`).

    Raises NotPrivate when it exists but is not private, or is a symlink.
    """
    if create:
        _make_private(path)
    try:
        fd = os.open(path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    except FileNotFoundError:
        yield None
        return
    except OSError as exc:
        raise NotPrivate(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISDIR(info.st_mode):
            raise NotPrivate(f"{path} is not a directory")
        _check(info, str(path))
        if info.st_mode & 0o077:  # ours, but readable by others (an older version made it so): make it private
            os.fchmod(fd, 0o700)
        yield fd
    finally:
        os.close(fd)


@contextmanager
def private_subdirectory(parent: Path, name: str, *, create: bool) -> Iterator[int | None]:
    """`parent / name` as `private_directory` gives it, and only once `parent` itself is found private: what is kept
    in a directory others can write (a cache directory refused) is neither read nor written."""
    with private_directory(parent, create=create) as parent_fd:
        if parent_fd is None:
            yield None
            return
        with private_directory(parent / name, create=create) as fd:
            yield fd


@contextmanager
def open_private(dir_fd: int, name: str) -> Iterator[BinaryIO | None]:
    """The file `name` for reading, or None when it is missing. Raises NotPrivate for a foreign file."""
    try:
        # O_NONBLOCK: a FIFO put where a cache file should be is refused below, not waited on for a writer.
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except FileNotFoundError:
        yield None
        return
    except OSError as exc:  # ELOOP: a symlink where a cache file should be
        raise NotPrivate(f"cannot open {name}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise NotPrivate(f"{name} is not a regular file")
        _check(info, name)
        yield handle


def write_private(dir_fd: int, name: str, write: Callable[[BinaryIO], None]) -> None:
    """Write `name` atomically (a private temporary file, synced, then a rename); raises OSError on failure.

    Never in place: a process that has the old file mapped keeps its pages (no SIGBUS).
    """
    with PrivateFile(dir_fd, name) as file:
        write(file.handle)
        file.commit()


class PrivateFile:
    """A file being written under a private temporary name: `commit()` syncs it and renames it to `name`;
    closed without a commit (a failure, an exception), it is removed. Never written in place."""

    def __init__(self, dir_fd: int, name: str) -> None:
        self._dir_fd, self.name = dir_fd, name
        self._temporary: str | None = f".tmp-{os.getpid()}-{secrets.token_hex(6)}"
        fd = os.open(self._temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=dir_fd)
        try:
            self.handle: BinaryIO = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            self.close()
            raise

    def commit(self) -> None:
        """On disk before its name: a crash leaves the old file or the whole new one. Raises OSError."""
        assert self._temporary is not None, "committed twice"
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self._temporary, self.name, src_dir_fd=self._dir_fd, dst_dir_fd=self._dir_fd)
        self._temporary = None

    def close(self) -> None:
        """Removes the file unless it was committed."""
        if self._temporary is None:
            return
        try:
            if hasattr(self, "handle"):
                self.handle.close()
        except OSError:
            pass
        try:
            os.unlink(self._temporary, dir_fd=self._dir_fd)
        except OSError:
            pass
        self._temporary = None

    def __enter__(self) -> PrivateFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
