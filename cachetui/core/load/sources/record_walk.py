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
its own entry (`DirEntry.stat(follow_symlinks=False)`), never a `stat` per binary outside the
walk; at most `max_entries` entries are looked at.

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
    ranks: dict[str, int] = {}
    budget = [max_entries]
    top = os.path.join(root, V3_RECORDS if layout == "v3" else V2_RECORDS)
    try:
        for directory in (_package_directories(top, budget) if layout == "v3" else [top]):
            try:
                _date_records(directory, layout, walked.dates, ranks, budget)
            except OSError:
                walked.unread += 1  # gone or unreadable since it was listed: its binaries' dates stay unknown
    except _Cut:
        walked.cut = True
    except (FileNotFoundError, NotADirectoryError):
        pass  # a mirror without its records (an index alone): nothing says when its binaries were pushed
    except OSError as exc:
        walked.error = f"cannot read it ({exc.strerror or exc})"
    walked.dates = _hashes_only(walked.dates)
    return walked


def _hashes_only(dates: dict[str, int]) -> dict[str, int]:
    """`dates` without the names that are not hashes: checked all at once, one by one only when one is not."""
    if _is_hash("".join(dates)) or not dates:
        return dates
    return {hash_: when for hash_, when in dates.items() if _is_hash(hash_)}


def _package_directories(top: str, budget: list[int]) -> list[str]:
    directories = []
    with os.scandir(top) as entries:
        for entry in entries:
            _spend(budget)
            if entry.is_dir(follow_symlinks=False):  # a link could lead out of the mirror, or round in a loop
                directories.append(entry.path)
    return directories


def _date_records(directory: str, layout: str, dates: dict[str, int], ranks: dict[str, int],
                  budget: list[int]) -> None:
    # The loop runs once per binary: what it calls is kept to the few things each entry needs.
    v3 = layout == "v3"
    ends = V3_SUFFIX if v3 else V2_SUFFIXES
    with os.scandir(directory) as entries:
        for entry in entries:
            budget[0] -= 1
            if budget[0] < 0:
                raise _Cut
            name = entry.name
            if not name.endswith(ends):
                continue  # a tarball's directory, a key, an index: never stat'ed
            if v3:  # its one suffix: the hash's characters are checked once the walk is done (`_hashes_only`)
                hash_, rank = name[-_V3_HASH_END - HASH_LENGTH:-_V3_HASH_END], 0
                if len(name) <= _V3_HASH_END + HASH_LENGTH or name[-_V3_HASH_END - HASH_LENGTH - 1] != "-":
                    continue
            else:
                found = record_hash(name, layout)
                if found is None:
                    continue
                hash_, rank = found
            if not entry.is_file(follow_symlinks=False):
                continue
            if rank and hash_ in dates and ranks[hash_] <= rank:
                continue  # the record Spack reads first is dated already
            try:
                when = dated(entry.stat(follow_symlinks=False).st_mtime)
            except OSError:
                continue  # removed since it was listed
            if when is not None and (hash_ not in dates or rank < ranks[hash_]):
                dates[hash_] = when
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
