"""Open a local input only when it is a regular file: never a FIFO, socket or device, and never blocking.

A site tree or a mirror on disk is written by others. Opening a FIFO for reading blocks until
someone writes to it, and opening a device can have effects of its own (a tape rewinds, a
watchdog arms), so the kind of file is checked before it is opened, and the open itself is
non-blocking, in case a FIFO is swapped in between; the descriptor is checked again after.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegular(OSError):
    """The path exists but is not a regular file; `kind` says what it is."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"not a regular file: {kind}")
        self.kind = kind


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str) -> tuple[BinaryIO, os.stat_result]:
    """The open file and its status; NotRegular for anything but a regular file, OSError as open raises it."""
    fd, info = open_regular_fd(path)
    try:
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), info
    except BaseException:
        os.close(fd)
        raise


def open_regular_fd(path: str, *, listed_regular: bool = False) -> tuple[int, os.stat_result]:
    """The open descriptor (the caller closes it) and its status; NotRegular, or OSError as open raises it.

    `listed_regular`: the directory listing the caller walked said this name is a regular file, not
    a link (`DirEntry.is_file(follow_symlinks=False)`, from the listing itself), so its kind is not
    stat'ed again before opening: a whole site is 50,000 system calls fewer. The descriptor is left
    non-blocking, which changes nothing for a regular file (`read_regular` says what it does if not).
    """
    if not listed_regular:
        before = os.stat(path)  # follows symlinks as open does: a loop is ELOOP here
        if not stat.S_ISREG(before.st_mode):
            raise NotRegular(kind_of(before.st_mode))
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped after the check (or the listing)
            raise NotRegular(kind_of(info.st_mode))
        return fd, info
    except BaseException:
        os.close(fd)
        raise


def read_regular(fd: int, limit: int) -> bytes:
    """One read of up to `limit` bytes from a regular file opened by `open_regular_fd`."""
    try:
        return os.read(fd, limit)
    except BlockingIOError:  # a file system that honours O_NONBLOCK for regular files (some FUSE ones may)
        os.set_blocking(fd, True)
        return os.read(fd, limit)


def read_capped(path: str, label: str, max_bytes: int, error: type[Exception]) -> bytes:
    """A whole input the user named (a lockfile, a spack.yaml), at most `max_bytes` of it.

    Every way it cannot be read is `error` with one line naming `label`: missing, not a regular file, unreadable,
    larger than `max_bytes` (--max-file-size).
    """
    try:
        handle, _ = open_regular(path)
    except FileNotFoundError:
        raise error(f"no such file or directory: {label}") from None
    except NotRegular as exc:
        raise error(f"{label}: not a regular file: {exc.kind}") from None
    except OSError as exc:
        raise error(f"{label}: cannot be read ({exc.strerror or exc})") from None
    with handle:
        data = handle.read(max_bytes + 1)
    return capped(data, label, max_bytes, error)


def capped(data: bytes, label: str, max_bytes: int, error: type[Exception]) -> bytes:
    """`data`, read as `max_bytes + 1` bytes at most, unless it is longer than `max_bytes`."""
    if len(data) > max_bytes:
        raise error(f"{label}: larger than {max_bytes // 2**20} MB (--max-file-size)")
    return data
