"""The warm cache is mapped: the same answers as a cold load, a damaged file rebuilt with one warning, shared pages."""

from __future__ import annotations

import errno
import io
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cachetui.core.load.cache as cache_module
import cachetui.core.load.cache_file as cache_file
from cachetui.core.load import LoadOptions, load_corpus, sample_path
from cachetui.core.load.cache import CACHE_FORMAT, CorpusCache, cache_key
from cachetui.core.load.cache_file import BufferFile, map_buffers
from cachetui.core.load.private_dir import PrivateFile
from cachetui.core.model import tables
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.dependencies import (
    STORED_GRAPH,
    DependencyColumns,
    dependency_tree,
    node_graph,
    stored_parts,
    used_by,
)
from cachetui.core.model.fields import REGISTRY
from cachetui.core.model.tables import StringTable, encoded
from cachetui.core.query.query import Query, all_facet_counts, select
from cachetui.core.spack.deptypes import deptype_bits
from cachetui.core.spack.specquery import parse_spec_query
from tests.conftest import listing, spec_entry
from tests.dag_mirror import write_mirror


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    """The bundled sample (site documents, variants, stacks) and a mirror whose DAG goes through unheld records."""
    return [str(sample_path()), str(write_mirror(tmp_path / "mirror"))]


def _cache_file(cache: CorpusCache) -> Path:
    (file,) = cache.directory.glob("corpus-*.map")
    return file


def _warnings_about_the_cache(corpus: Corpus) -> list[str]:
    return [p.described() for p in corpus.report.warnings if "warm cache" in p.reason]


def _assert_same_corpus(cold: Corpus, warm: Corpus) -> None:
    assert list(warm.hashes) == list(cold.hashes) and warm.packages == cold.packages and warm.tags == cold.tags
    assert warm.package_ranges == cold.package_ranges and list(warm.documents) == list(cold.documents)
    assert set(warm.vocab) == set(cold.vocab)
    for name, vocabulary in cold.vocab.items():
        assert warm.vocab[name].values == vocabulary.values and warm.vocab[name].ids == vocabulary.ids, name
    assert set(warm.single) == set(cold.single) and set(warm.multi) == set(cold.multi)
    for facet, column in cold.single.items():
        assert np.array_equal(warm.single[facet], column), facet
    for name, multi in cold.multi.items():
        for part in ("offsets", "flat", "owner"):
            assert np.array_equal(getattr(warm.multi[name], part), getattr(multi, part)), (name, part)
    for name in ("package_of", "document_of", "size"):
        assert np.array_equal(getattr(warm, name), getattr(cold, name)), name
    for field in fields(DependencyColumns):
        assert np.array_equal(getattr(warm.deps, field.name), getattr(cold.deps, field.name)), field.name


def test_a_mapped_corpus_answers_as_a_cold_load(inputs: list[str]) -> None:
    cold = load_corpus(inputs)
    load_corpus(inputs, cache=CorpusCache())
    warm = load_corpus(inputs, cache=CorpusCache())
    assert warm.cache_status == "hit"
    assert isinstance(warm.hashes, StringTable) and not warm.size.flags.writeable  # mapped, not copied
    _assert_same_corpus(cold, warm)
    assert cold.n_specs > 100 and cold.has_dependencies
    assert all_facet_counts(warm, Query()) == all_facet_counts(cold, Query())
    for facet in REGISTRY.facets():  # every facet's counts under a filter on each facet in turn
        values = cold.vocab[facet].values
        if values:
            query = Query(filters={facet: frozenset({values[-1]})})
            assert all_facet_counts(warm, query) == all_facet_counts(cold, query), facet
    assert [warm.spec(i) for i in range(warm.n_specs)] == [cold.spec(i) for i in range(cold.n_specs)]
    every = deptype_bits(["build", "link", "run", "test"])
    for i in range(cold.n_specs):
        assert dependency_tree(warm, i, every) == dependency_tree(cold, i, every)
        assert warm.dependencies(i) == cold.dependencies(i)
    # `^`: the warm corpus's graph is the one the cold load worked out and the file kept, not worked out again
    assert STORED_GRAPH in warm.memo and "node-graph" not in warm.memo
    asked = [Query(spec=parse_spec_query(f"^{name}")) for name in cold.vocab["dep_name"].values
             if re.fullmatch(r"[a-z][a-z0-9-]*", name)]  # a name a spec can hold
    assert len(asked) > 5 and any(select(cold, query).indices().size for query in asked)
    for query in asked:
        assert select(warm, query).indices().tolist() == select(cold, query).indices().tolist(), query
    for part, kept in zip(stored_parts(node_graph(cold)), warm.memo[STORED_GRAPH]):
        assert np.array_equal(part, kept)
    assert node_graph(warm).by_target is warm.memo[STORED_GRAPH][1]  # the kept parts, found sound, are used
    for hash_ in cold.vocab["dep_hash"].values:
        assert used_by(warm, hash_, every) == used_by(cold, hash_, every)
        assert warm.unheld_dependencies(hash_) == cold.unheld_dependencies(hash_)
        assert warm.is_external(hash_) == cold.is_external(hash_)
    assert warm.occurrences(cold.hashes[0]) == cold.occurrences(cold.hashes[0])


def test_a_partial_warm_start_rebuilds_from_the_mapped_corpus(tmp_path: Path) -> None:
    root = tmp_path / "in"
    for i in range(4):
        path = root / "_cache" / "develop" / f"pkg{i}" / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(f"pkg{i}", "develop", [spec_entry(chr(97 + i) * 32, target=f"t{i}")]))
    load_corpus([root], cache=CorpusCache())
    mapped = load_corpus([root], cache=CorpusCache())
    changed = root / "_cache" / "develop" / "pkg0" / "specs.md"
    changed.write_text(listing("pkg0", "develop", [spec_entry("z" * 32, target="t9")]))
    partial = load_corpus([root], cache=CorpusCache())
    assert partial.cache_status == "partial: 1 of 4 files parsed"
    cold = load_corpus([root])  # reused documents are added first, so ids differ: compare what they mean
    assert [partial.spec(i) for i in range(partial.n_specs)] == [cold.spec(i) for i in range(cold.n_specs)]
    assert all_facet_counts(partial, Query()) == all_facet_counts(cold, Query())
    # The file was replaced by a rename, never written in place: the corpus mapped before still reads whole.
    assert list(mapped.hashes) == ["a" * 32, "b" * 32, "c" * 32, "d" * 32] and int(mapped.size.sum()) != 0


def _rewritten(file: Path, change: str) -> None:
    """Rewrite a valid cache file with one buffer changed, its header and checksum made right again."""
    with file.open("rb") as handle:
        meta, buffers = map_buffers(handle, CACHE_FORMAT, cache_key(file.name, file.parent))
    copies = {name: np.array(array) for name, array in buffers.items()}
    if change == "id past its vocabulary":
        copies["single.version"][0] = len(meta["vocab"]) + 10**6
    elif change == "offsets past their column":
        copies["deps.offsets"][-1] += 1
    elif change == "string offsets running backwards":
        copies["hashes.offsets"][1] = copies["hashes.offsets"][2] + 1
    elif change == "a buffer missing":
        del copies["deps.external"]
    elif change == "a graph's edge past the edges":
        copies["graph.by_target"][0] = len(copies["graph.by_target"])
    elif change == "a graph's edges out of order":
        copies["graph.by_target"][[0, -1]] = copies["graph.by_target"][[-1, 0]]
    elif change == "a graph's offsets moved":
        copies["graph.target_offsets"][1:-1] = 0
    elif change == "a graph's edge twice":
        copies["graph.by_target"][1] = copies["graph.by_target"][0]
    elif change == "a graph's buffer of another type":
        copies["graph.node_of_spec"] = copies["graph.node_of_spec"].astype(bool)
    elif change == "a graph with fewer nodes than the dependencies":
        copies["graph.target_offsets"] = copies["graph.target_offsets"][:2].copy()
        copies["graph.target_offsets"][-1] = len(copies["graph.by_target"])
    temporary = file.with_suffix(".tmp")
    with temporary.open("wb") as handle:
        with BufferFile(handle) as rewritten:
            for name, array in copies.items():
                rewritten.put(name, array)
            rewritten.close(CACHE_FORMAT, cache_key(file.name, file.parent), meta)
    temporary.replace(file)


def _damage(file: Path, how: str, other: Path) -> None:
    data = bytearray(file.read_bytes())
    if how == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        file.write_bytes(b"")
    elif how == "not a cache file":
        file.write_bytes(b"\x80\x05not a cache file at all" * 10)
    elif how == "older format":
        data[8:12] = (CACHE_FORMAT - 1).to_bytes(4, "little")
        file.write_bytes(data)
    elif how == "a flipped bit in its table":  # the table is the file's last bytes
        data[-20] ^= 0x04
        file.write_bytes(data)
    elif how == "another tree's file":
        file.write_bytes(other.read_bytes())
    else:
        _rewritten(file, how)


DAMAGES = ["truncated", "empty", "not a cache file", "older format", "a flipped bit in its table",
           "another tree's file", "id past its vocabulary", "offsets past their column",
           "string offsets running backwards",
           "a buffer missing", "a graph with fewer nodes than the dependencies", "a graph's buffer of another type"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_cache_file_is_rebuilt_with_one_warning(inputs: list[str], tmp_path: Path, how: str) -> None:
    cache = CorpusCache()
    load_corpus([inputs[1]], cache=cache)
    other = _cache_file(cache)
    moved = tmp_path / "other.map"
    other.rename(moved)
    cold = load_corpus(inputs, cache=CorpusCache())
    file = _cache_file(cache)
    _damage(file, how, moved)
    rebuilt = load_corpus(inputs, cache=CorpusCache())
    assert rebuilt.cache_status == "miss"
    (warning,) = _warnings_about_the_cache(rebuilt)
    assert warning.startswith(str(file)) and "rebuilt" in warning
    _assert_same_corpus(cold, rebuilt)
    again = load_corpus(inputs, cache=CorpusCache())
    assert again.cache_status == "hit" and _warnings_about_the_cache(again) == []
    _assert_same_corpus(cold, again)


_LOAD = """
import sys
from cachetui.core.load import LoadOptions, load_corpus
corpus = load_corpus(sys.argv[1:], LoadOptions(use_cache=True))
mapped = [line for line in open("/proc/self/maps") if line.rstrip().endswith(".map")]
print(corpus.cache_status, len(mapped) > 0, corpus.n_specs)
for problem in corpus.report.warnings:
    print(problem.described())
"""


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps (Linux)")
def test_a_second_process_maps_the_file_the_first_wrote(inputs: list[str], private_cache_home: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(private_cache_home)}

    def run() -> list[str]:
        done = subprocess.run([sys.executable, "-c", _LOAD, *inputs], env=env, capture_output=True, text=True,
                              check=True)
        return done.stdout.splitlines()

    first = run()
    file = _cache_file(CorpusCache(private_cache_home / "cachetui"))
    written = file.stat()
    second, third = run(), run()
    assert first[0].split()[0] == "miss"
    assert second[0] == third[0] == f"hit True {first[0].split()[2]}"  # mapped from the file, not rebuilt
    assert not any("warm cache" in line for line in second + third)
    now = file.stat()
    assert (now.st_ino, now.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)  # nobody wrote it again


def test_the_cli_says_a_rebuilt_cache_once(inputs: list[str], private_cache_home: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(private_cache_home)}
    check = [sys.executable, "-m", "cachetui", "check", *inputs]
    subprocess.run(check, env=env, capture_output=True, check=True)
    file = _cache_file(CorpusCache(private_cache_home / "cachetui"))
    file.write_bytes(file.read_bytes()[:1000])
    done = subprocess.run(check, env=env, capture_output=True, text=True)
    said = [line for line in (done.stdout + done.stderr).splitlines() if "warm cache" in line]
    assert len(said) == 1 and str(file) in said[0] and "truncated" in said[0], done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    quiet = subprocess.run(check, env=env, capture_output=True, text=True)
    assert "warm cache" not in quiet.stdout + quiet.stderr
    # A command whose answer is on stdout says it on stderr, once, whatever the output format.
    file.write_bytes(b"not a cache file, and longer than a header: " * 4)
    query = subprocess.run([*check[:3], "query", "--format", "json", *inputs], env=env, capture_output=True,
                           text=True)
    assert query.returncode == 0 and json.loads(query.stdout)
    assert [line for line in query.stderr.splitlines() if "warm cache" in line] == [
        f"cachetui: warning: {file}: not a cachetui cache file: warm cache not used (rebuilt)"]


def test_load_options_ask_for_the_users_cache(inputs: list[str], private_cache_home: Path) -> None:
    load_corpus(inputs, LoadOptions(use_cache=True))
    assert load_corpus(inputs, LoadOptions(use_cache=True)).cache_status == "hit"


def test_a_stamp_past_int64_is_kept_wrapped_and_never_matches_the_file_again() -> None:
    """An inode of 2**63 or more (some network file systems) is stored without failing the load, and the
    stored value never equals the stat, so that file is read afresh rather than served from the cache."""
    from cachetui.core.load.cache_layout import _stamps

    inode = 2**63 + 5
    values, known = _stamps([(10, 20, 30, inode), None], 4)
    assert known.tolist() == [1, 0]
    assert values.tolist()[:3] == [10, 20, 30] and values.tolist()[3] != inode


@given(st.lists(st.one_of(st.none(), st.tuples(*[st.integers(0, 2**64 - 1)] * 4)), max_size=6))
def test_stamps_are_stored_flat_with_which_are_known(stamps: list[tuple[int, ...] | None]) -> None:
    """Every stamp known (a listing as a load takes it, read without a step per row) or not, within int64 or past it:
    each known row kept as it is (or wrapped, past int64), each unknown one as zeros marked unknown."""
    from cachetui.core.load.cache_layout import _stamps

    values, known = _stamps(stamps, 4)
    assert known.tolist() == [int(s is not None) for s in stamps]
    rows = values.view(np.uint64).reshape(-1, 4).tolist()
    assert rows == [list(s) if s is not None else [0] * 4 for s in stamps]


def test_a_write_that_fails_in_the_writing_thread_fails_the_write() -> None:
    class Full(io.BytesIO):
        def write(self, data: object) -> int:
            if self.tell() > 4096:
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().write(data)  # type: ignore[arg-type]

    with pytest.raises(OSError, match="No space left"), BufferFile(Full()) as file:
        for name in "abcd":
            file.put(name, np.arange(1000, dtype=np.int64))
        file.close(CACHE_FORMAT, bytes(32), {})


def test_what_was_written_is_synced_as_the_file_grows_and_a_failed_sync_fails_the_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writing thread syncs each SYNC_BYTES it wrote (so the commit's own sync has only the rest to wait for),
    on the file's descriptor; the file is whole; a sync that fails is a write that fails."""
    synced: list[tuple[int, int]] = []  # (descriptor, bytes in the file then)
    monkeypatch.setattr(cache_file, "SYNC_BYTES", 8000)
    monkeypatch.setattr(cache_file, "_DATA_SYNC", lambda fd: synced.append((fd, os.fstat(fd).st_size)))
    columns = {name: np.arange(1000 * (i + 1), dtype=np.int64) for i, name in enumerate("abcd")}  # 80 kB in all
    with (tmp_path / "file").open("wb") as handle, BufferFile(handle) as file:
        for name, column in columns.items():
            file.put(name, column)
        file.close(CACHE_FORMAT, bytes(32), {})
        descriptor = handle.fileno()
    assert [fd for fd, _ in synced] == [descriptor] * 4  # 8, 16, 24 and 32 kB: once for each column
    assert [size for _, size in synced] == sorted(size for _, size in synced) and synced[-1][1] >= 80_000
    with (tmp_path / "file").open("rb") as handle:
        _, buffers = map_buffers(handle, CACHE_FORMAT, bytes(32))
        assert all((buffers[name] == column).all() for name, column in columns.items())

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(cache_file, "_DATA_SYNC", failing)
    with pytest.raises(OSError, match="Input/output"), (tmp_path / "other").open("wb") as handle, \
            BufferFile(handle) as file:
        for name, column in columns.items():
            file.put(name, column)
        file.close(CACHE_FORMAT, bytes(32), {})


class _FillingHandle:
    """A file on a disk with `room` bytes left: a write past them fails as a full disk does."""

    def __init__(self, handle: io.BufferedWriter, room: int) -> None:
        self._handle, self._room = handle, room

    def write(self, data: bytes | memoryview) -> int:
        self._room -= len(data)
        if self._room < 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._handle.write(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self._handle, name)


@pytest.mark.parametrize("share", [0, 0.01, 0.5, 0.999])
def test_a_disk_that_fills_while_the_corpus_is_finished_costs_only_the_cache(
        inputs: list[str], share: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_corpus(inputs, cache=CorpusCache(tmp_path / "whole"))
    room = int(share * _cache_file(CorpusCache(tmp_path / "whole")).stat().st_size)  # the table and header: last

    class Filling(PrivateFile):
        def __init__(self, dir_fd: int, name: str) -> None:
            super().__init__(dir_fd, name)
            self.handle = _FillingHandle(self.handle, room)  # type: ignore[assignment]

    monkeypatch.setattr(cache_module, "PrivateFile", Filling)
    cache = CorpusCache()
    loaded = load_corpus(inputs, cache=cache)
    _assert_same_corpus(load_corpus(inputs), loaded)
    assert loaded.cache_status == "miss" and loaded.report.warnings == load_corpus(inputs).report.warnings
    assert not [p.name for p in cache.directory.iterdir() if p.is_file() and p.name != "code-digest.json"]  # none, half or whole
    monkeypatch.undo()
    load_corpus(inputs, cache=CorpusCache())
    assert load_corpus(inputs, cache=CorpusCache()).cache_status == "hit"


def test_finishing_a_corpus_puts_each_of_its_columns_in_the_cache_file_once(inputs: list[str],
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    put: dict[str, list[int]] = {}
    real = cache_module.CacheWriter.put

    def spy(self: cache_module.CacheWriter, name: str, array: np.ndarray) -> None:
        put.setdefault(name, []).append(id(array))
        real(self, name, array)

    monkeypatch.setattr(cache_module.CacheWriter, "put", spy)
    corpus = load_corpus(inputs, cache=CorpusCache())
    columns = {**{f"single.{facet}": column for facet, column in corpus.single.items()},
               **{f"multi.{name}.{part}": getattr(multi, part) for name, multi in corpus.multi.items()
                  for part in ("offsets", "flat", "owner")},
               **{f"deps.{f.name}": getattr(corpus.deps, f.name) for f in fields(DependencyColumns)},
               "size": corpus.size, "package_of": corpus.package_of, "document_of": corpus.document_of,
               "build_provenance": corpus.build_provenance, "pushed": corpus.pushed}
    assert put == {name: [id(column)] for name, column in columns.items()}  # the very arrays the corpus holds
    assert load_corpus(inputs, cache=CorpusCache()).cache_status == "hit"


def test_the_count_of_distinct_hashes_a_cold_load_keeps_is_the_strings_count() -> None:
    cold = load_corpus([str(sample_path())], cache=CorpusCache())
    assert cold.unique_hashes == len(set(cold.hashes)) == load_corpus([str(sample_path())]).unique_hashes


@pytest.mark.parametrize("how", ["a graph's edges out of order", "a graph's offsets moved", "a graph's edge twice",
                                 "a graph's edge past the edges"])
def test_a_kept_graph_that_is_not_the_sorted_edges_is_worked_out_again(inputs: list[str], how: str) -> None:
    """Its ids within bounds, the file maps; the first `^` finds the order wrong and works the graph out anew,
    so the answers are right."""
    cold = load_corpus(inputs, cache=CorpusCache())
    _rewritten(_cache_file(CorpusCache()), how)
    warm = load_corpus(inputs, cache=CorpusCache())
    assert warm.cache_status == "hit" and STORED_GRAPH in warm.memo
    asked = [Query(spec=parse_spec_query(f"^{name}")) for name in cold.vocab["dep_name"].values
             if re.fullmatch(r"[a-z][a-z0-9-]*", name)]
    assert any(select(cold, query).indices().size for query in asked)
    for query in asked:
        assert select(warm, query).indices().tolist() == select(cold, query).indices().tolist(), query
    graph = node_graph(warm)
    assert not np.array_equal(graph.by_target, warm.memo[STORED_GRAPH][1]) or \
        not np.array_equal(graph.target_offsets, warm.memo[STORED_GRAPH][2])  # not the kept parts: worked out


@pytest.mark.parametrize("strings", [
    ["a" * 32, "b" * 32, "", "c", "d" * 32],  # ASCII, one width or not, an empty one
    ["zlib", "", "ü-ñ", "\ud800", "日本"],  # UTF-8 of several widths, a lone surrogate a document escaped
], ids=["ascii", "utf-8"])
def test_strings_gathered_from_a_table_are_those_read_one_by_one(strings: list[str]) -> None:
    table = StringTable(*encoded(strings)[:2], ascii=encoded(strings)[2])
    rng = random.Random(3)
    indices = np.array([rng.randrange(len(strings)) for _ in range(40)], dtype=np.int64)  # any order, repeated
    assert tables.strings_at(table, indices) == [table[i] for i in indices.tolist()]
    assert tables.strings_at(strings, indices) == [strings[i] for i in indices.tolist()]  # a built corpus's list
    assert tables.strings_at(table, np.array([], dtype=np.int64)) == []
