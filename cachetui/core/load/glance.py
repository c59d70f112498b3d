"""What the sources held when they were last read: enough for the browser's first frame before they are checked.

A warm start draws its package list and the counts from this file (a few kilobytes of JSON beside the cache
file) while the sources are checked for changes and the corpus is mapped, and says that what it shows is the
last reading until the corpus is there. Only the standard library, like `cache_names`: the first frame waits
for neither numpy nor the loader. The file is the cache directory's (private, written whole and renamed) and
is read as untrusted: one that is not a regular file, is too big or is not of this shape is no glance.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from cachetui.core.load.cache_names import cache_stem
from cachetui.core.load.private_dir import NotPrivate, open_private, private_directory, write_private

if TYPE_CHECKING:
    from cachetui.core.model.corpus import Corpus

GLANCE_FORMAT = 1
SUFFIX = ".glance.json"
MAX_BYTES = 16 << 20  # tens of bytes a package: a file past this lies about what it is
MAX_NAME = 1024  # longer than any package name a document may carry
MAX_SPECS = 10**9  # of one package: a site holds ~500,000 specs in all


@dataclass(frozen=True)
class Glance:
    """The corpus's packages and each one's number of specs, and its documents, as the sources were last read."""

    packages: tuple[str, ...]
    sizes: tuple[int, ...]
    documents: int

    @property
    def specs(self) -> int:
        return sum(self.sizes)

    def counts(self) -> dict[str, int]:
        return dict(zip(self.packages, self.sizes, strict=True))


def glance_name(inputs: Sequence[str | os.PathLike[str]], max_bytes: int) -> str:
    """The glance of these sources, named as their cache file is (`CorpusCache.name_for`)."""
    return cache_stem(inputs, max_bytes) + SUFFIX


def glance_of(corpus: Corpus) -> Glance:
    sizes = corpus.package_sizes()
    return Glance(tuple(sizes), tuple(sizes.values()), len(corpus.documents))


def read_glance(directory: Path, name: str) -> Glance | None:
    """The glance kept for these sources; None when there is none or it cannot be trusted."""
    try:
        with private_directory(directory, create=False) as dir_fd:
            if dir_fd is None:
                return None
            with open_private(dir_fd, name) as handle:
                if handle is None:
                    return None
                text = handle.read(MAX_BYTES + 1)
        return None if len(text) > MAX_BYTES else _parsed(json.loads(text))
    except (NotPrivate, OSError, ValueError, RecursionError):
        return None


def _parsed(found: Any) -> Glance | None:
    if not isinstance(found, dict) or found.get("format") != GLANCE_FORMAT:
        return None
    packages, sizes, documents = (found.get(k) for k in ("packages", "sizes", "documents"))
    if not (isinstance(packages, list) and isinstance(sizes, list) and len(packages) == len(sizes)):
        return None
    if not all(isinstance(name, str) and 0 < len(name) <= MAX_NAME for name in packages) \
            or len(set(packages)) != len(packages):
        return None
    if not all(type(size) is int and 0 < size <= MAX_SPECS for size in sizes):
        return None
    if type(documents) is not int or not 0 <= documents <= MAX_SPECS:
        return None
    return Glance(tuple(packages), tuple(sizes), documents)


def forget_glance(directory: Path, name: str) -> None:
    """No glance for these sources: they were read, but no cache file was written beside it, so the one kept is no
    longer the last reading."""
    try:
        with private_directory(directory, create=False) as dir_fd:
            if dir_fd is not None:
                os.unlink(name, dir_fd=dir_fd)
    except (NotPrivate, OSError):
        pass


def write_glance(directory: Path, name: str, glance: Glance) -> None:
    """Keep `glance` for the next start (unless the one kept says the same): a failure costs only a first
    frame drawn from the corpus, as before any glance was kept."""
    if read_glance(directory, name) == glance:
        return
    text = json.dumps({"format": GLANCE_FORMAT, "packages": list(glance.packages), "sizes": list(glance.sizes),
                       "documents": glance.documents}, ensure_ascii=True).encode()

    def write(handle: BinaryIO) -> None:
        handle.write(text)

    try:
        with private_directory(directory, create=False) as dir_fd:
            if dir_fd is not None:
                write_private(dir_fd, name, write)
    except (NotPrivate, OSError):
        pass

