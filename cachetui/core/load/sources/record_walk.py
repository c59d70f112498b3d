"""One walk of a local mirror's record files: which binary each is about (from its name), and its modification time.

Spack names a binary's record files:

- layout v3 (`url_buildcache.py`): `v3/manifests/spec/<name>/<name>-<version>-<hash>.spec.manifest.json`;
- layout v2 (`binary_distribution.py` up to 0.23): `build_cache/<arch>-<compiler>-<ver>-<name>-<ver>-<hash>`
  with `.spec.json.sig` (signed) or `.spec.json`; older Spacks wrote `.spec.yaml` there
  (`build_tarball` in `binary_distribution.py` at spack/spack 006a3e5a, 2019:
  `specfile_name = tarball_name(spec, '.spec.yaml')` in `build_cache/`, signed only inside the `.spack`).

The hash is the 32 characters before the suffix, after a `-`. Names were chosen by whoever could
write there: one that does not parse names no binary. The walk is `os.scandir` of the records'
directory (v3: and of each package's directory in it), regular files only, each file's time from
its own entry (`DirEntry.stat(follow_symlinks=False)`, through its directory's descriptor where the
platform has them), never a `stat` per binary outside the walk; at most `max_entries` entries are
looked at.

This module imports nothing but the standard library: `push_dates` runs it as a script
(`python -I -S record_walk.py ROOT LAYOUT MAX`) in a process of its own, so the walk's system calls
run beside the index's decoding instead of waiting for its GIL. It writes each dated binary as 40
bytes (its hash, then the time as a big-endian int64) to stdout, and one JSON line of how the walk
went to stderr.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

V3_SUFFIX = ".spec.manifest.json"
# In the order Spack reads them (`.sig` first): where a binary has several, the first one's date counts.
V2_SUFFIXES = (".spec.json.sig", ".spec.json", ".spec.yaml")
V3_RECORDS = "v3/manifests/spec"  # below a mirror's root: one directory per package
V2_RECORDS = "build_cache"  # below a mirror's root: the records themselves, beside the tarballs' directories
HASH_LENGTH = 32
_BASE32 = b"abcdefghijklmnopqrstuvwxyz234567"  # Spack's hash alphabet (core/spack/hashes.py: not importable here)
LATEST = 253_402_300_800  # 10000-01-01: a time past it (or before the epoch) says nothing true of a push
WIRE = struct.Struct(">32sq")  # one dated binary on the wire: its hash, its time
_V3_HASH_END = len(V3_SUFFIX)


def record_hash(name: str, layout: str) -> tuple[str, int] | None:
    """The hash a record file's name ends with, and its rank among the binary's records (0 is the one Spack reads
    first); None for a name that is not a record of `layout` (v3 or v2)."""
    suffixes = (V3_SUFFIX,) if layout == "v3" else V2_SUFFIXES if layout == "v2" else ()
    for rank, suffix in enumerate(suffixes):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            found = stem[-HASH_LENGTH:]
            if len(stem) <= HASH_LENGTH or stem[-HASH_LENGTH - 1] != "-" or not _is_hash(found):
                return None
            return found, rank
    return None


def _is_hash(text: str) -> bool:
    try:
        return not text.encode("ascii").translate(None, _BASE32)
    except UnicodeEncodeError:
        return False


def dated(when: float) -> int | None:
    """A file's time as a push date (whole seconds), or None when it cannot be one."""
    return int(when) if 0 <= when < LATEST else None


@dataclass
class Walked:
    """What one walk found: per binary hash, its record's time; and what kept the rest unknown."""

    dates: dict[str, int] = field(default_factory=dict)
    cut: bool = False  # stopped at max_entries
    unread: int = 0  # package directories that could not be read
    error: str | None = None  # why no record could be dated at all (the records' directory unreadable)

    def status(self) -> dict[str, object]:
        return {"cut": self.cut, "unread": self.unread, "error": self.error}


class _Cut(Exception):
    pass


def walk(root: str, layout: str, max_entries: int) -> Walked:
    """The record files under the mirror at `root` (a path) and their times, by binary hash."""
    walked = Walked()
    found: dict[str, float] = {}
    budget = [max_entries]
    top = os.path.join(root, V3_RECORDS if layout == "v3" else V2_RECORDS)
    try:
        with _directory(top) as listed:
            if layout == "v3":
                for package in _package_directories(listed, budget):
                    try:
                        with _directory(package, within=listed) as records:
                            _date_manifests(records, found, budget)
                    except OSError:
                        walked.unread += 1  # gone or unreadable since it was listed: its binaries' dates stay unknown
            else:
                _date_records(listed, found, budget)
    except _Cut:
        walked.cut = True
    except (FileNotFoundError, NotADirectoryError):
        pass  # a mirror without its records (an index alone): nothing says when its binaries were pushed
    except OSError as exc:
        walked.error = f"cannot read it ({exc.strerror or exc})"
    walked.dates = _hashes_only({hash_: int(when) for hash_, when in found.items()})
    return walked


# Where the platform can, each directory is read through a descriptor of its own, opened from its parent's, and
# each record's time comes from `fstatat` beside it: the kernel resolves one name per record, not the whole path.
_BY_DESCRIPTOR = os.scandir in os.supports_fd and os.stat in os.supports_dir_fd


@contextmanager
def _directory(name: str, within: str | int | None = None) -> Iterator[str | int]:
    """What `os.scandir` reads `name` (inside the directory `within`, as `_directory` gave it) through."""
    if not _BY_DESCRIPTOR:
        yield name if within is None else os.path.join(str(within), name)
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
    if within is not None:
        flags |= getattr(os, "O_NOFOLLOW", 0)  # a package's directory replaced by a link since it was listed
    descriptor = os.open(name, flags, dir_fd=within if isinstance(within, int) else None)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _hashes_only(dates: dict[str, int]) -> dict[str, int]:
    """`dates` without the names that are not hashes: checked all at once, one by one only when one is not."""
    if _is_hash("".join(dates)) or not dates:
        return dates
    return {hash_: when for hash_, when in dates.items() if _is_hash(hash_)}


def _package_directories(listed: str | int, budget: list[int]) -> list[str]:
    directories = []
    with os.scandir(listed) as entries:
        for entry in entries:
            _spend(budget)
            if entry.is_dir(follow_symlinks=False):  # a link could lead out of the mirror, or round in a loop
                directories.append(entry.name)
    return directories


def _date_manifests(listed: str | int, found: dict[str, float], budget: list[int]) -> None:
    """One package directory's v3 manifests: each one's time, by the hash its name ends with.

    The loop runs once per binary, so it does only what each entry needs: the hash's characters are checked once
    the walk is done (`_hashes_only`)."""
    end, start = -_V3_HASH_END, -_V3_HASH_END - HASH_LENGTH
    left = budget[0]
    try:
        with os.scandir(listed) as entries:
            for entry in entries:
                left -= 1
                if left < 0:
                    raise _Cut
                name = entry.name
                # the slice is "-" only for a name with a hash's length after a "-": shorter ones give "" or a letter
                if name.endswith(V3_SUFFIX) and name[start - 1:start] == "-" and entry.is_file(follow_symlinks=False):
                    hash_ = name[start:end]
                    if hash_ in found:
                        continue  # filed twice (two packages' directories): the first time found counts
                    try:
                        when = entry.stat(follow_symlinks=False).st_mtime
                    except OSError:
                        continue  # removed since it was listed
                    if 0 <= when < LATEST:
                        found[hash_] = when
    finally:
        budget[0] = left


def _date_records(listed: str | int, found: dict[str, float], budget: list[int]) -> None:
    """A v2 records directory: each binary dated by the record Spack reads first (see `V2_SUFFIXES`)."""
    ranks: dict[str, int] = {}
    with os.scandir(listed) as entries:
        for entry in entries:
            _spend(budget)
            name = entry.name
            if not name.endswith(V2_SUFFIXES):
                continue  # a tarball's directory, a key, an index: never stat'ed
            hashed = record_hash(name, "v2")
            if hashed is None or not entry.is_file(follow_symlinks=False):
                continue
            hash_, rank = hashed
            if hash_ in ranks and ranks[hash_] <= rank:
                continue  # a record Spack reads before this one dates the binary already
            try:
                when = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue  # removed since it was listed
            if dated(when) is not None:
                found[hash_] = when
                ranks[hash_] = rank


def _spend(budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise _Cut


def encode(dates: dict[str, int]) -> bytes:
    return b"".join(WIRE.pack(hash_.encode("ascii"), when) for hash_, when in dates.items())


def decode(data: bytes) -> dict[str, int]:
    """What `encode` wrote; ValueError for anything else."""
    if len(data) % WIRE.size:
        raise ValueError(f"{len(data)} bytes is not a whole number of records")
    return {hash_.decode("ascii"): when for hash_, when in WIRE.iter_unpack(data)}


def main(argv: list[str]) -> int:
    root, layout, max_entries = argv[0], argv[1], int(argv[2])
    if hasattr(os, "nice"):
        try:
            os.nice(10)  # the load it runs beside comes first: on a busy machine this waits, not the decode
        except OSError:
            pass
    walked = walk(root, layout, max_entries)
    sys.stdout.buffer.write(encode(walked.dates))
    sys.stdout.buffer.flush()
    sys.stderr.write(json.dumps(walked.status()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
