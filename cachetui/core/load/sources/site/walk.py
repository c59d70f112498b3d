"""Find the site's files, and tell whether each is as it was: the walk and the stamps of files and directories.

Apart from the reading (`loader`), so that a warm start, which only stats what the last walk found,
imports none of the parsers.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import attrgetter

from cachetui.core.model.problems import LoadReport, PathNotFound, Problem, Severity

LISTING_NAMES = frozenset({"specs.md", "index.md"})

Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode: any write changes one
_FILE_STAMP = attrgetter("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino")  # a Stamp, from a stat
_DIRECTORY_STAMP = attrgetter("st_mtime_ns", "st_ctime_ns")  # a DirStamp


def stamp(path: str) -> Stamp | None:
    try:
        return stat_stamp(os.stat(path))
    except OSError:
        return None


def stat_stamp(info: os.stat_result) -> Stamp:
    return _FILE_STAMP(info)


def stamps_now(paths: Iterable[str], *, directories: bool = False) -> list[int] | None:
    """Each path's stamp now (a DirStamp when `directories`), one after another in one flat list;
    None when any cannot be stat'ed. A warm start's 100,000 stats, with no Python object kept per path."""
    fields = _DIRECTORY_STAMP if directories else _FILE_STAMP
    flat: list[int] = []
    extend, stat = flat.extend, os.stat
    try:
        for path in paths:
            extend(fields(stat(path)))
    except OSError:
        return None
    return flat


@dataclass(slots=True)
class Candidate:
    path: str
    explicit: bool  # named on the command line, or a site listing name: must be a document
    listed_regular: bool = False  # its directory's listing said: a regular file, not a link (no stat to tell)

    def __reduce__(self) -> tuple[type, tuple]:
        # By position, as FileResult: 50,000 of these go to the workers.
        return Candidate, (self.path, self.explicit, self.listed_regular)


DirStamp = tuple[int, int]  # mtime_ns, ctime_ns: an entry added, removed or renamed changes them


def directory_stamp(path: str) -> DirStamp | None:
    try:
        return _DIRECTORY_STAMP(os.stat(path))
    except OSError:
        return None


def find_candidates(
    paths: Sequence[str | os.PathLike[str]],
    report: LoadReport,
    directories: dict[str, DirStamp | None] | None = None,
) -> list[Candidate]:
    """Expand files and directories (recursively, symlink loops detected) into candidate files.

    `directories`, when given, receives each directory walked and its stamp (for the
    warm-start cache); None for one that could not be listed, so the next load walks again.
    """
    require_paths(paths)
    return list(iter_candidates(paths, report, directories))


def iter_candidates(
    paths: Sequence[str | os.PathLike[str]],
    report: LoadReport,
    directories: dict[str, DirStamp | None] | None = None,
) -> Iterator[Candidate]:
    """find_candidates as the walk goes (the paths are known to exist)."""
    for raw in paths:
        path = str(raw)
        if os.path.isdir(path):
            yield from _walk(path, report, set(), {} if directories is None else directories)
        else:
            yield Candidate(path, explicit=True)


def require_paths(paths: Sequence[str | os.PathLike[str]]) -> None:
    """Raise PathNotFound for the first path that does not exist."""
    for raw in paths:
        if not os.path.lexists(raw):
            raise PathNotFound(str(raw))


def _walk(
    top: str, report: LoadReport, visited: set[tuple[int, int]], directories: dict[str, DirStamp | None]
) -> Iterator[Candidate]:
    """Depth first, entries in name order, a site's `_cache` package by package (`_by_package`); one stat per
    directory (loops, and its stamp for the cache)."""
    if os.path.basename(os.path.normpath(top)) == SITE_CACHE:
        yield from _by_package(top, report, visited, directories)
    else:
        yield from _depth_first(top, report, visited, directories)


def _depth_first(
    top: str, report: LoadReport, visited: set[tuple[int, int]], directories: dict[str, DirStamp | None]
) -> Iterator[Candidate]:
    stack = [iter(_entries(top, report, visited, directories))]
    while stack:
        for entry in stack[-1]:
            if entry.name[:1] == ".":
                continue  # .git, editor droppings: never site content
            if not _is_dir(entry):
                yield _candidate(entry)
            elif entry.name == SITE_CACHE:
                yield from _by_package(entry.path, report, visited, directories)
            else:
                stack.append(iter(_entries(entry.path, report, visited, directories)))
                break
        else:
            stack.pop()


SITE_CACHE = "_cache"  # the site's `_cache/<tag>/<package>/specs.md`


def _by_package(
    cache: str, report: LoadReport, visited: set[tuple[int, int]], directories: dict[str, DirStamp | None]
) -> Iterator[Candidate]:
    """A site's `_cache/<tag>/<package>/…`, package by package, each package's tags in display order.

    The corpus keeps documents in that order (package, tag, path: `CorpusBuilder.finish`), so a cold
    load that reads them as they are found builds its columns in place and never reorders them. Files
    directly in `_cache` or in a tag come first; a document whose title or categories name another
    package or tag than its path is only out of place (the builder moves what it must).
    """
    from cachetui.core.spack.tags import sort_tags  # a warm start never walks: it need not import this

    tags, files = _split(cache, report, visited, directories)
    yield from files
    packages: dict[str, list[str]] = {}  # package -> its directory in each tag, the tags in display order
    for tag in sort_tags(tags):
        in_tag, files = _split(tags[tag], report, visited, directories)
        yield from files
        for package, directory in in_tag.items():
            packages.setdefault(package, []).append(directory)
    for package in sorted(packages):
        for directory in packages[package]:  # as _depth_first would walk it, without a generator for each of 50,000
            for entry in _entries(directory, report, visited, directories):
                if entry.name[:1] == ".":
                    continue
                if not _is_dir(entry):
                    yield _candidate(entry)
                else:
                    yield from (_by_package if entry.name == SITE_CACHE else _depth_first)(
                        entry.path, report, visited, directories)


def _split(directory: str, report: LoadReport, visited: set[tuple[int, int]],
           directories: dict[str, DirStamp | None]) -> tuple[dict[str, str], list[Candidate]]:
    """A directory's subdirectories (name -> path) and its files, hidden entries left out."""
    subdirectories: dict[str, str] = {}
    files: list[Candidate] = []
    for entry in _entries(directory, report, visited, directories):
        if entry.name[:1] == ".":
            continue
        if _is_dir(entry):
            subdirectories[entry.name] = entry.path
        else:
            files.append(_candidate(entry))
    return subdirectories, files


def expected_documents(roots: Sequence[str]) -> int | None:
    """A guess at how many documents a walk of `roots` finds, from two listings a site: its tags times the
    entries of its first tag (`_cache/<tag>/<package>`). None when no root is laid out so.

    Asked before the walk, so that the parsers' processes start while it goes on; a wrong guess costs
    a process started for nothing, or started later, never a wrong result.
    """
    total = 0
    for root in roots:
        cache = root if os.path.basename(os.path.normpath(root)) == SITE_CACHE else os.path.join(root, SITE_CACHE)
        try:
            with os.scandir(cache) as found:
                tags = [entry.path for entry in found if entry.name[:1] != "." and _is_dir(entry)]
            if tags:
                with os.scandir(tags[0]) as found:
                    total += len(tags) * sum(1 for _ in found)
        except OSError:
            continue
    return total or None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _candidate(entry: os.DirEntry[str]) -> Candidate:
    try:
        regular = entry.is_file(follow_symlinks=False)  # the listing's file type: no system call
    except OSError:
        regular = False
    return Candidate(entry.path, entry.name in LISTING_NAMES, regular)


_NAME = attrgetter("name")


def _entries(directory: str, report: LoadReport, visited: set[tuple[int, int]],
             directories: dict[str, DirStamp | None]) -> list[os.DirEntry[str]]:
    try:
        info = os.stat(directory)
    except OSError as exc:
        directories[directory] = None
        report.add(Problem(directory, f"cannot read directory: {exc.strerror or exc}"))
        return []
    key = (info.st_dev, info.st_ino)
    if key in visited:
        report.add(Problem(directory, "symlink loop: directory already visited; not followed", Severity.WARNING))
        return []
    visited.add(key)
    directories[directory] = _DIRECTORY_STAMP(info)
    try:
        with os.scandir(directory) as found:
            entries = list(found)
    except OSError as exc:
        directories[directory] = None
        report.add(Problem(directory, f"cannot read directory: {exc.strerror or exc}"))
        return []
    if len(entries) > 1:  # a site's package directory holds one file: 50,000 sorts of nothing cost 0.1 s
        entries.sort(key=_NAME)
    return entries
