"""New since the last look: each source's binaries remembered in the cache directory, compared at the next look."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from cachetui.core.load.looks import LOOKS, Looks, New, new_since, read_looks, remember, source_of, sources
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.records import ParsedDocument, RawSpec, SpecColumns
from cachetui.core.model.tables import hash_keys

MIRROR = "https://mirror.example/develop"


def _spec(hash_: str) -> RawSpec:
    return RawSpec(hash_, "1.0", "gcc@13.2.0", "linux", "ubuntu22.04", "x86_64", (), (), -1)


def _corpus(mirror: list[str], site: dict[str, list[str]] | None = None) -> Corpus:
    """A mirror's index holding `mirror`'s hashes (one document per package), and site documents by tag."""
    documents = [ParsedDocument(MIRROR, f"p{h[0]}", "develop", "", "mirror-v8", SpecColumns.from_rows([_spec(h)]))
                 for h in mirror]
    for tag, hashes in (site or {}).items():
        documents += [ParsedDocument(f"/site/_cache/{tag}/p{h[0]}/specs.md", f"p{h[0]}", tag, "", "2",
                                     SpecColumns.from_rows([_spec(h)])) for h in hashes]
    return build_corpus(documents)


def _hash(letter: str) -> str:
    return letter * 32


def _new(corpus: Corpus, new: New) -> set[str]:
    return {corpus.hashes[i] for i in np.flatnonzero(new.specs)}


def test_a_binary_is_new_when_its_source_did_not_hold_it_at_the_last_look(tmp_path: Path) -> None:
    before = _corpus([_hash("a"), _hash("b")], {"v1": [_hash("c")]})
    remember(tmp_path, before, 1_000.0)
    after = _corpus([_hash("a"), _hash("d")], {"v1": [_hash("c"), _hash("e")]})
    earlier = read_looks(tmp_path, list(sources(after)))
    assert set(earlier) == {MIRROR, "/site tag v1"}
    new = new_since(after, earlier)
    assert _new(after, new) == {_hash("d"), _hash("e")} and new.binaries == 2 and new.since == 1_000.0


def test_a_source_never_looked_at_has_nothing_new(tmp_path: Path) -> None:
    remember(tmp_path, _corpus([_hash("a")]), 1_000.0)
    after = _corpus([_hash("a")], {"v2": [_hash("f"), _hash("g")]})  # a tag added since: all of it unseen
    new = new_since(after, read_looks(tmp_path, list(sources(after))))
    assert not new.specs.any() and new.binaries == 0 and new.since is None


def test_one_binary_in_two_tags_is_one_new_binary(tmp_path: Path) -> None:
    remember(tmp_path, _corpus([], {"v1": [_hash("a")], "v2": [_hash("a")]}), 5.0)
    after = _corpus([], {"v1": [_hash("a"), _hash("h")], "v2": [_hash("a"), _hash("h")]})
    new = new_since(after, read_looks(tmp_path, list(sources(after))))
    assert int(new.specs.sum()) == 2 and new.binaries == 1


def test_the_earliest_look_with_something_new_is_the_date_said(tmp_path: Path) -> None:
    remember(tmp_path, _corpus([_hash("a")], {"v1": [_hash("c")]}), 100.0)
    remember(tmp_path, _corpus([_hash("a")]), 200.0)  # the mirror looked at again later; v1 not
    after = _corpus([_hash("a"), _hash("b")], {"v1": [_hash("c"), _hash("e")]})
    assert new_since(after, read_looks(tmp_path, list(sources(after)))).since == 100.0


def test_a_damaged_or_foreign_look_is_no_look(tmp_path: Path) -> None:
    corpus = _corpus([_hash("a")])
    remember(tmp_path, corpus, 1.0)
    (only,) = (tmp_path / LOOKS).iterdir()
    data = only.read_bytes()
    for damaged in (b"", data[:-3], data.replace(b'"count": 1', b'"count": 99'), b"not a look\n" + data,
                    data.replace(MIRROR.encode(), b"https://other.example/x")):
        only.write_bytes(damaged)
        assert read_looks(tmp_path, [MIRROR]) == {}, damaged[:60]
    only.write_bytes(data)
    os.chmod(only, 0o666)  # writable by others: not trusted
    assert read_looks(tmp_path, [MIRROR]) == {}


def test_a_cache_directory_that_cannot_be_written_is_no_look_and_no_failure(tmp_path: Path) -> None:
    (tmp_path / LOOKS).write_text("a file where the directory should be")
    remember(tmp_path, _corpus([_hash("a")]), 1.0)
    assert read_looks(tmp_path, [MIRROR]) == {}


def test_keys_are_the_same_in_another_process(tmp_path: Path) -> None:
    """Python's hash of a str differs between processes: a look kept by one must be read by the next."""
    hashes = [_hash("a"), "short", "ünïcode"]
    probe = f"from cachetui.core.model.tables import hash_keys; print(hash_keys({hashes!r}).tolist())"
    theirs = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout
    assert json.loads(theirs) == hash_keys(hashes).tolist()


def test_site_documents_are_one_source_per_tag_and_a_mirror_one_per_index() -> None:
    assert source_of("/site/_cache/develop/hdf5/specs.md", "develop", False) == "/site tag develop"
    assert source_of("/docs/hdf5-develop.md", "develop", False) == "/docs tag develop"  # loose files
    assert source_of(MIRROR, "develop", True) == MIRROR


def test_a_session_compares_each_reload_with_the_look_before_it_began(tmp_path: Path) -> None:
    remember(tmp_path, _corpus([_hash("a")]), 100.0)
    session = Looks(tmp_path)
    assert session.take(_corpus([_hash("a"), _hash("b")]), 200.0).binaries == 1  # b: new since 100
    reloaded = session.take(_corpus([_hash("a"), _hash("b"), _hash("c")]), 300.0)
    assert reloaded.binaries == 2 and reloaded.since == 100.0  # still since the look before the session
    fresh = Looks(tmp_path / "other")  # never looked at: the session's first look is what a reload compares with
    assert fresh.take(_corpus([_hash("a")]), 10.0).looked is None
    again = fresh.take(_corpus([_hash("a"), _hash("d")]), 20.0)
    assert (again.binaries, again.since) == (1, 10.0)


def test_an_odd_hash_loaded_beside_leaves_every_other_binarys_key_as_it_was(tmp_path: Path) -> None:
    """Keys depend on each hash alone: a 24-character hash in another source must not make every binary new."""
    remember(tmp_path, _corpus([_hash("a"), _hash("b")]), 1.0)
    after = _corpus([_hash("a"), _hash("b")], {"v1": ["c" * 24]})
    new = new_since(after, read_looks(tmp_path, list(sources(after))))
    assert not new.specs.any() and new.looked == 1.0
    assert list(hash_keys([_hash("a"), "c" * 24])[:1]) == list(hash_keys([_hash("a")]))


def test_no_look_is_read_or_kept_in_a_cache_directory_others_can_write(tmp_path: Path) -> None:
    remember(tmp_path, _corpus([_hash("a")]), 1.0)
    kept = {path: path.read_bytes() for path in (tmp_path / LOOKS).iterdir()}
    tmp_path.chmod(0o777)  # the cache refuses such a directory: what is new is not said from it either
    try:
        assert read_looks(tmp_path, [MIRROR]) == {}
        remember(tmp_path, _corpus([_hash("a"), _hash("b")]), 2.0)
        assert {path: path.read_bytes() for path in (tmp_path / LOOKS).iterdir()} == kept
    finally:
        tmp_path.chmod(0o700)
