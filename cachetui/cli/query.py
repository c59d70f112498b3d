"""`cachetui query PATH... [filters] [--format table|json|csv]`: the matching specs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from cachetui.cli.options import EXIT_OK, add_load_options, load_or_exit
from cachetui.cli.output import FORMATS, write_specs
from cachetui.core.compilers import normalise_compiler
from cachetui.core.model import Corpus
from cachetui.core.query import Query, match
from cachetui.core.sample import sample_path
from cachetui.core.variants import variant_atoms

# option -> facet; repeated options of one kind are OR, different kinds AND.
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
    parser.add_argument("paths", nargs="*", metavar="PATH", help="default: the bundled sample corpus")
    parser.add_argument("--package", action="append", default=[], metavar="NAME")
    for option in FILTER_OPTIONS:
        parser.add_argument(f"--{option}", action="append", default=[], metavar=option.upper())
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_load_options(parser)
    parser.set_defaults(run=run)


def build_filters(corpus: Corpus, args: argparse.Namespace) -> dict[str, frozenset[str]]:
    filters: dict[str, frozenset[str]] = {}
    for option, facet in FILTER_OPTIONS.items():
        values = getattr(args, option)
        if values:
            filters[facet] = frozenset(_expand(corpus, facet, values))
    return filters


def _expand(corpus: Corpus, facet: str, values: list[str]) -> set[str]:
    if facet == "compiler":
        return {c for v in values for c in _compilers(corpus, v)}
    if facet == "variant":
        return {atom for v in values for atom in variant_atoms((v,))}
    return set(values)


def _compilers(corpus: Corpus, value: str) -> list[str]:
    """`gcc@=13.2.0` means gcc@13.2.0; a bare name such as `gcc` means every gcc."""
    if "@" in value:
        return [normalise_compiler(value)]
    return [c for c in corpus.vocab["compiler"].values if c.partition("@")[0] == value]


def run(args: argparse.Namespace) -> int:
    corpus = load_or_exit(args.paths or [str(sample_path())], args)
    filters = build_filters(corpus, args)
    packages = [p for p in dict.fromkeys(args.package) if p in corpus.package_index]
    if args.package:
        found = [match(corpus, Query(p, filters)) for p in packages]
        indices = np.concatenate(found) if found else np.array([], dtype=np.int64)
    else:
        indices = match(corpus, Query(None, filters))
    write_specs(sys.stdout, [corpus.spec(int(i)) for i in indices], args.format)
    return EXIT_OK
