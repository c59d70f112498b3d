"""The output contract: one strict JSON list or a CSV header always, exit 1 when nothing matched."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.cli.main import main
from tests.cli_answers import query
from tests.spec_tree import hash_of


def test_a_legitimately_empty_answer_is_still_one_json_list_and_a_csv_header(capsys: pytest.CaptureFixture[str],
                                                                            spec_tree: Path) -> None:
    code, rows, _ = query(capsys, str(spec_tree), "--spec", "kokkos@4.3.01 %oneapi")
    assert (code, rows) == (1, [])
    code = main(["query", str(spec_tree), "--no-cache", "--format", "csv", "--spec", "kokkos@4.3.01 %oneapi"])
    out, _ = capsys.readouterr()
    assert code == 1 and out.splitlines()[0].startswith("package,tag,hash")


def test_a_match_is_exit_0_and_strict_json(capsys: pytest.CaptureFixture[str], spec_tree: Path) -> None:
    code, rows, err = query(capsys, str(spec_tree), "--spec", "kokkos@4.3.01")
    assert code == 0 and err == "" and {row["hash"] for row in rows} == {hash_of(x) for x in ("kexact", "kboth",
                                                                                                "kpatch")}
