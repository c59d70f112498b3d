"""Warm start: the on-disk cache serves unchanged files, never stale data, never a crash."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.cache import CorpusCache, default_cache_dir
from cachetui.core.corpus import load_corpus
from cachetui.core.query import Query, facet_counts
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
    assert len(list((private_cache_home / "cachetui").glob("corpus-*.pickle"))) == 1


def test_a_changed_file_is_parsed_alone_and_never_stale(tmp_path: Path) -> None:
    paths = _tree(tmp_path / "in")
    load_corpus([tmp_path / "in"], cache=CorpusCache())
    paths[2].write_text(listing("pkg2", "develop", [spec_entry("z" * 32, target="changed")]))
    os.utime(paths[2], ns=(1, 1))  # even with an old mtime, size/ctime/inode still tell
    corpus = load_corpus([tmp_path / "in"], cache=CorpusCache())
    assert corpus.cache_status == "partial: 1 of 5 files parsed"
    assert "z" * 32 in corpus.hashes and "c" * 32 not in corpus.hashes
    assert _same(corpus, load_corpus([tmp_path / "in"]))


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


@pytest.mark.parametrize("damage", ["garbage", "old-format", "world-writable"])
def test_a_bad_cache_is_ignored_and_rebuilt(tmp_path: Path, damage: str) -> None:
    _tree(tmp_path / "in")
    cache = CorpusCache()
    load_corpus([tmp_path / "in"], cache=cache)
    (file,) = cache.directory.glob("corpus-*.pickle")
    if damage == "garbage":
        file.write_bytes(b"\x80\x05not a pickle at all")
    elif damage == "old-format":
        snapshot = pickle.loads(file.read_bytes())
        snapshot.format = 0
        file.write_bytes(pickle.dumps(snapshot))
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
