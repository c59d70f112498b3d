"""`cachetui coverage WANTED [SOURCE...] [--status WORDS] [--format table|json|csv]`: why isn't my spec in the cache?"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cachetui.cli.options import (
    EXIT_OK,
    EXIT_PROBLEMS,
    add_inputs,
    add_status_option,
    answered,
    fail_usage,
    load_options,
    load_or_exit,
    report_load_errors,
    report_none_shown,
    status_option,
    terminal_width,
)
from cachetui.core.load import UnreadableWanted, read_wanted
from cachetui.core.query.coverage import NOT_A_PREDICTION, STATUSES, coverage
from cachetui.present.format import problem_line
from cachetui.present.output.coverage_output import FORMATS, shown_nodes, write_coverage, write_no_answer

DESCRIPTION = f"""\
Compare what you want installed (WANTED) with the binaries the SOURCEs hold, node by node.
WANTED is a spack.lock (or the environment directory holding it), specfiles (`spack spec --json`
output, a .spec.json, a clearsigned .spec.json.sig, an old .spec.yaml), an install database
(.spack-db/index.json, or the install root holding it), or - for standard input.

Each node is hit (its exact hash is held), reusable, differs (the nearest binary and what differs,
named as `spack diff` names it), absent (no binary of the package) or external.
{NOT_A_PREDICTION}.

The table lists the nodes that are not hits first; on a terminal it fits its width (hashes shortened to 7
characters, long cells cut with …); piped or redirected, nothing is cut. --status keeps only the nodes of the
statuses it names, comma-separated (e.g. --status differs,absent), in every format; the summary line, the
roots' lines and the exit code still speak of every node.

Exit 0: every node is a hit or an external and every SOURCE loaded; 1: otherwise (a SOURCE that could
not be loaded is said on stderr); 2: usage, or a WANTED that cannot be read."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("coverage", help="which wanted specs the caches hold, and why not",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wanted", metavar="WANTED", help="spack.lock, environment directory, specfile(s), "
                        "install database, or - for standard input")
    add_status_option(parser, STATUSES, "nodes")
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_inputs(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return answered(lambda: _answer(args), lambda: write_no_answer(sys.stdout, args.format))


def _answer(args: argparse.Namespace) -> int:
    statuses = status_option(args.status, STATUSES)  # before anything is read: a typo is a usage error at once
    try:
        wanted = read_wanted(args.wanted, load_options(args).max_file_bytes)
    except UnreadableWanted as exc:
        fail_usage(str(exc))
    corpus = load_or_exit(args)
    for problem in wanted.problems:
        print(f"cachetui: {problem_line(problem)}", file=sys.stderr)
    failed = report_load_errors(corpus)
    found = coverage(corpus, wanted)
    write_coverage(sys.stdout, found, args.format, statuses=statuses, width=terminal_width(sys.stdout))
    report_none_shown(statuses, len(shown_nodes(found, statuses)), len(found.nodes), "spec", "specs")
    return EXIT_OK if found.complete and not failed else EXIT_PROBLEMS
