"""`coverage` and `verify` tables as a user sees them: fitted to a terminal (short hashes, cells cut with …),
whole when piped; the rows to act on first; `--status` in every format; `verify --closure`'s total line.

A terminal is faked in process (a stdout that says it is one, `$COLUMNS`) or is a real pty (one test), so the
width is never the machine's own.
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from cachetui.cli.main import main
from cachetui.core.load import Provenance, load_corpus, read_wanted
from cachetui.core.load.provenance import OUTCOMES
from cachetui.core.query.coverage import STATUSES, coverage
from cachetui.present.output.provenance import closure_words
from cachetui.present.output.table import NARROWEST, fitted_widths, write_table
from tests.cli_answers import strict_json
from tests.dag_mirror import hash_of
from tests.signed_mirror import Keys, tarball_sizes, write_both
from tests.wanted_files import write_changed_environment

ROOT = Path(__file__).parent.parent


class Terminal(io.StringIO):
    """A stdout that is a terminal, as far as the command can tell."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    lock, mirror, _ = write_changed_environment(tmp_path_factory.mktemp("changed"))
    return str(lock), str(mirror)


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_both(tmp_path_factory.mktemp("signed"), Keys())


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str,
        columns: int | None = None) -> tuple[int, str, str]:
    """The command's exit code, stdout and stderr; `columns`: on a terminal that wide, else piped."""
    if columns is not None:
        terminal = Terminal()
        monkeypatch.setattr(sys, "stdout", terminal)
        monkeypatch.setenv("COLUMNS", str(columns))
    code = main([*argv, "--no-cache"])
    out, err = capsys.readouterr()
    if columns is not None:
        out = terminal.getvalue()
        monkeypatch.undo()
    return code, out, err


def coverage_rows(out: str) -> list[str]:
    return [line for line in out.splitlines()[1:] if line.split(" ")[0] in STATUSES]


# -- fitting a table ------------------------------------------------------------------------------------------


def test_a_table_that_fits_keeps_every_width() -> None:
    assert fitted_widths([6, 30, 10], 80) == [6, 30, 10]


def test_the_widest_columns_are_cut_first_to_one_width_and_whole_ones_never() -> None:
    widths = fitted_widths([8, 40, 7, 200], 80, whole=(0, 2))
    assert sum(widths) + 2 * 3 == 80
    assert widths[0] == 8 and widths[2] == 7  # whole
    assert abs(widths[1] - widths[3]) <= 1  # one width, a spare cell to the first


def test_a_column_is_never_cut_below_its_narrowest_even_when_the_line_cannot_fit() -> None:
    assert fitted_widths([30, 30, 30], 10) == [NARROWEST] * 3
    assert fitted_widths([3, 30], 10) == [3, NARROWEST]  # a narrow column keeps its own width


def test_a_fitted_table_cuts_what_was_made_inert_never_into_a_raw_control() -> None:
    out = io.StringIO()
    write_table(out, [["name", "note"], ["\x1b]52;c;AAAA\x07" * 4, "\x1b[31m" * 10]], width=20)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "…" in text
    assert all(cell_len(line) <= 20 for line in text.splitlines())


def test_wide_characters_count_twice_and_the_columns_stay_aligned() -> None:
    out = io.StringIO()
    write_table(out, [["a", "b"], ["漢字漢字漢字漢字漢字", "x"], ["ascii", "y"]], width=14)
    lines = out.getvalue().splitlines()
    assert {cell_len(line.rsplit("  ", 1)[0]) for line in lines} == {cell_len(lines[1].rsplit("  ", 1)[0])}
    assert all(cell_len(line) <= 14 for line in lines)


# -- coverage's table -----------------------------------------------------------------------------------------


def test_coverage_on_an_80_column_terminal_fits_with_short_hashes(capsys, monkeypatch, environment) -> None:
    code, out, _ = run(capsys, monkeypatch, "coverage", *environment, columns=80)
    rows = coverage_rows(out)
    assert code == 1 and len(rows) == 21
    assert all(cell_len(line) <= 80 for line in [out.splitlines()[0], *rows])
    assert any(line.endswith("…") for line in rows)  # the differences were cut
    curl = next(line for line in rows if " curl@" in line)
    assert f" {hash_of('curl')[:7]} " in curl and hash_of("curl") not in curl
    assert f"/{hash_of('dcurl')[:7]} (mirror)" in curl
    header = out.splitlines()[0]
    at = header.index("hash")
    assert all(line[at - 2 : at] == "  " and line[at:at + 7].strip() for line in rows)  # aligned under its header


def test_coverage_piped_is_never_cut_nor_shortened(capsys, monkeypatch, environment) -> None:
    code, out, _ = run(capsys, monkeypatch, "coverage", *environment)
    rows = coverage_rows(out)
    assert "…" not in out
    curl = next(line for line in rows if " curl@" in line)
    assert f" {hash_of('curl')} " in curl and f"/{hash_of('dcurl')} (mirror)" in curl
    assert curl.endswith("depends_on nghttp2: nghttp2@1.65.0/nghttp2 -> nghttp2@1.64.0/onghttp")


def test_coverage_lists_the_nodes_that_are_not_hits_first_and_json_keeps_the_answers_order(
        capsys, monkeypatch, environment) -> None:
    _, out, _ = run(capsys, monkeypatch, "coverage", *environment, columns=200)
    _, listed, _ = run(capsys, monkeypatch, "coverage", *environment, "--format", "json")
    answer = coverage(load_corpus([environment[1]]), read_wanted(environment[0], 2**26))
    assert [r["hash"] for r in json.loads(listed)] == [n.hash for n in answer.nodes]  # the contract's order
    shown = [(line.split()[0], line.split()[1]) for line in coverage_rows(out)]
    expected = [(n.status, f"{n.package}@{n.version}") for n in answer.nodes if n.status != "hit"]
    expected += [(n.status, f"{n.package}@{n.version}") for n in answer.nodes if n.status == "hit"]
    assert shown == expected


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_coverage_status_keeps_only_those_nodes_in_every_format(capsys, monkeypatch, environment, fmt) -> None:
    code, out, _ = run(capsys, monkeypatch, "coverage", *environment, "--status", "absent,differs",
                       "--format", fmt)
    if fmt == "json":
        statuses = [row["status"] for row in strict_json(out)]  # type: ignore[union-attr]
    elif fmt == "csv":
        statuses = list(dict.fromkeys((r["hash"], r["status"]) for r in csv.DictReader(io.StringIO(out))).keys())
        statuses = [status for _, status in statuses]  # type: ignore[misc]
    else:
        statuses = [line.split()[0] for line in coverage_rows(out)]
        assert "21 specs: 12 hit, 1 reusable, 5 differ, 1 absent, 2 external" in out  # the summary: every node
        assert "not a prediction" not in out  # no reusable node shown: its note is not said
    assert sorted(statuses) == ["absent"] + ["differs"] * 5
    assert code == 1  # the exit code speaks of every node


@pytest.mark.parametrize("fmt, printed", [("json", "[]\n"), ("csv", "hash,package,"), ("table", "")])
def test_a_misspelt_coverage_status_is_a_usage_error_naming_the_nearest(capsys, monkeypatch, environment, fmt,
                                                                         printed) -> None:
    code, out, err = run(capsys, monkeypatch, "coverage", *environment, "--status", "differs,absnt",
                         "--format", fmt)
    assert code == 2 and out.startswith(printed) and (out == printed or fmt == "csv")
    assert "unknown status 'absnt'; did you mean: absent?" in err


def test_a_status_word_is_one_of_the_statuses_coverage_defines(capsys, monkeypatch, environment) -> None:
    for status in STATUSES:
        code, _, err = run(capsys, monkeypatch, "coverage", *environment, "--status", status, "--format", "json")
        assert code != 2, err
    code, _, err = run(capsys, monkeypatch, "coverage", *environment, "--status", "verified")
    assert code == 2 and "unknown status 'verified'" in err and ", ".join(sorted(STATUSES)) in err


def test_a_terminal_is_told_by_its_own_size_in_a_pty(environment) -> None:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 72, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    done = subprocess.Popen([sys.executable, "-m", "cachetui", "coverage", *environment, "--no-cache"], cwd=ROOT,
                            stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower's end closed: all was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.wait(timeout=120) == 1, done.stderr.read() if done.stderr else ""
    out = b"".join(chunks).decode().replace("\r\n", "\n")
    rows = coverage_rows(out)
    assert len(rows) == 21 and all(cell_len(line) <= 72 for line in rows)
    assert f" {hash_of('cmake')[:7]} " in out and hash_of("cmake") + " " not in out


# -- verify's table -------------------------------------------------------------------------------------------


def verify_rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()[1:] if not line.startswith("download:")]


def test_verify_on_an_80_column_terminal_fits_with_short_hashes_and_the_expiry_s_day(capsys, monkeypatch,
                                                                                     mirrors) -> None:
    code, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v2"]), columns=80)
    lines = out.splitlines()
    assert code == 1 and all(cell_len(line) <= 80 for line in lines)
    app = next(line for line in lines if line.startswith("app "))
    assert f" {hash_of('app')[:7]} " in app and hash_of("app") not in app
    old = next(line for line in lines if line.startswith("old "))
    assert re.search(r"  \d{4}-\d\d-\d\d \(expired\)  ", old)  # the day, whole


def test_verify_piped_is_never_cut_nor_shortened(capsys, monkeypatch, mirrors) -> None:
    _, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v2"]))
    assert "…" not in out and f" {hash_of('app')} " in out
    assert "Z (expired)" in out  # the expiry as the record says it


def test_verify_lists_what_is_not_verified_first_and_json_in_the_order_matched(capsys, monkeypatch,
                                                                               mirrors) -> None:
    _, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v2"]))
    _, listed, _ = run(capsys, monkeypatch, "verify", str(mirrors["v2"]), "--format", "json")
    records = json.loads(listed)
    outcomes = [row[3] for row in verify_rows(out)]
    assert outcomes.index("verified") == len(outcomes) - outcomes.count("verified")  # then only verified
    expected = [r["package"] for r in records if r["signature"] != "verified"]
    expected += [r["package"] for r in records if r["signature"] == "verified"]
    assert [row[0] for row in verify_rows(out)] == expected
    assert [r["package"] for r in records] == sorted(r["package"] for r in records)  # JSON: as matched


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_verify_status_keeps_only_those_binaries_in_every_format(capsys, monkeypatch, mirrors, fmt) -> None:
    code, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v2"]), "--status", "bad, unknown-key",
                       "--format", fmt)
    if fmt == "json":
        shown = sorted((r["package"], r["signature"]) for r in strict_json(out))  # type: ignore[union-attr]
    else:
        shown = sorted((row[0], row[3]) for row in verify_rows(out))
    assert shown == [("foreign", "unknown-key"), ("swapped", "bad"), ("tampered", "bad")]
    assert code == 1


def test_verify_status_that_leaves_none_says_so_and_keeps_the_exit_code(capsys, monkeypatch, mirrors) -> None:
    code, out, err = run(capsys, monkeypatch, "verify", str(mirrors["v3"]), "--spec", "app", "--status", "bad",
                         "--format", "json")
    assert (code, strict_json(out)) == (0, []) and "--status bad: none of 1 binary" in err


@pytest.mark.parametrize("fmt, printed", [("json", "[]\n"), ("table", "")])
def test_a_misspelt_verify_status_is_a_usage_error_naming_the_nearest(capsys, monkeypatch, mirrors, fmt,
                                                                       printed) -> None:
    code, out, err = run(capsys, monkeypatch, "verify", str(mirrors["v2"]), "--status", "unknown_key",
                         "--format", fmt)
    assert (code, out) == (2, printed) and "unknown status 'unknown_key'; did you mean: unknown-key" in err
    assert OUTCOMES == ("verified", "unsigned", "bad", "unknown-key", "unchecked")


def test_an_escape_sequence_typed_as_a_status_is_echoed_inert(capsys, monkeypatch, mirrors) -> None:
    code, _, err = run(capsys, monkeypatch, "verify", str(mirrors["v2"]), "--status", "\x1b[2Jbad")
    assert code == 2 and "\x1b" not in err and "\\x1b" in err


def test_verify_closure_ends_with_the_total_the_browser_shows(capsys, monkeypatch, mirrors) -> None:
    code, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v3"]), "--spec", "app", "--closure")
    corpus = load_corpus([str(mirrors["v3"])])
    (app,) = corpus.occurrences(hash_of("app"))
    browser = closure_words(Provenance(corpus).closure(app))  # what the details pane's download row says
    assert browser == f"4 binaries, {tarball_sizes('app', 'zlib', 'libc3', 'tool') / 1000:.1f} kB"
    assert out.splitlines()[-1] == f"download: {browser} (spack install /{hash_of('app')[:7]})"
    assert code == 0


def test_verify_closure_counts_each_hash_once_whatever_the_sources_and_status(capsys, monkeypatch,
                                                                               mirrors) -> None:
    code, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v3"]), str(mirrors["v2"]), "--spec", "app",
                       "--closure", "--status", "unsigned")
    corpus = load_corpus([str(mirrors["v3"]), str(mirrors["v2"])])
    app = corpus.occurrences(hash_of("app"))[0]
    assert out.splitlines() == [f"download: {closure_words(Provenance(corpus).closure(app))} "
                                f"(spack install /{hash_of('app')[:7]})"]  # 8 rows, none unsigned: the total
    assert "4 binaries" in out and code == 0


def test_verify_closure_of_binaries_whose_sizes_are_unknown_says_how_many(capsys, monkeypatch, mirrors) -> None:
    code, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v2"]), "--spec", "swapped", "--closure")
    assert out.splitlines()[-1] == f"download: 1 binary, size unknown (spack install /{hash_of('swapped')[:7]})"


def test_verify_closure_in_json_is_the_list_alone(capsys, monkeypatch, mirrors) -> None:
    _, out, _ = run(capsys, monkeypatch, "verify", str(mirrors["v3"]), "--spec", "app", "--closure", "--format",
                    "json")
    rows: Any = strict_json(out)
    assert isinstance(rows, list) and sorted(r["package"] for r in rows) == ["app", "libc3", "tool", "zlib"]
