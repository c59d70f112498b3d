"""`cachetui query PATH... [filters] [--format table|json|csv]`: the matching specs."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

import numpy as np

from cachetui.cli.options import (
    EXIT_PROBLEMS,
    add_inputs,
    answered,
    fail_usage,
    load_or_exit,
    report_load_errors,
    report_unknown,
    spec_option,
)
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import REGISTRY
from cachetui.core.query.filters import MalformedValue, resolve_filters
from cachetui.core.query.pushed import EXAMPLES, MalformedMoment, PushedWithin, parse_moment
from cachetui.core.query.query import Filters, Query, RunsOn, said_beside, select
from cachetui.core.query.resolve import QueryProblem, UnknownValue, resolve_package
from cachetui.core.spack.specquery import SpecQuery, VariantTerm
from cachetui.core.spack.targets import archspec_names, host, known
from cachetui.core.spack.variants import parse_variants
from cachetui.present.inert import inert
from cachetui.present.output.spec_output import FORMATS, write_no_answer, write_specs

DESCRIPTION = """\
Print the binaries that match. Filters combine as OR within one option and AND across options;
each variant name counts as its own option: `--variant +mpi --variant ~cuda` needs both,
`--variant cuda_arch=80 --variant cuda_arch=90` takes either, and one `--variant cuda_arch=80,90`
needs both values (as Spack reads it). --spec, --runs-on, --pushed-since and --pushed-before are
ANDed with the rest; a binary whose storage does not say when it was pushed matches neither.

A value that names nothing where it is looked for (the --package or the package the spec names,
else every loaded source) is an error naming the nearest real values (exit 1). Parts that each
exist but match nothing together give an empty answer and one line on stderr saying which part
emptied it (exit 1). --format json always prints one JSON list ([] when empty), csv its header;
messages go to stderr. Exit 0: something matched and everything loaded; 1: nothing matched, an
unknown value, or a source that could not be loaded; 2: usage (a malformed query or option, or one
that asks what build caches do not record: compiler flags, a compiler's variants or target), or no
source loaded at all (said as such, never as an unknown value)."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("query", help="print the specs that match filters", description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", action="append", default=[], metavar="NAME",
                        help="only this package (repeat for several)")
    for field in REGISTRY.options():  # one option a facet (cachetui.core.model.fields), named as it is
        option = field.option
        if option is None:
            continue
        flag = "--" + field.name.replace("_", "-")
        if option.const is not None:  # `--installable` alone: the binaries that are
            parser.add_argument(flag, dest=field.name, action="append", default=[], nargs="?", const=option.const,
                                choices=option.choices, help=option.help)
            continue
        parser.add_argument(flag, dest=field.name, action="append", default=[], metavar=field.name.upper(),
                            choices=option.choices, help=option.help)
    parser.add_argument("--spec", metavar="QUERY",
                        help="a Spack spec query, e.g. 'hdf5@1.14: +mpi target=x86_64_v3 %%gcc@13' or '/abc1234'")
    parser.add_argument("--runs-on", metavar="MACHINE",
                        help="binaries that run on 'host' (this machine) or on a microarchitecture, e.g. zen3")
    parser.add_argument("--pushed-since", metavar="DATE",
                        help=f"binaries pushed at or after DATE: {EXAMPLES}")
    parser.add_argument("--pushed-before", metavar="DATE", help="binaries pushed before DATE (as --pushed-since)")
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_inputs(parser)
    parser.set_defaults(run=run)


def build_filters(corpus: Corpus, args: argparse.Namespace, package: str | None = None) -> dict[str, frozenset[str]]:
    """The facet filters the options stand for, looked for in `package`; bad syntax ends the command.

    Repeated options of one kind are OR, different kinds AND (each variant name is its own kind:
    `--variant +mpi --variant ~cuda` needs both). One `--variant` with several values
    (`cuda_arch=80,90`) needs them all, as Spack reads it.
    """
    typed = {field.name: getattr(args, field.name) for field in REGISTRY.options()}
    typed["variant"] = [v for v in typed["variant"] if not _several_values(v)]
    try:
        return resolve_filters(corpus, typed, package)
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


def pushed_option(args: argparse.Namespace) -> PushedWithin | None:
    """`--pushed-since` and `--pushed-before`, read before anything loads: a bad DATE is a usage error."""
    def moment(flag: str, text: str | None) -> int | None:
        try:
            return None if text is None else parse_moment(text)
        except MalformedMoment as exc:
            fail_usage(f"{flag}: {exc}")

    since, before = moment("--pushed-since", args.pushed_since), moment("--pushed-before", args.pushed_before)
    return None if since is None and before is None else PushedWithin(since, before)


def run(args: argparse.Namespace) -> int:
    # A malformed query, nothing loaded, `--stack root`: said on stderr, exit 2, and still `[]` or the CSV header.
    return answered(lambda: _answer(args), lambda: write_no_answer(sys.stdout, args.format))


def _answer(args: argparse.Namespace) -> int:
    spec = spec_option(args.spec)  # syntax first: a malformed query is a usage error whatever the corpus
    pushed = pushed_option(args)
    corpus = load_or_exit(args)
    try:
        packages = _packages(corpus, args.package)
        filters = build_filters(corpus, args, packages[0] if len(packages) == 1 else None)
        runs_on = _runs_on(args.runs_on)
        spec = _with_variant_options(spec, args.variant)
        scopes: list[str | None] = [*packages] or [None]
        selections = [select(corpus, Query(p, Filters(filters), spec, runs_on, pushed)) for p in scopes]
    except QueryProblem as exc:
        write_no_answer(sys.stdout, args.format)
        report_load_errors(corpus)
        return report_unknown(exc)
    indices = np.concatenate([selection.indices() for selection in selections])
    write_specs(sys.stdout, corpus, [int(i) for i in indices], args.format)
    loaded = report_load_errors(corpus)
    for selection in selections:  # the browser says the same beside its query line (Results.note)
        note = said_beside(None if len(indices) else selection.why_empty(), selection.dependencies_unknown())
        if note is not None:
            print(f"cachetui: {inert(note)}", file=sys.stderr)
    return loaded if len(indices) else EXIT_PROBLEMS
