"""Site trees and mirrors on disk that bite: FIFOs, sockets, devices, loops, unreadable and changing files.

Each is one reported problem, at once, and the good documents beside it load in full. A
FIFO is never opened (opening one for reading waits for a writer): should that regress, a
watchdog opens the FIFO's other end after a while, so the test fails instead of hanging.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cachetui.core.load import LoadOptions, load_corpus
from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site import loader
from tests.conftest import listing, spec_entry
from tests.mirrors import DB7, v2_mirror

SAMPLE_SPECS = 362


@contextmanager
def watchdog(fifo: Path, seconds: float = 30) -> Iterator[None]:
    """If the block runs longer than `seconds`, open the FIFO for writing so a blocked reader wakes up."""
    done = threading.Event()

    def unblock() -> None:
        if not done.wait(seconds):
            with open(fifo, "wb"):
                pass

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _document(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(listing("zlib", "develop", [spec_entry("z" * 32)]))


def _problems(corpus, path: Path) -> list[str]:  # noqa: ANN001
    return [p.reason for p in corpus.report.problems if p.path == str(path)]


def test_a_fifo_is_reported_and_never_opened(tmp_path: Path) -> None:
    tree = tmp_path / "_cache" / "develop"
    _document(tree / "zlib" / "specs.md")
    for name in ("pkg/specs.md", "pkg/notes.txt"):  # a listing name, and a file met on the walk
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(tree / name)
    with watchdog(tree / "pkg" / "specs.md"), watchdog(tree / "pkg" / "notes.txt"):
        corpus = load_corpus([sample_path(), tmp_path])
    assert corpus.n_specs == SAMPLE_SPECS + 1
    for name in ("pkg/specs.md", "pkg/notes.txt"):
        assert _problems(corpus, tree / name) == ["not a regular file (a FIFO (named pipe)); not opened"]


def test_a_socket_and_device_nodes_are_reported(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    _document(tree / "zlib" / "specs.md")
    (tree / "s").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tree / "s" / "specs.md"))
    try:
        (tree / "zero").mkdir()
        (tree / "zero" / "specs.md").symlink_to("/dev/zero")  # a device reached through a link
        (tree / "null").mkdir()
        os.mknod(tree / "null" / "specs.md", stat.S_IFCHR | 0o600, os.makedev(1, 3))  # tests run as root here
        corpus = load_corpus([tree])
    finally:
        server.close()
    assert corpus.n_specs == 1
    assert _problems(corpus, tree / "s" / "specs.md") == ["not a regular file (a socket); not opened"]
    for name in ("zero", "null"):
        assert _problems(corpus, tree / name / "specs.md") == ["not a regular file (a character device); not opened"]


def test_a_file_its_listing_shows_regular_is_opened_without_a_stat_and_a_link_is_stat_ed_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "_cache" / "develop"
    _document(tree / "zlib" / "specs.md")
    (tree / "linked").mkdir()
    (tree / "linked" / "specs.md").symlink_to(tree / "zlib" / "specs.md")
    real_stat, stated = os.stat, []
    monkeypatch.setattr(os, "stat", lambda path, *args, **kwargs: stated.append(str(path)) or real_stat(path, *args,
                                                                                                         **kwargs))
    corpus = load_corpus([tmp_path], LoadOptions(workers=1))
    assert corpus.n_specs == 2
    assert str(tree / "zlib" / "specs.md") not in stated  # the directory's listing said: a regular file
    assert str(tree / "linked" / "specs.md") in stated  # a link: what it leads to is stat'ed before it is opened


def test_a_symlink_loop_between_files_is_reported(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    _document(tree / "zlib" / "specs.md")
    (tree / "loop").mkdir()
    (tree / "loop" / "specs.md").symlink_to(tree / "loop" / "other.md")
    (tree / "loop" / "other.md").symlink_to(tree / "loop" / "specs.md")
    corpus = load_corpus([tree])
    assert corpus.n_specs == 1
    assert _problems(corpus, tree / "loop" / "specs.md") == ["cannot read: Too many levels of symbolic links"]


def test_an_unreadable_directory_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "t"
    _document(tree / "zlib" / "specs.md")
    _document(tree / "locked" / "hidden" / "specs.md")
    locked = tree / "locked"
    locked.chmod(0)
    real_scandir = os.scandir

    def scandir(path):  # noqa: ANN001, ANN202 - root lists any directory: the refusal a user would meet
        if str(path) == str(locked) and os.geteuid() == 0:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    try:
        corpus = load_corpus([tree])
    finally:
        locked.chmod(0o755)
    assert corpus.n_specs == 1
    assert _problems(corpus, locked) == ["cannot read directory: Permission denied"]


def test_a_file_that_grows_while_read_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "t"
    _document(tree / "zlib" / "specs.md")
    growing = tree / "grows" / "specs.md"
    _document(growing)
    real_open = loader.open_regular_fd

    def opening(path: str, **kwargs: bool) -> tuple[int, os.stat_result]:
        """The file as opened, then another writer appending to it before it is read."""
        fd, info = real_open(path, **kwargs)
        if path == str(growing):
            with open(growing, "ab") as writer:
                writer.write(b"x" * 4096)
        return fd, info

    monkeypatch.setattr(loader, "open_regular_fd", opening)
    corpus = load_corpus([tree], LoadOptions(workers=1))
    assert corpus.n_specs == 1
    (reason,) = _problems(corpus, growing)
    assert reason.startswith("changed while it was read") and "read again next time" in reason


def test_a_large_sparse_file_is_refused_by_its_size(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    _document(tree / "zlib" / "specs.md")
    sparse = tree / "sparse" / "specs.md"
    sparse.parent.mkdir()
    with open(sparse, "wb") as handle:
        handle.write(b"---\ntitle: x\n")
        handle.truncate(64 << 30)  # 64 GiB that take no disk
    corpus = load_corpus([tree])
    assert corpus.n_specs == 1
    (reason,) = _problems(corpus, sparse)
    assert reason.startswith("file is 65536.00 MB, over the 64.00 MB cap")


def test_a_mirror_on_disk_whose_index_is_a_fifo(tmp_path: Path) -> None:
    mirror = v2_mirror(tmp_path / "m", DB7)
    index = mirror / "build_cache" / "index.json"
    index.unlink()
    os.mkfifo(index)
    good = v2_mirror(tmp_path / "good", DB7)
    with watchdog(index):
        corpus = load_corpus([str(index), str(good)])
    assert corpus.n_specs == 2
    (error,) = corpus.report.errors
    assert error.reason == "not a regular file (a FIFO (named pipe)); not opened" and error.path == str(index)
