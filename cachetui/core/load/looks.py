"""What was there when the user last looked: per source, its binaries and the moment, kept in the cache directory.

A source is one index of a mirror (its documents carry its location) or one tag of a site's documents
(`_cache/<tag>`). A look remembers each source's binaries as 64-bit keys of their hashes, sorted, with the
moment it was taken; a binary is new when its source was looked at before and it was not there then. A
source never looked at has nothing new: adding a mirror does not make every binary in it new.

The browser takes a look when its sources are read (and again at each reload); commands only read
sources, they never take one. The files are the cache directory's (private, written whole and renamed,
see `private_dir`), and are read as untrusted: a file that is not one, or is too big, is no look.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from cachetui.core.load.private_dir import NotPrivate, open_private, private_subdirectory, write_private
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.documents import generations, mirror_generation
from cachetui.core.model.moment import at_load
from cachetui.core.model.tables import hash_keys

LOOKS = "looks"  # the cache directory's subdirectory
MAGIC = b"cachetui-look 1\n"
MAX_HEADER_BYTES = 64 << 10
MAX_KEYS = 50_000_000  # a whole site is ~500k binaries: a count past this is a file that lies


@dataclass(frozen=True)
class Look:
    """One source's binaries (sorted 64-bit keys of their hashes) at a moment (seconds since the epoch)."""

    at: float
    keys: np.ndarray


@dataclass(frozen=True)
class New:
    """What is new against earlier looks: per spec, whether it is; how many distinct binaries; since when."""

    specs: np.ndarray  # bool per spec
    binaries: int
    since: float | None  # the earliest earlier look of a source that has something new; None: nothing new
    looked: float | None = None  # the latest earlier look of any of its sources; None: none was looked at before

    @classmethod
    def nothing(cls, corpus: Corpus) -> New:
        return cls(np.zeros(corpus.n_specs, dtype=bool), 0, None)


def source_of(path: str, tag: str, from_mirror: bool) -> str:
    """The source a document belongs to: a mirror's index (its documents carry its location), else one tag of a
    site's documents (`…/_cache/<tag>/<package>/specs.md`: the site's root; loose files: their directory)."""
    if from_mirror:
        return path
    path = path.replace(os.sep, "/")
    root, cache, _ = path.rpartition("/_cache/")
    return f"{root if cache else posixpath.dirname(path)} tag {tag}"


def sources(corpus: Corpus) -> dict[str, np.ndarray]:
    """Each source of the corpus -> its specs' indices, in corpus order."""
    documents = corpus.documents
    per_generation = {g: mirror_generation(g) for g in set(generations(documents))}
    spans: dict[str, list[range]] = {}
    for document, generation in zip(documents, generations(documents)):
        spans.setdefault(source_of(document.path, document.tag, per_generation[generation]), []).append(
            range(document.start, document.stop))
    return {source: np.concatenate([np.arange(r.start, r.stop, dtype=np.int64) for r in ranges])
            for source, ranges in spans.items()}


def new_since(corpus: Corpus, earlier: Mapping[str, Look]) -> New:
    """The corpus's binaries that were not in their source at its earlier look."""
    return _new(corpus, earlier, sources(corpus), hash_keys(corpus.hashes))


def _new(corpus: Corpus, earlier: Mapping[str, Look], grouped: dict[str, np.ndarray], keys: np.ndarray) -> New:
    new = np.zeros(corpus.n_specs, dtype=bool)
    since: float | None = None
    looked: float | None = None
    for source, specs in grouped.items():
        look = earlier.get(source)
        if look is None:
            continue
        looked = look.at if looked is None else max(looked, look.at)
        fresh = ~_isin_sorted(keys[specs], look.keys)
        if fresh.any():
            new[specs[fresh]] = True
            since = look.at if since is None else min(since, look.at)
    return New(new, len(np.unique(keys[new])), since, looked)


def binaries_changed(before: Corpus, after: Corpus) -> tuple[int, int]:
    """How many distinct binaries `after` has that `before` lacks, and how many it lost."""
    then, now = np.unique(hash_keys(before.hashes)), np.unique(hash_keys(after.hashes))
    return len(np.setdiff1d(now, then, assume_unique=True)), len(np.setdiff1d(then, now, assume_unique=True))


class Looks:
    """One browser session's looks: each source's earlier look, read once (so a reload compares with the look
    before the session, not with its own), and a new look taken at each read of the sources."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.earlier: dict[str, Look] = {}
        self._asked: set[str] = set()
        self._taking = threading.Lock()  # the first load's look (after its first frame) and a quick reload's

    def take(self, corpus: Corpus, now: float) -> New:
        """What is new in `corpus` since the earlier looks (its `new` facet says it from now on); then `corpus` is
        remembered as seen `now`."""
        with self._taking:
            return self._take(corpus, now)

    def _take(self, corpus: Corpus, now: float) -> New:
        grouped, keys = sources(corpus), hash_keys(corpus.hashes)
        unasked = [source for source in grouped if source not in self._asked]
        self.earlier.update(read_looks(self.directory, unasked))
        self._asked.update(unasked)
        new = _new(corpus, self.earlier, grouped, keys) if corpus.n_specs else New.nothing(corpus)
        for source in unasked:  # never looked at before: this look is the one a reload compares with
            self.earlier.setdefault(source, Look(now, np.unique(keys[grouped[source]])))
        corpus.new = new.specs
        at_load(corpus, corpus.loaded_at)  # its facet worked out again, as of the same load
        _remember(self.directory, grouped, keys, now)
        return new


def _isin_sorted(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    if not len(sorted_keys):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_keys, values), len(sorted_keys) - 1)
    return sorted_keys[at] == values


# -- kept in the cache directory ----------------------------------------------------------------------------


def _file_name(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".look"


def read_looks(directory: Path, wanted: list[str]) -> dict[str, Look]:
    """The last look of each of these sources that has one (a missing, foreign or damaged file: none)."""
    looks: dict[str, Look] = {}
    try:
        with private_subdirectory(directory, LOOKS, create=False) as dir_fd:
            if dir_fd is None:
                return looks
            for source in wanted:
                look = _read(dir_fd, _file_name(source), source)
                if look is not None:
                    looks[source] = look
    except NotPrivate:
        pass
    return looks


def _read(dir_fd: int, name: str, source: str) -> Look | None:
    try:
        with open_private(dir_fd, name) as handle:
            return None if handle is None else _parsed(handle, source)
    except (NotPrivate, OSError):
        return None


def _parsed(handle: BinaryIO, source: str) -> Look | None:
    if handle.read(len(MAGIC)) != MAGIC:
        return None
    line = handle.readline(MAX_HEADER_BYTES)
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(header, dict) or header.get("source") != source:
        return None  # another source's (a name collision), or not ours
    at, count = header.get("at"), header.get("count")
    if not isinstance(at, (int, float)) or not isinstance(count, int) or not 0 <= count <= MAX_KEYS:
        return None
    data = handle.read(count * 8 + 1)
    if len(data) != count * 8:
        return None
    keys = np.frombuffer(data, dtype=np.uint64)
    if count > 1 and bool((keys[1:] < keys[:-1]).any()):
        return None
    return Look(float(at), keys)


def remember(directory: Path, corpus: Corpus, now: float) -> None:
    """Take a look: each source's binaries now."""
    _remember(directory, sources(corpus), hash_keys(corpus.hashes), now)


def _remember(directory: Path, grouped: dict[str, np.ndarray], keys: np.ndarray, now: float) -> None:
    """A cache directory that cannot be written is no look, never a failure (the browser shows the sources all
    the same)."""
    try:
        with private_subdirectory(directory, LOOKS, create=True) as dir_fd:
            if dir_fd is None:
                return
            for source, specs in grouped.items():
                _write(dir_fd, source, np.unique(keys[specs]), now)
    except (NotPrivate, OSError):
        pass


def _write(dir_fd: int, source: str, keys: np.ndarray, now: float) -> None:
    header = json.dumps({"source": source, "at": now, "count": len(keys)}).encode() + b"\n"

    def write(handle: BinaryIO) -> None:
        handle.write(MAGIC + header)
        handle.write(keys.astype(np.uint64).tobytes())

    write_private(dir_fd, _file_name(source), write)

