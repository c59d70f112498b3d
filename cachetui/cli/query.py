"""`cachetui query PATH... [filters] [--format table|json|csv]`: the matching specs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from cachetui.cli.options import EXIT_OK, EXIT_PROBLEMS, add_inputs, fail_usage, load_or_exit, report_unknown
from cachetui.cli.output import FORMATS, write_specs
from cachetui.core.filters import MalformedValue, UnknownValue, resolve_filters, resolve_package
from cachetui.core.model import Corpus
from cachetui.core.query import Query, match
from cachetui.present.inert import inert

# option -> facet; repeated options of one kind are OR, different kinds AND
# (each variant name is its own kind: `--variant +mpi --variant ~cuda` needs both).
FILTER_OPTIONS = {
    "tag": "tag",
    "version": "version",
    "compiler": "compiler",
    "platform": "platform",
    "os": "os",
    "target": "target",
    "stack": "stack",
    "variant": "variant",
}


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("query", help="print the specs that match filters")
    parser.add_argument("--package", action="append", default=[], metavar="NAME")
    for option in FILTER_OPTIONS:
        parser.add_argument(f"--{option}", action="append", default=[], metavar=option.upper())
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_inputs(parser)
    parser.set_defaults(run=run)


def build_filters(corpus: Corpus, args: argparse.Namespace) -> dict[str, frozenset[str]]:
    """The facet filters the options stand for; unknown values and bad syntax end the command."""
    try:
        return resolve_filters(corpus, {facet: getattr(args, option) for option, facet in FILTER_OPTIONS.items()})
    except MalformedValue as exc:
        fail_usage(str(exc))


def _packages(corpus: Corpus, typed: list[str]) -> list[str]:
    return [resolve_package(corpus, name) for name in dict.fromkeys(typed)]


def run(args: argparse.Namespace) -> int:
    corpus = load_or_exit(args)
    try:
        filters = build_filters(corpus, args)
        packages = _packages(corpus, args.package)
    except UnknownValue as exc:
        return report_unknown(exc)
    if packages:
        indices = np.concatenate([match(corpus, Query(p, filters)) for p in packages])
    else:
        indices = match(corpus, Query(None, filters))
    write_specs(sys.stdout, corpus, [int(i) for i in indices], args.format)
    return report_load_errors(corpus)


def report_load_errors(corpus: Corpus) -> int:
    """What could not be loaded is said on stderr, so an answer is never silently partial (exit 1)."""
    for problem in corpus.report.errors:
        print(f"cachetui: {inert(problem.path)}: {inert(problem.reason)}", file=sys.stderr)
    return EXIT_PROBLEMS if corpus.report.errors else EXIT_OK
