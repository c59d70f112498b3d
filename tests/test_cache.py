"""Warm start: the on-disk cache serves unchanged files, never stale data, never a crash."""

from __future__ import annotations

import ast
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

import cachetui.core
from cachetui.cli.main import main
from cachetui.core.load.cache import CorpusCache, code_digest, default_cache_dir, source_digest
from cachetui.core.load.code_digest import imported_names, remembered_digest
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources.regular_file import open_regular_fd
from cachetui.core.query.query import Query, facet_counts
from tests.conftest import listing, spec_entry


def _tree(root: Path, n: int = 5) -> list[Path]:
    paths = []
    for i in range(n):
        path = root / "_cache" / "develop" / f"pkg{i}" / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(f"pkg{i}", "develop", [spec_entry(chr(97 + i) * 32, target=f"t{i}")]))
        paths.append(path)
    return paths


def _same(a, b) -> bool:  # noqa: ANN001
    return (a.hashes, a.packages, a.tags) == (b.hashes, b.packages, b.tags) and all(
        facet_counts(a, Query(), f) == facet_counts(b, Query(), f) for f in ("target", "variant", "stack")
    )


def test_second_load_is_served_from_the_cache(tmp_path: Path, private_cache_home: Path) -> None:
    _tree(tmp_path / "in")
    first = load_corpus([tmp_path / "in"], cache=CorpusCache())
    second = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert (first.cache_status, second.cache_status) == ("miss", "hit")
    assert _same(first, second)
    assert default_cache_dir() == private_cache_home / "cachetui"
    assert len(list((private_cache_home / "cachetui").glob("corpus-*.map"))) == 1


def test_a_changed_file_is_parsed_alone_and_never_stale(tmp_path: Path) -> None:
    paths = _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    paths[2].write_text(listing("pkg2", "develop", [spec_entry("z" * 32, target="changed")]))
    os.utime(paths[2], ns=(1, 1))  # even with an old mtime, size/ctime/inode still tell
    corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert corpus.cache_status == "partial: 1 of 5 files parsed"
    assert "z" * 32 in corpus.hashes and "c" * 32 not in corpus.hashes
    assert _same(corpus, load_corpus([tmp_path / "in"]))


def test_a_partial_warm_start_stats_each_unchanged_file_and_directory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    paths[2].write_text(listing("pkg2", "develop", [spec_entry("z" * 32, target="changed")]))  # in place
    stat, stated = os.stat, []
    monkeypatch.setattr(os, "stat", lambda path, *args, **kwargs: stated.append(str(path)) or stat(path, *args,
                                                                                                      **kwargs))
    corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert corpus.cache_status == "partial: 1 of 5 files parsed"
    unchanged = [str(p) for p in paths if p != paths[2]] + [str(p.parent) for p in paths]
    assert {path: stated.count(path) for path in unchanged} == dict.fromkeys(unchanged, 1)
    assert "z" * 32 in corpus.hashes and "c" * 32 not in corpus.hashes


def test_added_and_removed_files_are_noticed(tmp_path: Path) -> None:
    paths = _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    paths[0].unlink()
    extra = tmp_path / "in" / "_cache" / "v0.23.0" / "new" / "specs.md"
    extra.parent.mkdir(parents=True)
    extra.write_text(listing("new", "v0.23.0", [spec_entry("q" * 32)]))
    corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert corpus.cache_status == "partial: 1 of 5 files parsed"
    assert "pkg0" not in corpus.packages and "new" in corpus.packages
    assert _same(corpus, load_corpus([tmp_path / "in"]))


def test_problems_survive_a_warm_start_without_doubling(tmp_path: Path) -> None:
    _tree(tmp_path / "in")
    bad = tmp_path / "in" / "_cache" / "develop" / "bad" / "specs.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\ntitle: [x\n---\n")
    dup = tmp_path / "in" / "_cache" / "develop" / "pkg1" / "copy.md"
    dup.write_text(listing("pkg1", "develop", [spec_entry("y" * 32)]))
    cold = load_corpus([tmp_path / "in"], cache=CorpusCache())
    (tmp_path / "in" / "_cache" / "develop" / "pkg3" / "specs.md").write_text(listing("pkg3", "develop", []))
    warm = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert warm.cache_status.startswith("partial")
    assert sorted(p.reason for p in warm.report.problems) == sorted(p.reason for p in cold.report.problems) + []
    assert len(warm.report.errors) == 1 and len(warm.report.warnings) == len(cold.report.warnings)


@pytest.mark.parametrize("damage", ["garbage", "world-writable"])
def test_a_bad_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    _tree(tmp_path / "in")
    cache = CorpusCache()
    load_corpus([tmp_path / "in"], cache=cache)
    (file,) = cache.directory.glob("corpus-*.map")
    if damage == "garbage":
        file.write_bytes(b"\x80\x05not a pickle at all")
    else:
        file.chmod(0o666)
    corpus = load_corpus([tmp_path / "in"], cache=cache)
    assert corpus.cache_status == "miss" and corpus.n_specs == 5


def test_cli_uses_the_cache_and_no_cache_bypasses_it(tmp_path: Path, capsys, private_cache_home: Path) -> None:  # noqa: ANN001
    _tree(tmp_path / "in")
    statuses = []
    for extra in ([], [], ["--no-cache"]):
        main(["check", str(tmp_path / "in"), "--json", *extra])
        statuses.append(json.loads(capsys.readouterr().out)["cache"])
    assert statuses == ["miss", "hit", "off"]
    main(["query", str(tmp_path / "in"), "--format", "json"])
    assert len(json.loads(capsys.readouterr().out)) == 5


def test_no_cache_writes_nothing(tmp_path: Path, private_cache_home: Path) -> None:
    _tree(tmp_path / "in")
    main(["check", str(tmp_path / "in"), "--no-cache"])
    assert not (private_cache_home / "cachetui").exists()


# -- never stale: every input in the stamp, I/O failures never cached, code changes noticed -------------


def _oldest_generation(root: Path, version: str, *, index: bool = True) -> Path:
    """An `index.md` listing whose binaries are described by a `spec-0.json` beside it."""
    spec = {"spec": {"nodes": [{"name": "adiak", "version": version, "hash": "a" * 32,
                                "arch": {"platform": "linux", "platform_os": "ubuntu20.04", "target": "x86_64"},
                                "compiler": {"name": "gcc", "version": "9.3.0"}, "parameters": {}}]}}
    directory = root / "_cache" / "adiak"
    directory.mkdir(parents=True, exist_ok=True)
    if index:
        (directory / "index.md").write_text(
            '---\ntitle: "adiak"\ncategory: package\nspec_files: ["spec-0.json"]\n---\n')
    (directory / "spec-0.json").write_text(json.dumps(spec))
    return directory / "spec-0.json"


def test_an_edited_spec_file_is_seen_on_the_next_load(tmp_path: Path) -> None:
    _oldest_generation(tmp_path / "in", "0.1.1")
    first = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert first.spec(0).version == "0.1.1"
    _oldest_generation(tmp_path / "in", "0.2.1", index=False)  # the index.md itself is untouched
    second = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert second.spec(0).version == "0.2.1"
    assert second.cache_status != "hit"


def test_a_file_that_failed_to_read_is_read_again_next_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _tree(tmp_path / "in")
    flaky = str(paths[3])

    def failing_open(path, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - a transient EIO on one file
        if str(path) == flaky:
            raise OSError(5, "Input/output error")
        return open_regular_fd(path, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr("cachetui.core.load.sources.site.loader.open_regular_fd", failing_open)
        first = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert "pkg3" not in first.packages and len(first.report.errors) == 1
    second = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert "pkg3" in second.packages and second.report.errors == []
    assert second.cache_status == "partial: 1 of 5 files parsed"


def test_a_directory_that_could_not_be_listed_is_walked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path / "in")
    blocked = str(tmp_path / "in" / "_cache" / "develop" / "pkg1")
    real_scandir = os.scandir

    def scandir(path):  # noqa: ANN001, ANN202
        if str(path) == blocked:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    with monkeypatch.context() as patched:
        patched.setattr("cachetui.core.load.sources.site.loader.os.scandir", scandir)
        first = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert "pkg1" not in first.packages
    second = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert "pkg1" in second.packages and second.report.errors == []


def test_a_new_file_is_found_even_when_the_directory_mtime_is_put_back(tmp_path: Path) -> None:
    _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    directory = tmp_path / "in" / "_cache" / "develop"
    before = os.stat(directory)
    (directory / "pkg9").mkdir()
    (directory / "pkg9" / "specs.md").write_text(listing("pkg9", "develop", [spec_entry("q" * 32)]))
    os.utime(directory, ns=(before.st_atime_ns, before.st_mtime_ns))  # only ctime still tells
    corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert "pkg9" in corpus.packages


def test_the_cache_key_follows_the_parsing_code(tmp_path: Path) -> None:
    core = tmp_path / "core"
    shutil.copytree(Path(cachetui.core.__file__).parent, core, ignore=shutil.ignore_patterns("__pycache__"))
    assert source_digest(core) == code_digest(default_cache_dir())
    for shaping in ("load/sources/site/document.py", "load/sources/spack_db/typed.py",
                    "load/sources/spack_db/tolerant.py", "load/sources/spack_node.py", "model/build.py",
                    "model/installable.py", "spack/variants.py", "load/sources/__init__.py"):
        changed = tmp_path / shaping.replace("/", "-")
        shutil.copytree(core, changed)
        (changed / shaping).write_text((changed / shaping).read_text() + "\n# a fixed parser\n")
        assert source_digest(changed) != code_digest(default_cache_dir()), shaping


def _imports_by_ast(source: bytes) -> set[str]:
    """What Python itself says a module's import statements name (the oracle for the scan)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return names


def test_the_import_scan_finds_every_import_python_sees_in_the_code() -> None:
    for module in Path(cachetui.__file__).parent.rglob("*.py"):
        source = module.read_bytes()
        assert _imports_by_ast(source) <= set(imported_names(source)), module


def test_the_import_scan_reads_statements_written_every_way() -> None:
    source = (b"import a.b as c, d\nfrom e.f import (g,\n    h as i)\nif x: import j\nk = 1; from l import m\n"
              b"def f():\n    from n import o, \\\n        p\n")
    assert _imports_by_ast(source) <= set(imported_names(source))
    assert {"a.b", "d", "e.f.g", "e.f.h", "j", "l.m", "n.o", "n.p"} <= set(imported_names(source))


def test_the_cache_key_ignores_code_that_only_reads_a_finished_corpus(tmp_path: Path) -> None:
    core = tmp_path / "core"
    shutil.copytree(Path(cachetui.core.__file__).parent, core, ignore=shutil.ignore_patterns("__pycache__"))
    for query_code in ("query/resolve.py", "query/specmatch.py", "query/query.py", "query/interpret.py",
                       "query/results.py", "query/diff.py", "spack/specquery.py",
                       "load/sources/environment.py", "load/sources/spec_lists.py", "spack/abstract.py"):
        (core / query_code).write_text((core / query_code).read_text() + "\n# a better answer\n")
    assert source_digest(core) == code_digest(default_cache_dir())


def test_a_remembered_code_digest_is_worked_out_again_when_a_file_it_read_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    core, memo = tmp_path / "core", tmp_path / "memo"
    shutil.copytree(Path(cachetui.core.__file__).parent, core, ignore=shutil.ignore_patterns("__pycache__"))
    first = remembered_digest(core, memo)
    assert first == source_digest(core) and (memo / "code-digest.json").is_file()
    with monkeypatch.context() as patched:  # the second time nothing is parsed: the files are as they were
        patched.setattr("cachetui.core.load.code_digest.imported_names", lambda source: pytest.fail("read again"))
        assert remembered_digest(core, memo) == first
    (core / "model" / "build.py").write_text((core / "model" / "build.py").read_text() + "\n# a fixed builder\n")
    assert remembered_digest(core, memo) == source_digest(core) != first


def test_a_remembered_code_digest_without_its_digest_is_worked_out_again(tmp_path: Path) -> None:
    """A memo that matches every file but lost its digest (damaged, edited) is a miss, never a failed load."""
    core, memo = tmp_path / "core", tmp_path / "memo"
    shutil.copytree(Path(cachetui.core.__file__).parent, core, ignore=shutil.ignore_patterns("__pycache__"))
    first = remembered_digest(core, memo)
    written = json.loads((memo / "code-digest.json").read_text())
    del written["digest"]
    (memo / "code-digest.json").write_text(json.dumps(written))
    assert remembered_digest(core, memo) == first


def test_results_from_other_parser_code_are_not_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    monkeypatch.setattr("cachetui.core.load.cache.code_digest", lambda directory: "the digest of a changed parser")
    assert load_corpus([tmp_path / "in"], cache=CorpusCache()).cache_status == "miss"


# -- safe on shared file systems -----------------------------------------------------------------------


def test_the_cache_directory_is_created_private(tmp_path: Path, private_cache_home: Path) -> None:
    _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert stat.S_IMODE(os.stat(private_cache_home / "cachetui").st_mode) == 0o700
    (file,) = (private_cache_home / "cachetui").glob("corpus-*.map")
    assert stat.S_IMODE(os.stat(file).st_mode) == 0o600


@pytest.mark.parametrize("unsafe", ["writable-by-others", "owned-by-someone-else", "a-symlink"])
def test_an_unsafe_cache_directory_is_neither_read_nor_written(
    tmp_path: Path, private_cache_home: Path, monkeypatch: pytest.MonkeyPatch, unsafe: str
) -> None:
    _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    directory = private_cache_home / "cachetui"
    (file,) = directory.glob("corpus-*.map")
    before = file.read_bytes()
    if unsafe == "writable-by-others":
        directory.chmod(0o777)
    elif unsafe == "owned-by-someone-else":
        monkeypatch.setattr("cachetui.core.load.private_dir.os.getuid", lambda: os.stat(directory).st_uid + 1)
    else:
        elsewhere = tmp_path / "elsewhere"
        directory.rename(elsewhere)
        directory.symlink_to(elsewhere)
        file = elsewhere / file.name
    corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert corpus.cache_status.startswith("off: ") and corpus.n_specs == 5
    assert file.read_bytes() == before  # not replaced either


def _as_if_owned_by_someone_else(real_fstat):  # noqa: ANN001, ANN202
    """os.fstat, but regular files report another owner."""

    def fstat(fd: int) -> os.stat_result:
        info = real_fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return info
        fields = list(info)
        fields[stat.ST_UID] = info.st_uid + 1
        extra = {name: getattr(info, name) for name in ("st_atime_ns", "st_mtime_ns", "st_ctime_ns")}
        return os.stat_result(fields, extra)  # everything else as it is (the loader's stamps use it)

    return fstat


@pytest.mark.parametrize("unsafe", ["owned-by-someone-else", "a-symlink"])
def test_an_unsafe_cache_file_is_ignored_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unsafe: str
) -> None:
    _tree(tmp_path / "in")
    cache = CorpusCache()
    load_corpus([tmp_path / "in"], cache=cache)
    (file,) = cache.directory.glob("corpus-*.map")
    with monkeypatch.context() as patched:
        if unsafe == "a-symlink":
            target = tmp_path / "planted.map"
            target.write_bytes(file.read_bytes())
            file.unlink()
            file.symlink_to(target)
        else:
            patched.setattr("cachetui.core.load.private_dir.os.fstat", _as_if_owned_by_someone_else(os.fstat))
        corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert corpus.cache_status == "miss" and corpus.n_specs == 5
    assert not file.is_symlink()
    assert load_corpus([tmp_path / "in"], cache=CorpusCache()).cache_status == "hit"


def test_a_cold_load_works_out_the_code_digest_beside_it_and_waits_for_it_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing cached, the digest its file is keyed by is worked out in a thread of its own while the load
    goes on, once; the file is written with it (the next load reuses the file), and no thread outlives the load."""
    import threading

    from cachetui.core.load import code_digest as digests

    monkeypatch.setattr(digests, "_WORKED_OUT", [])  # as in a new process
    worked_out: list[str] = []

    def remembered(core: Path, directory: Path) -> str:
        worked_out.append(threading.current_thread().name)
        return remembered_digest(core, directory)

    monkeypatch.setattr(digests, "remembered_digest", remembered)
    _tree(tmp_path / "in")
    cache = CorpusCache(tmp_path / "cache")
    cold = load_corpus([tmp_path / "in"], cache=cache)
    assert worked_out == ["code digest"] and cold.cache_status == "miss"
    assert not any(thread.name == "code digest" for thread in threading.enumerate())
    assert load_corpus([tmp_path / "in"], cache=cache).cache_status == "hit" and worked_out == ["code digest"]


def test_a_code_digest_that_cannot_be_worked_out_beside_the_load_leaves_only_the_file_unwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module the digest reads gone mid-load (a package upgraded under a running load): the thread says nothing
    of its own, the load is whole, and only its cache file is not written (the next load reads the sources again)."""
    import threading

    from cachetui.core.load import code_digest as digests

    def gone(core: Path, directory: Path) -> str:
        raise FileNotFoundError(2, "No such file or directory")

    told: list[object] = []
    monkeypatch.setattr(threading, "excepthook", told.append)
    monkeypatch.setattr(digests, "_WORKED_OUT", [])
    monkeypatch.setattr(digests, "remembered_digest", gone)
    _tree(tmp_path / "in")
    cache = CorpusCache(tmp_path / "cache")
    corpus = load_corpus([tmp_path / "in"], cache=cache)
    assert corpus.n_specs == 5 and told == []
    assert load_corpus([tmp_path / "in"], cache=cache).cache_status == "miss"
