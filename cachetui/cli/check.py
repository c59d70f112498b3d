"""`cachetui check PATH... [--json]`: the load report."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cachetui.cli.options import EXIT_OK, EXIT_PROBLEMS, NOTHING_LOADED, add_inputs, load_inputs
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.problems import Problem
from cachetui.present.format import counted, problem_line
from cachetui.present.output.writers import write_json


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("check", help="load documents and report problems")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_inputs(parser)
    parser.set_defaults(run=run)


def summary(corpus: Corpus) -> dict[str, Any]:
    report = corpus.report
    return {
        "files": report.files_seen,
        "indexes": report.indexes_read,
        "documents": len(corpus.documents),
        "packages": len(corpus.packages),
        "tags": len(corpus.tags),
        "specs": corpus.n_specs,
        "unique_hashes": corpus.unique_hashes,
        "cache": corpus.cache_status,
        "errors": [p.as_dict() for p in report.errors],
        "warnings": [p.as_dict() for p in report.warnings],
    }


def run(args: argparse.Namespace) -> int:
    corpus = load_inputs(args)  # the report is check's answer, also when every source failed
    data = summary(corpus)
    if args.json:
        write_json(sys.stdout, data)
    else:
        _print_text(data, corpus.report.problems)
    if corpus.nothing_loaded:  # said as every command says it; still exit 1: check's problems are its answer
        print(f"cachetui: {NOTHING_LOADED}", file=sys.stderr)
    return EXIT_PROBLEMS if data["errors"] else EXIT_OK


def _print_text(data: dict[str, Any], problems: list[Problem]) -> None:
    read = [counted(data["files"], "file", "files") if data["files"] or not data["indexes"] else "",
            counted(data["indexes"], "mirror index", "mirror indexes") if data["indexes"] else ""]
    # A spec is a listing: one binary in one tag. Unique binaries are said only where they differ.
    unique = f" ({counted(data['unique_hashes'], 'unique binary', 'unique binaries')})" \
        if data["unique_hashes"] != data["specs"] else ""
    print(f"{counted(data['documents'], 'document', 'documents')}, {counted(data['packages'], 'package', 'packages')}, "
          f"{counted(data['tags'], 'tag', 'tags')}, {counted(data['specs'], 'spec', 'specs')}{unique} "
          f"from {' and '.join(r for r in read if r)}")
    for problem in problems:
        print(problem_line(problem))
    print(f"{counted(len(data['errors']), 'error', 'errors')}, {counted(len(data['warnings']), 'warning', 'warnings')}")
