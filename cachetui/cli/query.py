"""`cachetui query PATH... [filters] [--format table|json|csv]`: the matching specs."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

import numpy as np

from cachetui.cli.options import add_inputs, fail_usage, load_or_exit, report_load_errors, report_unknown
from cachetui.present.spec_output import FORMATS, write_specs
from cachetui.core.filters import MalformedValue, UnknownValue, resolve_filters, resolve_package
from cachetui.core.model import Corpus
from cachetui.core.query import Query, RunsOn, match
from cachetui.core.specmatch import NoDependencyData
from cachetui.core.specquery import SpecQuery, SpecSyntaxError, VariantTerm, parse_spec_query
from cachetui.core.variants import parse_variants
from cachetui.core.targets import archspec_names, host, known

# option -> facet; repeated options of one kind are OR, different kinds AND (each variant
# name is its own kind: `--variant +mpi --variant ~cuda` needs both). One `--variant` with
# several values (`cuda_arch=80,90`) needs them all, as Spack reads it.
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
    parser.add_argument("--spec", metavar="QUERY",
                        help="a Spack spec query, e.g. 'hdf5@1.14: +mpi %%gcc@13 target=x86_64_v3' or '/abc1234'")
    parser.add_argument("--runs-on", metavar="MACHINE",
                        help="binaries that run on 'host' (this machine) or on a microarchitecture, e.g. zen3")
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_inputs(parser)
    parser.set_defaults(run=run)


def build_filters(corpus: Corpus, args: argparse.Namespace) -> dict[str, frozenset[str]]:
    """The facet filters the options stand for; unknown values and bad syntax end the command."""
    typed = {facet: getattr(args, option) for option, facet in FILTER_OPTIONS.items()}
    typed["variant"] = [v for v in typed["variant"] if not _several_values(v)]
    try:
        return resolve_filters(corpus, typed)
    except MalformedValue as exc:
        fail_usage(str(exc))


def _several_values(typed: str) -> bool:
    variants = parse_variants(typed)
    return len(variants) == 1 and len(variants[0].values) > 1


def _with_variant_options(spec: SpecQuery | None, typed: list[str]) -> SpecQuery | None:
    """`--variant cuda_arch=80,90` means both values, as Spack reads it: a spec constraint, not facet choices."""
    terms = tuple(VariantTerm(v.name, v.values, exact=v.exact)
                  for text in typed if _several_values(text) for v in parse_variants(text))
    if not terms:
        return spec
    spec = spec or SpecQuery()
    return replace(spec, root=replace(spec.root, variants=spec.root.variants + terms))


def _packages(corpus: Corpus, typed: list[str]) -> list[str]:
    return [resolve_package(corpus, name) for name in dict.fromkeys(typed)]


def _spec(text: str | None) -> SpecQuery | None:
    if text is None:
        return None
    try:
        return parse_spec_query(text)
    except SpecSyntaxError as exc:
        fail_usage(f"malformed spec query: {exc.message}\n  {exc.text}\n  {' ' * exc.position}^")


def _runs_on(text: str | None) -> RunsOn | None:
    """`host` is this machine (its microarchitecture and platform); any other name is a microarchitecture."""
    if text is None:
        return None
    if text == "host":
        machine = host()
        return RunsOn(machine.target, machine.platform)
    if not known(text):
        raise UnknownValue("microarchitecture", text, sorted(archspec_names()))
    return RunsOn(text)


def run(args: argparse.Namespace) -> int:
    spec = _spec(args.spec)  # syntax first: a malformed query is a usage error whatever the corpus
    corpus = load_or_exit(args)
    try:
        filters = build_filters(corpus, args)
        packages = _packages(corpus, args.package)
        runs_on = _runs_on(args.runs_on)
        spec = _with_variant_options(spec, args.variant)
        queries = [Query(p, filters, spec, runs_on) for p in packages or [None]]
        indices = np.concatenate([match(corpus, q) for q in queries])
    except (UnknownValue, NoDependencyData) as exc:
        return report_unknown(exc)
    write_specs(sys.stdout, corpus, [int(i) for i in indices], args.format, to_terminal=sys.stdout.isatty())
    return report_load_errors(corpus)

