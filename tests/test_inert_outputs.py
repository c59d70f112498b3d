"""Every output format is inert by one rule: each format of each command, each export and download.

The formats are read from the code's own lists (each command's `--format` choices and `--json`
flag, `present.export.FORMATS`), so a new format is tested the day it is added.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cachetui.cli.main import _command_parser, main
from cachetui.cli.web import SessionServer
from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.present.inert import inert, unsafe
from cachetui.present.output import export
from cachetui.present.output.writers import write_json
from tests.hostile import EVERY_DIRECTORY, EVERY_PACKAGE, EVERY_TAG, EVERY_VALUE, HOSTILE, write_every_unsafe_value


def run_over(root: Path, hostile_file: Path) -> dict[str, tuple[list[str], list[str]]]:
    """How each command is run over the tree, and the document text each of its formats must carry."""
    return {
        "query": (["query", str(root)], [EVERY_PACKAGE, EVERY_VALUE]),
        "diff": (["diff", "develop", EVERY_TAG, str(root)], [EVERY_PACKAGE]),
        "check": (["check", str(root)], [str(hostile_file)]),
        "coverage": (["coverage", str(_hostile_lockfile(root)), str(root)], [EVERY_PACKAGE]),
        "verify": (["verify", str(root)], [EVERY_PACKAGE]),
        "plan": (["plan", str(_hostile_environment(root)), str(root)], [EVERY_PACKAGE]),
    }


def _hostile_environment(root: Path) -> Path:
    """A spack.yaml whose root is EVERY_PACKAGE (a package the tree holds), and which names it as a requirement."""
    path = root.parent / f"{root.name}.spack.yaml"
    document = {"spack": {"specs": [EVERY_PACKAGE], "packages": {EVERY_PACKAGE: {"require": [f"@1.0 {EVERY_PACKAGE}"]}}}}
    path.write_text(yaml.safe_dump(document, allow_unicode=False))  # YAML's escapes: the file itself is printable
    return path


def _hostile_lockfile(root: Path) -> Path:
    """A lockfile wanting EVERY_PACKAGE (whose binaries the tree holds), its root spec and a variant hostile too."""
    node = {"name": EVERY_PACKAGE, "version": "1.0", "parameters": {"x": EVERY_PACKAGE}, "hash": "a" * 32}
    path = root.parent / f"{root.name}.lock"
    path.write_text(json.dumps({"_meta": {"lockfile-version": 6}, "roots": [{"hash": "a" * 32, "spec": EVERY_PACKAGE}],
                                "concrete_specs": {"a" * 32: node}}))
    return path


def output_options() -> Iterator[tuple[str, list[str], str]]:
    """(command, options, format) for every format of every command that prints one."""
    subparsers = next(a for a in _command_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for command, parser in subparsers.choices.items():
        for action in parser._actions:
            if action.dest == "format":
                yield from ((command, ["--format", fmt], fmt) for fmt in action.choices)
            elif action.dest == "json":
                yield from ((command, [], "text"), (command, ["--json"], "json"))


def raw_unsafe(text: str) -> set[str]:
    """The characters the rule escapes that appear raw (a line end is the format's own)."""
    return {ch for ch in text if ch != "\n" and unsafe(ch)}


def strings_in(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def assert_inert(data: bytes, fmt: str, carried: list[str]) -> None:
    """No raw unsafe character; JSON round-trips each exact value, CSV and text show it visibly escaped."""
    text = data.decode("utf-8")  # strict: a lone surrogate could not have been encoded
    assert raw_unsafe(text) == set()
    if fmt == "json":
        found = set(strings_in(json.loads(text)))
        assert all(value in found for value in carried)
    elif fmt == "csv":
        cells = {cell for row in csv.reader(io.StringIO(text)) for cell in row}
        assert all(inert(value) in cells for value in carried)
        assert all("\\x1b]" in inert(value) for value in carried)  # OSC shown as the table shows it
    else:
        assert all(inert(value) in text for value in carried)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("every-unsafe")
    return root, write_every_unsafe_value(root)


@pytest.mark.parametrize(("command", "options", "fmt"),
                         [pytest.param(*case, id=f"{case[0]}-{case[2]}") for case in output_options()])
def test_every_format_of_every_command_writes_no_raw_unsafe_character(
        command: str, options: list[str], fmt: str, tree: tuple[Path, Path],
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    root, hostile_file = tree
    argv, carried = run_over(root, hostile_file)[command]  # a new command with an output format: add it there
    code = main([*argv, "--no-cache", *options])
    out, err = capsysbinary.readouterr()
    assert code in (0, 1), err  # 1: diff differs (the answer itself), never a usage or internal error
    assert_inert(out, fmt, carried)
    assert raw_unsafe(err.decode("utf-8")) == set()


def test_the_formats_enumerated_include_every_known_one() -> None:
    found = {(command, fmt) for command, _, fmt in output_options()}
    assert found >= {("query", f) for f in ("table", "json", "csv", "spack")} | \
        {("diff", f) for f in ("table", "json", "csv")} | {("check", "text"), ("check", "json")}


@pytest.mark.parametrize("fmt", export.FORMATS)
def test_every_export_and_download_format_writes_no_raw_unsafe_character(fmt: str, tree: tuple[Path, Path]) -> None:
    root, hostile_file = tree
    result = load_paths([root])
    corpus = build_corpus(result.documents, result.report)
    indices = list(range(corpus.n_specs))
    target = root.parent / f"export-{fmt}.{fmt}"  # the browser's `e`
    export.export_specs(target, corpus, indices)
    carried = [EVERY_PACKAGE, EVERY_VALUE, str(hostile_file)]
    assert_inert(target.read_bytes(), fmt, carried)
    assert_inert(export.export_text(corpus, indices, fmt).encode("utf-8"), fmt, carried)  # `serve`'s download


def test_serve_says_what_could_not_be_loaded_inert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "_cache" / "develop" / EVERY_DIRECTORY / "specs.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\ntitle: never closed\n")
    monkeypatch.setattr(SessionServer, "run", lambda self, ready: None)
    assert main(["serve", str(tmp_path), str(sample_path())]) == 0  # a source that loads: serve starts
    err = capsys.readouterr().err
    assert "never closed" in err and inert(HOSTILE["osc0"]) in err and raw_unsafe(err) == set()


# Serialising output happens in `present/output/writers.py` only, where the rule is applied.
SERIALISERS = {"json.dump", "json.dumps", "csv.writer", "csv.DictWriter"}
NOT_OUTPUT = {("cachetui/present/serve/served.py", "json.dumps")}  # a session's settings, handed over in the environment


def test_only_the_inert_writers_serialise_output() -> None:
    package = Path(__file__).parent.parent / "cachetui"
    found = set()
    for layer in ("cli", "app", "present"):
        for path in (package / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    name = f"{node.value.id}.{node.attr}"
                    if name in SERIALISERS:
                        found.add((path.relative_to(package.parent).as_posix(), name))
    writers = "cachetui/present/output/writers.py"
    assert found - NOT_OUTPUT == {(writers, "json.dump"), (writers, "json.dumps"), (writers, "csv.writer")}


@pytest.mark.parametrize("data", [
    [], {}, None, "x", [[]], [{}], {"k": [1, 2.5, 1e16, -0.0, True, None]},
    [{"a": "\x1b]2;t\x07\u009b\u202e\u00e9\U0001f600\"\\", "b": [1, {"c": []}]}] * 2500,  # batches
    [{"path": "x\udcff"}] * 3,  # an undecodable byte of a file name, which msgspec does not re-read
])
def test_json_is_written_byte_for_byte_as_json_dump_indents_it(data: object) -> None:
    """The fast writer (C encoder, then indented a batch at a time) writes what `json.dump(indent=2)` writes."""
    out = io.StringIO()
    write_json(out, data)
    assert out.getvalue() == json.dumps(data, indent=2, ensure_ascii=True, allow_nan=False) + "\n"
