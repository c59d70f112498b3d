"""`cachetui plan ENV [SOURCE...] [--arch PLATFORM-OS-TARGET] [--format table|json|csv] [--export FILE [--force]]`:
which cached binary can serve each root of a Spack environment, and what excludes the rest."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from textwrap import fill
from typing import Any

from cachetui.cli.options import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    add_inputs,
    answered,
    fail_usage,
    inputs_of,
    load_or_exit,
    report_load_errors,
    terminal_width,
)
from cachetui.cli.plan_environment import arch_of, environment_mirrors, environment_of
from cachetui.core.load import is_url, local_input
from cachetui.core.model.environment import Environment
from cachetui.core.query.plan import CACHED_MEANS, NOT_MODELLED, plan
from cachetui.core.spack.words import counted
from cachetui.present.inert import inert
from cachetui.present.output.export import ExportRefused, resolve_target
from cachetui.present.output.plan_output import FORMATS, export_text, write_export, write_no_answer, write_plan

DESCRIPTION = f"""\
Plan a Spack environment from the cache: for each root of ENV (a spack.yaml, or the environment
directory holding one), the binary Spack can reuse for it, if any, and what excludes the others.

ENV's `specs:` are read with their matrices, excludes and `$name` definitions; its `packages:` (and
those of what it includes) with `require:`, `prefer:`, `conflict:`, `buildable: false` and externals,
as Spack's solver reads them. With no SOURCE, the environment's own `mirrors:` are read (said on
stderr); with neither, your Spack's binary mirrors, as every command does.

A binary can serve a root when it satisfies the root's constraints (as `query --spec` reads them),
every requirement that applies to its package, and runs on the platform: --arch PLATFORM-OS-TARGET
(e.g. linux-ubuntu22.04-x86_64_v3), by default this host. Each root is cached, partly (its binary's
closure misses records, holds one failing its requirements, or is unknown), external (buildable: false
with externals) or build (no binary: the nearest ones and every reason each is excluded). Among the
binaries that can serve a root the one with a complete closure is chosen first, then the one meeting
the most prefer: rules, then the newest version, then the first hash.

{fill(f"{CACHED_MEANS}; {NOT_MODELLED}. What ENV holds that is not evaluated is said once on stderr.", 100)}

--export FILE writes the same environment with its roots as a flat list, each cached or partly root
pinned to its binary (name@version/HASH), the mirrors holding them (never credentials) and
`concretizer: reuse: true`; it never replaces a file without --force, and never ENV's own files.

Exit 0: every root is cached or external and every SOURCE loaded; 1: otherwise; 2: usage, or an ENV
that cannot be read (one line)."""

def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("plan", help="which cached binary can serve each root of a Spack environment",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("environment", metavar="ENV", help="a spack.yaml, or the environment directory holding one")
    parser.add_argument("--arch", metavar="PLATFORM-OS-TARGET",
                        help="the platform to plan for, as Spack writes arch= (default: this host)")
    parser.add_argument("--format", choices=FORMATS, default="table")
    parser.add_argument("--export", metavar="FILE", help="write the environment with its roots pinned to FILE")
    parser.add_argument("--force", action="store_true", help="with --export: replace FILE if it exists")
    add_inputs(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return answered(lambda: _answer(args), lambda: write_no_answer(sys.stdout, args.format))


def _answer(args: argparse.Namespace) -> int:
    arch = arch_of(args.arch)  # before anything is read: a typo is a usage error at once
    if args.force and not args.export:
        fail_usage("--force goes with --export FILE")
    environment = environment_of(args, args.environment, arch)
    _choose_inputs(args, environment)
    target = _export_target(args, environment) if args.export else None
    corpus = load_or_exit(args)
    failed = report_load_errors(corpus)
    found = plan(corpus, environment, arch)
    for note in found.notes:
        print(f"cachetui: {inert(note)}", file=sys.stderr)
    write_plan(sys.stdout, found, args.format, width=terminal_width(sys.stdout))
    if target is not None:
        text, unplaced = export_text(found, corpus)
        for said in unplaced:
            print(f"cachetui: --export: {inert(said)}", file=sys.stderr)
        try:
            write_export(target, text, replace=args.force)
        except ExportRefused as exc:  # after the answer was printed: said, not printed again as `[]`
            print(f"cachetui: --export: {inert(str(exc))}", file=sys.stderr)
            return EXIT_USAGE
        pinned = sum(1 for root in found.roots if root.binary is not None)
        print(inert(f"cachetui: wrote {target}: {pinned} of {counted(len(found.roots), 'root')} pinned"),
              file=sys.stderr)
    return EXIT_OK if found.complete and not failed else EXIT_PROBLEMS


def _choose_inputs(args: argparse.Namespace, environment: Environment) -> None:
    """What to load, decided once: the SOURCEs named; else the environment's mirrors (said); else what every
    command reads when none is named. The choice is written back into `args`, so the load reads exactly it."""
    said = environment_mirrors(args, environment)
    if said is not None:
        print(f"cachetui: {said}", file=sys.stderr)
    else:
        args.inputs = inputs_of(args)
    args.public, args.spack_mirrors, args.spack_mirror = None, False, []


def _export_target(args: argparse.Namespace, environment: Environment) -> Path:
    """Where --export writes, checked before anything loads: never inside a local SOURCE, never over the
    environment's own files (even with --force), never over another file without --force."""
    roots = [path for path in map(local_input, args.inputs) if path is not None]
    try:
        target = resolve_target(args.export, roots)
    except ExportRefused as exc:
        fail_usage(f"--export: {exc}")
    own = {os.path.realpath(path) for path in (*environment.files, *environment.include_paths()) if not is_url(path)}
    if os.path.realpath(target) in own:
        fail_usage(f"--export: {target} is a file of the environment, or one it includes: an export never writes "
                   "over its input (name another file)")
    if target.exists() and not args.force:
        fail_usage(f"--export: {target} exists: --force replaces it")
    return target
