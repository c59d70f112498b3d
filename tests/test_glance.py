"""The glance: what a load keeps for the browser's next first frame (the package list and its counts), and how a
file that lies about being one is no glance at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cachetui.core.load import LoadOptions, default_cache_dir, load_corpus, sample_path
from cachetui.core.load.glance import MAX_BYTES, Glance, glance_name, read_glance, write_glance
from cachetui.core.load.options import MAX_FILE_BYTES

CACHED = LoadOptions(use_cache=True)


def _name(source: Path) -> str:
    return glance_name([str(source)], MAX_FILE_BYTES)


def test_a_load_keeps_the_package_list_and_counts_it_read(private_cache_home: Path) -> None:
    corpus = load_corpus([str(sample_path())], CACHED)
    glance = read_glance(default_cache_dir(), _name(sample_path()))
    assert glance is not None
    assert glance.packages == tuple(corpus.packages)
    assert glance.counts() == corpus.package_sizes() and glance.specs == corpus.n_specs
    assert glance.documents == len(corpus.documents)


def test_a_load_that_reads_other_packages_keeps_those(tmp_path: Path, private_cache_home: Path) -> None:
    source = tmp_path / "docs"
    source.mkdir()
    documents = sorted(sample_path().iterdir())
    documents = [d for d in documents if d.suffix == ".txt"]
    for document in documents:
        (source / document.name).write_bytes(document.read_bytes())
    first = load_corpus([str(source)], CACHED)
    (source / documents[0].name).unlink()
    second = load_corpus([str(source)], CACHED)
    assert second.n_specs < first.n_specs
    glance = read_glance(default_cache_dir(), _name(source))
    assert glance is not None and glance.counts() == second.package_sizes()


def test_without_the_warm_cache_nothing_is_kept(private_cache_home: Path) -> None:
    load_corpus([str(sample_path())], LoadOptions(use_cache=False))
    assert read_glance(default_cache_dir(), _name(sample_path())) is None


def test_the_same_glance_is_not_written_again(private_cache_home: Path) -> None:
    load_corpus([str(sample_path())], CACHED)
    path = default_cache_dir() / _name(sample_path())
    before = path.stat()
    load_corpus([str(sample_path())], CACHED)
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


GOOD = {"format": 1, "packages": ["zlib", "hdf5"], "sizes": [3, 4], "documents": 2}


@pytest.mark.parametrize("text", [
    b"not json",
    b"[]",
    json.dumps({**GOOD, "format": 2}).encode(),
    json.dumps({**GOOD, "sizes": [3]}).encode(),  # one count for two packages
    json.dumps({**GOOD, "sizes": [3, -4]}).encode(),
    json.dumps({**GOOD, "sizes": [3, True]}).encode(),
    json.dumps({**GOOD, "sizes": [3, 4.0]}).encode(),
    json.dumps({**GOOD, "packages": ["zlib", "zlib"]}).encode(),
    json.dumps({**GOOD, "packages": ["zlib", ""]}).encode(),
    json.dumps({**GOOD, "packages": ["zlib", 7]}).encode(),
    json.dumps({**GOOD, "documents": -1}).encode(),
    b"[" * 100_000,  # nesting past the parser's recursion
], ids=["not-json", "a-list", "other-format", "lengths", "negative", "bool", "float", "twice", "empty-name",
        "not-a-name", "documents", "deep"])
def test_a_file_that_is_not_a_glance_is_none(text: bytes, private_cache_home: Path) -> None:
    directory = default_cache_dir()
    directory.mkdir(mode=0o700, parents=True)
    (directory / "x.glance.json").write_bytes(text)
    os.chmod(directory / "x.glance.json", 0o600)
    assert read_glance(directory, "x.glance.json") is None


def test_a_glance_past_its_size_is_none(private_cache_home: Path) -> None:
    directory = default_cache_dir()
    directory.mkdir(mode=0o700, parents=True)
    with open(directory / "x.glance.json", "wb") as handle:
        handle.write(json.dumps(GOOD).encode())
        handle.write(b" " * MAX_BYTES)
    os.chmod(directory / "x.glance.json", 0o600)
    assert read_glance(directory, "x.glance.json") is None


def test_a_fifo_a_directory_or_a_link_is_no_glance(tmp_path: Path, private_cache_home: Path) -> None:
    directory = default_cache_dir()
    directory.mkdir(mode=0o700, parents=True)
    os.mkfifo(directory / "fifo.glance.json", 0o600)
    (directory / "dir.glance.json").mkdir(mode=0o700)
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps(GOOD))
    os.symlink(target, directory / "link.glance.json")
    for name in ("fifo.glance.json", "dir.glance.json", "link.glance.json"):
        assert read_glance(directory, name) is None  # and a FIFO is never opened for a read that would block


def test_a_glance_written_is_read_back_private(private_cache_home: Path) -> None:
    directory = default_cache_dir()
    directory.mkdir(mode=0o700, parents=True)
    glance = Glance(("hdf5", "zlib"), (4, 3), 2)
    write_glance(directory, "y.glance.json", glance)
    assert read_glance(directory, "y.glance.json") == glance
    assert (directory / "y.glance.json").stat().st_mode & 0o077 == 0


def test_reading_a_glance_imports_neither_numpy_nor_the_loader(private_cache_home: Path) -> None:
    load_corpus([str(sample_path())], CACHED)
    code = ("import json, sys; from pathlib import Path; from cachetui.core.load.glance import read_glance; "
            f"assert read_glance(Path({str(default_cache_dir())!r}), {_name(sample_path())!r}) is not None; "
            "print(json.dumps(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('cachetui.core.load.'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == ["cachetui.core.load.cache_names", "cachetui.core.load.glance",
                                       "cachetui.core.load.private_dir"]
