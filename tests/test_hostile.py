"""Hostile and broken input: never crash, never lie, never let a document drive the terminal."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import time
import unicodedata
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.problems import Severity
from cachetui.present.inert import inert
from tests.hostile import HOSTILE, cases, write_case, write_hostile_tree

UNSAFE = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


def unsafe_chars(text: str, allowed: str = "\n") -> set[str]:
    return {c for c in text if c not in allowed and unicodedata.category(c) in UNSAFE}


@pytest.mark.parametrize("case", cases(Path("/nonexistent/marker")), ids=lambda c: c.name)
def test_each_broken_case_is_reported_and_the_rest_still_loads(case, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    path = write_case(tmp_path, case)
    result = load_paths([sample_path(), tmp_path])
    corpus = build_corpus(result.documents, result.report)
    mine = [p for p in corpus.report.problems if p.path == str(path)]
    assert corpus.n_specs == 362 + case.specs
    if case.severity is None:
        assert mine == []
    else:
        worst = Severity.ERROR if any(p.severity is Severity.ERROR for p in mine) else Severity.WARNING
        assert worst.value == case.severity
        assert any(case.reason in p.reason for p in mine), [p.reason for p in mine]
    code = main(["check", str(sample_path()), str(tmp_path), "--json"])
    assert code == (1 if case.severity == "error" else 0)
    assert "Traceback" not in capsys.readouterr().err


def test_yaml_tags_are_never_constructed(tmp_path: Path) -> None:
    marker = tmp_path / "python-tag-ran"
    (case,) = [c for c in cases(marker) if c.name == "python_tag"]
    write_case(tmp_path, case)
    load_paths([tmp_path])
    assert not marker.exists()


def test_alias_bomb_is_refused_at_the_first_alias(tmp_path: Path) -> None:
    (case,) = [c for c in cases(tmp_path / "m") if c.name == "alias_bomb"]
    write_case(tmp_path, case)
    (problem,) = load_paths([tmp_path]).report.errors
    assert problem.line == 4  # line 3 only defines the anchor; line 4 holds the first alias


def test_files_over_the_size_cap_are_skipped_with_a_reason(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    big = tmp_path / "_cache" / "develop" / "big" / "specs.md"
    big.parent.mkdir(parents=True)
    big.write_text("---\ntitle: big\n" + "x: " + "y" * 2_000_000 + "\n---\n")
    assert main(["check", str(tmp_path), "--max-file-size", "1", "--json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert "over the 1.00 MB cap" in error["reason"]
    with pytest.raises(SystemExit) as usage:
        main(["check", str(tmp_path), "--max-file-size", "0"])
    assert usage.value.code == 2


def test_permission_denied_is_a_problem_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (case,) = [c for c in cases(tmp_path) if c.name == "bom"]
    locked = write_case(tmp_path, case)
    locked.chmod(0)
    real_open = os.open

    def guarded_open(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if str(file) == str(locked) and os.geteuid() == 0:  # root reads anything: simulate the refusal
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    result = load_paths([sample_path(), tmp_path])
    (error,) = result.report.errors
    assert error.path == str(locked) and error.reason == "permission denied"
    assert sum(len(d.specs) for d in result.documents) == 362


def test_symlink_loops_are_detected(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "back").symlink_to(tmp_path)
    result = load_paths([tmp_path])
    assert any("symlink loop" in p.reason for p in result.report.warnings)


def test_a_hundred_thousand_non_documents_are_skipped(tmp_path: Path) -> None:
    junk = tmp_path / "junk"
    for d in range(100):
        folder = junk / f"d{d}"
        folder.mkdir(parents=True)
        for f in range(1000):
            (folder / f"f{f}.json").write_bytes(b'{"not": "a document"}')
    write_case(tmp_path, next(c for c in cases(tmp_path) if c.name == "crlf"))
    result = load_paths([tmp_path])
    assert result.report.files_seen == 100_001
    assert result.report.problems == [] and len(result.documents) == 1


def test_cli_text_output_is_inert_and_csv_shows_the_escapes_terminal_or_not(
        tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    write_hostile_tree(tmp_path)
    for argv in (["check", str(tmp_path)], ["query", str(tmp_path)], ["query", str(tmp_path), "--format", "spack"]):
        main(argv)
        out, err = capsys.readouterr()
        assert unsafe_chars(out) == set() and unsafe_chars(err) == set(), argv
    for terminal in (False, True):  # a file or a pipe is shown on a terminal sooner or later (`cat f`)
        monkeypatch.setattr(sys.stdout, "isatty", lambda terminal=terminal: terminal)
        main(["query", str(tmp_path), "--format", "csv"])
        out = capsys.readouterr().out
        assert unsafe_chars(out) == set()
        limit = csv.field_size_limit(1 << 25)  # the tree holds a 10 MB variant
        try:
            header, *rows = csv.reader(io.StringIO(out))
        finally:
            csv.field_size_limit(limit)
        assert any(row[header.index("os")] == "\\x1b]52;c;cHduZWQ=\\x07" == inert(HOSTILE["osc52"]) for row in rows)
    monkeypatch.undo()
    main(["query", str(tmp_path), "--format", "json"])
    out = capsys.readouterr().out
    assert out.isascii()
    rows = json.loads(out)
    assert any(r["os"] == HOSTILE["osc52"] for r in rows)  # JSON keeps the data exact, escaped by nature
    main(["query", str(tmp_path)])
    assert "[bold red]loud[/]" in capsys.readouterr().out  # markup shown literally


def test_inert_makes_every_unsafe_character_visible() -> None:
    for text in HOSTILE.values():
        shown = inert(text)
        assert unsafe_chars(shown, allowed="") == set()
    assert inert("\x1b]0;x\x07") == "\\x1b]0;x\\x07"
    assert inert("a\u202eb") == "a\\u202eb"
    assert inert("plain [bold] text") == "plain [bold] text"


def test_loading_never_writes_into_the_input_tree(tmp_path: Path) -> None:
    write_hostile_tree(tmp_path)

    def state() -> dict[str, tuple[bytes, int]]:
        found = {}
        for dirpath, _, files in os.walk(tmp_path):
            for name in files:
                path = os.path.join(dirpath, name)
                found[path] = (Path(path).read_bytes(), os.stat(path).st_mtime_ns)
        return found

    before = state()
    time.sleep(0.01)  # a write would then change mtime_ns visibly; not a race guard
    load_paths([tmp_path])
    main(["check", str(tmp_path)])
    assert state() == before
