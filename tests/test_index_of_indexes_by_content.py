"""An index of indexes is known by its content, whatever its file is called; no message says "sha256 None"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load import LoadOptions, load_corpus
from cachetui.core.load.cache import CorpusCache
from tests.cli_answers import strict_json
from tests.mirrors import DB7, DB8, MirrorServer, blob_path, index_bytes, v2_mirror, v3_mirror


def _refs(www: Path, at: str) -> dict[str, list[dict[str, str]]]:
    """Two tags: develop (a v3 mirror, with an e4s stack) and v0.23.0 (a v2 mirror), under `at`."""
    develop = v3_mirror(www / "develop", index_bytes(DB8))
    v2_mirror(www / "v0.23.0", DB7)
    return {"develop": [{"label": "root", "url": f"{at}develop/{blob_path(www, develop)}"},
                        {"label": "e4s", "url": f"{at}develop/{blob_path(www, develop)}"}],
            "v0.23.0": [{"label": "build_cache", "url": f"{at}v0.23.0/build_cache/index.json"}]}


@pytest.mark.parametrize("name", ["indexes.json", "index.json", "cache_spack_io_index (1).json", "indexes"])
def test_a_local_index_of_indexes_is_read_whatever_its_name(tmp_path: Path, name: str) -> None:
    listing = tmp_path / name
    listing.write_text(json.dumps(_refs(tmp_path, f"{tmp_path}/")))
    corpus = load_corpus([str(listing)])
    assert corpus.report.problems == []
    assert corpus.tags == ["develop", "v0.23.0"] and "e4s" in corpus.vocab["stack"].values
    only = load_corpus([f"develop={listing}"])  # NAME= picks one ref, as for cache_spack_io_index.json
    assert only.tags == ["develop"]


@pytest.mark.parametrize("name", ["indexes.json", "saved/index.json"])
def test_an_index_of_indexes_at_a_url_is_read_whatever_its_name(mirror_server: MirrorServer, name: str) -> None:
    www = mirror_server.root
    (www / name).parent.mkdir(parents=True, exist_ok=True)
    (www / name).write_text(json.dumps(_refs(www, mirror_server.at(""))))
    corpus = load_corpus([mirror_server.at(name)])
    assert corpus.report.problems == []
    assert corpus.tags == ["develop", "v0.23.0"] and corpus.n_specs == 6 + 2


def test_an_index_of_indexes_known_by_its_content_is_used_offline_from_its_stored_copy(tmp_path: Path) -> None:
    from tests.mirrors import serve

    www = tmp_path / "www"
    servers = serve(www)
    server = next(servers)
    (www / "indexes.json").write_text(json.dumps(_refs(www, server.at(""))))
    load_corpus([server.at("indexes.json")], LoadOptions(timeout=2), cache=CorpusCache())
    servers.close()
    corpus = load_corpus([server.at("indexes.json")], LoadOptions(timeout=2), cache=CorpusCache())
    assert corpus.tags == ["develop", "v0.23.0"] and corpus.n_specs == 8
    assert any("showing the copy stored" in w.reason for w in corpus.report.warnings)


def test_a_mirrors_own_index_is_not_taken_for_an_index_of_indexes(mirror_server: MirrorServer) -> None:
    """A v2 index named directly, verified by its hash, loads as the mirror index it is, with no extra look."""
    v2_mirror(mirror_server.root / "m", DB8)
    corpus = load_corpus([mirror_server.at("m/build_cache/index.json")])
    assert corpus.report.problems == [] and corpus.tags == ["m"] and corpus.n_specs == 6


def test_an_unverifiable_index_that_is_not_an_index_of_indexes_never_says_sha256_none(
        capsys: pytest.CaptureFixture[str], mirror_server: MirrorServer, tmp_path: Path) -> None:
    """`index.json` without `index.json.hash`, holding neither a database nor an index of indexes."""
    for root in (mirror_server.root, tmp_path):
        (root / "x").mkdir()
        (root / "x" / "index.json").write_text(json.dumps({"database": {"version": "8"}}))
    code = main(["check", "--no-cache", "--json", mirror_server.at("x/index.json"), str(tmp_path / "x" / "index.json")])
    data = strict_json(capsys.readouterr().out)
    assert code == 1 and isinstance(data, dict) and len(data["errors"]) == 2
    for error in data["errors"]:
        assert "not a Spack build-cache index" in error["reason"] and "None" not in error["reason"]
        assert "no checksum published" in error["reason"]
