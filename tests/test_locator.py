"""What a location names, read one way wherever a location is met: typed by the user, or an index of indexes.

A blob is Spack's whole blob path (`blobs/sha256/<two>/<sha256>`), and an index file is
recognised by its whole name: `"/blobs/" in url` or a name ending in `index.json` once
decided elsewhere, and the two readings disagreed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources import IndexOfIndexes, SiteDocuments, recognise
from cachetui.core.load.sources.indexes import IndexGroup
from cachetui.core.load.sources.locator import Named, layout_root, mirror_root, named
from tests.mirrors import DB7, DB8, MirrorServer, blob_path, index_bytes, v2_mirror, v3_mirror

SHA = "ab" + "0" * 62


@pytest.mark.parametrize(("location", "kind"), [
    ("https://binaries.spack.io/cache_spack_io_index.json", Named.INDEX_OF_INDEXES),
    ("/srv/m/v3/manifests/index/index.manifest.json", Named.MANIFEST),
    ("/srv/m/v3/manifests/index/my-view/index.manifest.json", Named.MANIFEST),
    ("file:///srv/m/build_cache/index.json/", Named.V2_INDEX),
    (f"https://h/m/blobs/sha256/ab/{SHA}", Named.BLOB),
    ("https://h/m/blobs/sha256/ab/not-a-checksum", Named.ROOT),
    (f"https://h/m/blobs/md5/ab/{SHA}", Named.ROOT),
    ("https://h/m/blobs/develop", Named.ROOT),
    ("/srv/m/my-index.json", Named.ROOT),
    ("/srv/m/old-cache_spack_io_index.json", Named.ROOT),
    ("https://h/releases/v0.23", Named.ROOT),
])
def test_a_location_names_one_thing_by_its_whole_name(location: str, kind: Named) -> None:
    assert named(location) is kind


def test_the_mirror_an_index_belongs_to() -> None:
    assert mirror_root("https://h/develop/build_cache/index.json") == "https://h/develop"
    assert mirror_root(f"https://h/develop/blobs/sha256/ab/{SHA}") == "https://h/develop"
    assert mirror_root("https://h/develop/v3/manifests/index/index.manifest.json") == "https://h/develop"
    assert mirror_root("https://h/develop/blobs/sha256/ab/x") is None  # not Spack's blob path
    assert layout_root("https://h/develop/") == "https://h/develop"


def test_an_index_of_indexes_entry_is_read_as_a_typed_location_is(mirror_server: MirrorServer) -> None:
    """An entry under a directory called `blobs` is still the v2 index its name says (it was taken for a blob)."""
    www = mirror_server.root
    v2_mirror(www / "blobs" / "v0.23.0", DB7)
    checksum = v3_mirror(www / "develop", index_bytes(DB8))
    refs = {"v0.23.0": [{"label": "root", "url": mirror_server.at("blobs/v0.23.0/build_cache/index.json")}],
            "develop": [{"label": "root", "url": mirror_server.at(f"develop/{blob_path(www, checksum)}")}]}
    (www / "cache_spack_io_index.json").write_text(json.dumps(refs))
    corpus = load_corpus([mirror_server.at("cache_spack_io_index.json")])
    assert corpus.report.problems == []
    assert corpus.tags == ["develop", "v0.23.0"] and corpus.n_specs == 8
    typed = recognise(mirror_server.at("blobs/v0.23.0/build_cache/index.json"))
    assert isinstance(typed, IndexGroup) and typed.tag == "v0.23.0"


def test_a_file_named_like_an_index_is_not_one(tmp_path: Path) -> None:
    (tmp_path / "old-cache_spack_io_index.json").write_text("{}")
    assert isinstance(recognise(str(tmp_path / "old-cache_spack_io_index.json")), SiteDocuments)
    (tmp_path / "cache_spack_io_index.json").write_text("{}")
    assert isinstance(recognise(str(tmp_path / "cache_spack_io_index.json")), IndexOfIndexes)
