"""Inputs said as they are: a missing path is reported, the same source named twice is read once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachetui.cli.main import main
from tests import dag_mirror
from tests.cli_answers import query, strict_json
from tests.spec_tree import BINARIES


def test_a_missing_path_is_said_and_the_other_sources_still_load(capsys: pytest.CaptureFixture[str], spec_tree: Path,
                                                                tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    code, rows, err = query(capsys, str(missing), str(spec_tree), "--spec", "zlib")
    assert code == 1 and len(rows) == sum(1 for b in BINARIES.values() if b[0] == "zlib")
    assert f"no such file or directory: {missing}" in err
    code = main(["check", "--no-cache", str(spec_tree), str(missing)])
    out, _ = capsys.readouterr()
    assert code == 1 and f"error: no such file or directory: {missing}" in out and "1 error," in out


def test_diff_says_a_missing_source_rather_than_an_unknown_tag(capsys: pytest.CaptureFixture[str], spec_tree: Path,
                                                              tmp_path: Path) -> None:
    code = main(["diff", str(spec_tree), str(tmp_path / "nonexistent"), "--no-cache"])
    _, err = capsys.readouterr()
    assert code == 2 and f"no such file or directory: {tmp_path / 'nonexistent'}" in err and "tag" not in err


def test_the_same_mirror_by_url_and_through_an_index_of_indexes_counts_once(capsys: pytest.CaptureFixture[str],
                                                                          dag_dir: Path, tmp_path: Path) -> None:
    listing = tmp_path / "cache_spack_io_index.json"
    listing.write_text(json.dumps({"develop": [{"label": "root", "url": str(dag_dir) + "/"}]}))
    code = main(["check", "--no-cache", "--json", str(dag_dir), str(listing)])
    data = strict_json(capsys.readouterr().out)
    binaries = sum(1 for _, cached, _, _ in dag_mirror.RECORDS.values() if cached)
    assert data["specs"] == binaries and code == 0
    (warning,) = data["warnings"]
    assert "named twice" in warning["reason"]


def test_check_says_counts_in_one_unit_and_in_good_english(capsys: pytest.CaptureFixture[str], dag_dir: Path) -> None:
    main(["check", "--no-cache", str(dag_dir)])
    out = capsys.readouterr().out
    assert out.startswith(f"{len(dag_mirror.RECORDS) - 6} documents, ") and ", 1 tag, " in out
    assert "unique" not in out and out.rstrip().endswith("0 errors, 0 warnings")
