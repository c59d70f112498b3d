"""Find and read listing documents; every failure becomes a Problem, and the rest keeps loading.

The loader only ever opens files for reading: nothing is written into the input tree.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from cachetui.core.load.options import MAX_FILE_BYTES
from cachetui.core.load.progress import DOCUMENTS, Progress
from cachetui.core.load.sources.regular_file import NotRegular, open_regular_fd, read_regular
from cachetui.core.load.sources.site.document import UnsupportedDocument, interpret
from cachetui.core.load.sources.site.fast import fast_document
from cachetui.core.load.sources.site.frontmatter import FrontMatterError, has_front_matter, split_front_matter
from cachetui.core.load.sources.site.parse import parse_front_matter
from cachetui.core.load.sources.site.walk import (
    Candidate,
    Stamp,
    find_candidates,
    stat_stamp,
)
from cachetui.core.model.problems import LoadReport, Problem, Severity
from cachetui.core.model.records import ParsedDocument

_HEAD_BYTES = 8
_ONE_READ_BYTES = 256 * 1024  # below this a whole read costs no more than a peek

@dataclass(slots=True)
class FileResult:
    """What loading one file gave: a document, problems, or neither (a quiet skip: not a document).

    `inputs` are the other files the result was built from (the oldest generation's spec
    files), with their stamps when read; `io_error` marks a result that an I/O failure
    shaped, which must be tried again next time rather than remembered.
    """

    document: ParsedDocument | None = None
    problems: list[Problem] = field(default_factory=list)
    inputs: dict[str, Stamp | None] = field(default_factory=dict)
    io_error: bool = False
    stamp: Stamp | None = None  # the file's, taken as it was opened (before reading): never newer

    def __reduce__(self) -> tuple[type, tuple]:
        # By position: 50,000 of these come back from the workers; the dataclass way pickles field by name.
        return FileResult, (self.document, self.problems, self.inputs, self.io_error, self.stamp)

    @property
    def notable(self) -> bool:
        """Whether it says more than the file's stamp (and its document): problems, other files read, an I/O
        failure. Only such results are kept, by path, beside a corpus."""
        return bool(self.problems or self.inputs or self.io_error)


@dataclass(slots=True)
class ChunkResults:
    """What loading a chunk of files gave, compactly: 50,000 files' results cross between processes.

    `stamps`: each file's stamp as it was read, in the chunk's order. `notable`: by place in the chunk, the
    results with more to say (problems, other files read, an I/O failure); every other file's result is its
    stamp alone, its document being in the builder.
    """

    stamps: list[Stamp | None] = field(default_factory=list)
    notable: dict[int, FileResult] = field(default_factory=dict)

    def add(self, result: FileResult) -> None:
        """The next file's result, its document already taken."""
        if result.notable:
            self.notable[len(self.stamps)] = result
        self.stamps.append(result.stamp)

    def __reduce__(self) -> tuple[type, tuple]:
        return ChunkResults, (self.stamps, self.notable)


def load_file(candidate: Candidate, max_bytes: int = MAX_FILE_BYTES) -> FileResult:
    """Load one file; never raises for anything the file contains."""
    path = candidate.path
    try:
        data, read_stamp = _read_document(path, max_bytes, must_be_document=candidate.explicit,
                                          listed_regular=candidate.listed_regular)
    except _Unreadable as exc:
        return FileResult(problems=[Problem(path, exc.reason)], io_error=exc.io_error)
    if data is None:
        return FileResult(stamp=read_stamp)
    result = load_bytes(path, data, max_bytes)
    result.stamp = read_stamp
    return result


def load_bytes(path: str, data: bytes, max_bytes: int = MAX_FILE_BYTES) -> FileResult:
    """Turn a document's bytes into a FileResult; never raises for anything in `data`."""
    document = fast_document(path, data)
    if document is not None:
        return FileResult(document=document, problems=document.problems)
    return read_in_general(path, data, max_bytes)


def read_in_general(path: str, data: bytes, max_bytes: int = MAX_FILE_BYTES) -> FileResult:
    """The general path: any generation, any irregularity, each problem said (the fast lane's fallback)."""
    text, problems = _decode(path, data)
    siblings = _SiblingReader(path, max_bytes)
    try:
        lines = split_front_matter(text)
        parsed, key_lines = parse_front_matter(lines)
        document = interpret(parsed, path, key_lines, siblings.read)
    except FrontMatterError as exc:
        result = FileResult(problems=problems + [Problem(path, exc.reason, Severity.ERROR, exc.line)])
    except UnsupportedDocument as exc:
        result = FileResult(problems=problems + [Problem(path, f"unsupported format: {exc}")])
    else:
        document.problems[:0] = problems
        result = FileResult(document=document, problems=document.problems)
    result.inputs, result.io_error = siblings.inputs, siblings.io_error
    return result


class _Unreadable(Exception):
    def __init__(self, reason: str, *, io_error: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.io_error = io_error  # False when the file was read and refused (too large, not a file)


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.2f} MB"


def _read_document(path: str, max_bytes: int, *, must_be_document: bool, listed_regular: bool = False
                   ) -> tuple[bytes | None, Stamp]:
    """The file's bytes (None for a file that is quietly not a document) and its stamp when read.

    On the descriptor itself, not a file object: a whole site's reads are then the open, a status,
    the read and a status after it (to see a file written to while read), and nothing else.
    """
    try:
        fd, info = open_regular_fd(path, listed_regular=listed_regular)
    except NotRegular as exc:
        raise _Unreadable(f"not a regular file ({exc.kind}); not opened", io_error=False) from None
    except PermissionError:
        raise _Unreadable("permission denied") from None
    except OSError as exc:
        raise _Unreadable(f"cannot read: {exc.strerror or exc}") from None
    try:
        with _closing(fd):
            # One syscall for the usual small document; a peek at the head otherwise.
            asked = _ONE_READ_BYTES + 1 if info.st_size <= _ONE_READ_BYTES else _HEAD_BYTES
            data = _read(fd, asked, info.st_size)
            if not must_be_document and not has_front_matter(data[:_HEAD_BYTES]):
                return None, stat_stamp(info)
            if info.st_size > max_bytes:
                cap = f"over the {_megabytes(max_bytes)} cap (--max-file-size)"
                raise _Unreadable(f"file is {_megabytes(info.st_size)}, {cap}; skipped", io_error=False)
            if len(data) == asked:
                data += _read(fd, max_bytes + 1 - len(data), info.st_size - len(data))
            if len(data) > max_bytes:
                raise _Unreadable(f"file grew past the {_megabytes(max_bytes)} cap while read; skipped")
            after = os.fstat(fd)
            if len(data) != info.st_size or stat_stamp(after) != stat_stamp(info):
                # written to while read: what was read may be half of one version and half of another
                raise _Unreadable(f"changed while it was read ({info.st_size} bytes, then {after.st_size}); "
                                  "skipped, and read again next time")
            return data, stat_stamp(info)
    except PermissionError:
        raise _Unreadable("permission denied") from None
    except OSError as exc:
        raise _Unreadable(f"cannot read: {exc.strerror or exc}") from None


@contextmanager
def _closing(fd: int) -> Iterator[int]:
    try:
        yield fd
    finally:
        os.close(fd)


def _read(fd: int, limit: int, size: int) -> bytes:
    """Up to `limit` bytes of a file expected to hold `size` more: one call when it gives them all.

    Reading on after a read that reached the size would only find the end; a read that stops short
    of it (which some file systems allow) is followed by more, so that only a real change of the
    file, not a short read, fails the size check after.
    """
    data = read_regular(fd, limit)
    while len(data) < min(limit, size):
        more = read_regular(fd, limit - len(data))
        if not more:
            break
        data += more
    return data


def _decode(path: str, data: bytes) -> tuple[str, list[Problem]]:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        reason = f"not valid UTF-8 (byte {exc.start}); undecodable bytes shown as U+FFFD"
        return data.decode("utf-8", errors="replace"), [Problem(path, reason, Severity.WARNING, line)]


class _SiblingReader:
    """Reads spec files named by a document, only from its own directory, and remembers each one read."""

    def __init__(self, path: str, max_bytes: int) -> None:
        self.directory = os.path.dirname(path)
        self.max_bytes = max_bytes
        self.inputs: dict[str, Stamp | None] = {}
        self.io_error = False

    def read(self, name: str) -> tuple[str | None, str]:
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            return None, "spec file name is not a plain file name; refused"
        path = os.path.join(self.directory, name)
        try:
            data, self.inputs[path] = _read_document(path, self.max_bytes, must_be_document=True)
            return (data or b"").decode("utf-8", errors="replace"), ""
        except _Unreadable as exc:
            self.inputs[path] = None
            self.io_error = self.io_error or exc.io_error
            return None, exc.reason


@dataclass(slots=True)
class LoadResult:
    documents: list[ParsedDocument]
    report: LoadReport


def iter_documents(
    candidates: Sequence[Candidate],
    report: LoadReport,
    *,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Progress | None = None,
    results: Iterator[FileResult] | None = None,
) -> Iterator[ParsedDocument]:
    """Load candidates (or take their `results` from elsewhere), record problems, yield documents."""
    if results is None:
        results = (load_file(candidate, max_bytes) for candidate in candidates)
    for done, result in enumerate(results, 1):
        report.files_seen += 1
        report.extend(result.problems)
        if result.document is not None:
            yield result.document
        if progress is not None and (done % 256 == 0 or done == len(candidates)):
            progress(done, len(candidates), DOCUMENTS)


def load_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Progress | None = None,
) -> LoadResult:
    """Load every document under `paths` into a list. Raises PathNotFound only for a missing path."""
    report = LoadReport()
    candidates = find_candidates(paths, report)
    documents = list(iter_documents(candidates, report, max_bytes=max_bytes, progress=progress))
    return LoadResult(documents, report)
