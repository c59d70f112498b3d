"""`cachetui`: open the browser, or run one of the headless commands (COMMANDS)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cachetui import __version__
from cachetui.cli.options import (
    EXIT_OK,
    SAMPLE,
    Parser,
    UsageError,
    add_inputs,
    check_inputs,
    fail_usage,
    guarded,
    load_options,
    names_a_source,
)
from cachetui.core.spack.words import echo

if TYPE_CHECKING:
    from cachetui.app.app import CacheTuiApp
    from cachetui.core.load import CyclicGcPause
    from cachetui.core.model.wanted import WantedDag
    from cachetui.present.browse.plan_browsing import PlanAsked

# The headless commands, in the order `cachetui --help` names them: each is the module `cachetui.cli.NAME`, whose
# `add_parser` declares its help and options and the function that runs it. A new command is a module and its name here.
COMMANDS = ("check", "query", "diff", "coverage", "plan", "verify", "serve", "config")


def browse_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="cachetui",
        description="Browse Spack build caches: site documents, mirrors and the public cache. With no SOURCE, "
        "opens the sources of your config.toml, else the bundled sample corpus. Commands: "
        f"{', '.join(COMMANDS)} (see 'cachetui COMMAND --help').",
    )
    parser.add_argument("--version", action="version", version=f"cachetui {__version__}")
    parser.add_argument(
        "--want", action="append", default=[], metavar="WANTED",
        help="open on the coverage of what you want installed: a spack.lock, an environment directory, specfiles "
             "or an install database, as `cachetui coverage` reads them (repeatable: one DAG, a node shared once)",
    )
    parser.add_argument(
        "--plan", metavar="ENV",
        help="open on the plan of a Spack environment (a spack.yaml or its directory), as `cachetui plan` reads it: "
             "which cached binary can serve each root; with no SOURCE, the environment's mirrors are read",
    )
    parser.add_argument("--arch", metavar="PLATFORM-OS-TARGET",
                        help="with --plan: the platform to plan for, as Spack writes arch= (default: this host)")
    add_inputs(parser, unnamed=SAMPLE, default_help="Default: the sources of your config.toml, else the bundled sample")
    return parser


def _command_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser, or only one's: a command imports its own module, not the others' (`check` as
    felt was 0.1 s slower for importing what `query`, `diff`, `coverage` and `verify` answer with)."""
    return _parsers(only)[0]


def _parsers(only: str | None) -> tuple[Parser, dict[str, Parser]]:
    parser = Parser(prog="cachetui")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"cachetui.cli.{name}").add_parser(subparsers)
    return parser, subparsers.choices


def parse_command(argv: Sequence[str]) -> argparse.Namespace:
    """`argv` read by its command's parser (`argv[0]`), options anywhere among its words: users type
    `cachetui plan spack.yaml --arch linux-rhel8-zen4 mirror/`, which a plain parse reads as a stray `mirror/`."""
    command = _parsers(argv[0])[1][argv[0]]
    args = command.parse_intermixed_args(argv[1:])
    args.command = argv[0]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        args = parse_command(argv)
        return guarded(lambda: args.run(args), args.debug)
    if argv and (near := mistyped_command(argv[0])) is not None:
        return guarded(lambda: fail_usage(f"{echo(argv[0], quoted=True)} is no command, nor a file or directory to "
                                          f"open: did you mean {near}? (see 'cachetui --help')"), False)
    args = browse_parser().parse_intermixed_args(argv)  # `--plan ENV SOURCE --no-cache SOURCE` as typed
    if (late := command_after_options(args.inputs)) is not None:
        return guarded(lambda: fail_usage(f"'{late}' is a command: name it first, then its options "
                                          f"(cachetui {late} [OPTIONS] ...; see 'cachetui {late} --help')"), False)
    return guarded(lambda: _browse(args), args.debug)


def mistyped_command(word: str) -> str | None:
    """The command `word` is a typo of, when it is no path that exists: the browser's first argument is a SOURCE,
    so `cachetui qeury` would otherwise say "no such file" of what was meant as `query`."""
    if word.startswith("-") or any(c in word for c in "/:=") or os.path.lexists(word):
        return None  # an option, a location, NAME=SOURCE, or a path that exists (it opens, whatever its name)
    from difflib import get_close_matches  # only here: a command named right never pays for it

    near = get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.6)  # as settings suggest a near name
    return near[0] if near else None


def command_after_options(sources: Sequence[str]) -> str | None:
    """A command the browser's parser read as a SOURCE (`cachetui --debug coverage ...`: an option before it), when
    no path of that name exists: the browser would open on it, where the user meant to run the command. Words that
    are an option's value (`--spack-mirror check`) are not SOURCEs, so they never count."""
    return next((word for word in sources if word in COMMANDS and not os.path.lexists(word)), None)


def _browse(args: argparse.Namespace) -> int:
    from cachetui.app.paused_start import run_collector_paused  # imports no Textual: browser_app does, paused

    run_collector_paused(lambda pause: browser_app(args, pause))
    return EXIT_OK


def browser_app(args: argparse.Namespace, gc_pause: CyclicGcPause | None = None) -> CacheTuiApp:
    """The browser for a command line: its sources, else config.toml's, else the bundled sample. `gc_pause`: the
    collector's pause the app ends once its first frame is out."""
    from cachetui.app.app import CacheTuiApp  # Textual loads only when the browser opens
    from cachetui.app.user_settings import load_user_settings
    from cachetui.present.config.settings_declared import SOURCES

    settings = load_user_settings()  # the browser's alone: no other command reads it
    planning = plan_of(args)  # before the sources are chosen: with no SOURCE, the environment's mirrors
    sources = settings.settings[SOURCES]
    from_settings = not names_a_source(args) and bool(sources)
    if from_settings:
        args.inputs = list(sources)
    try:
        inputs = check_inputs(args)  # before the window opens: a typo is a usage error, not a blank app
    except UsageError as exc:
        if from_settings:
            raise UsageError(f"{exc} (in the sources of {settings.path})") from None
        raise
    return CacheTuiApp(inputs, load_options(args), settings=settings, wanted=wanted_of(args), planned=planning,
                       gc_pause=gc_pause)


def plan_of(args: argparse.Namespace) -> PlanAsked | None:
    """What `--plan ENV [--arch …]` asks, read before the window opens as `cachetui plan` reads it (unreadable or
    malformed: one line, exit 2); with no SOURCE named, the environment's mirrors become the sources."""
    if args.plan is None:
        if args.arch is not None:
            fail_usage("--arch goes with --plan ENV")
        return None
    if args.want:
        fail_usage("--plan and --want open different views: name one")
    from cachetui.cli.plan_environment import arch_of, environment_mirrors, environment_of
    from cachetui.present.browse.plan_browsing import PlanAsked

    arch = arch_of(args.arch)
    environment = environment_of(args, args.plan, arch)
    return PlanAsked(environment, arch, args.plan, environment_mirrors(args, environment))


def wanted_of(args: argparse.Namespace) -> WantedDag | None:
    """What `--want` names, read before the window opens: unreadable is one line, exit 2, as `coverage` says it."""
    if not args.want:
        return None
    # Imported here: the readers of wanted files (and YAML, msgspec) are for `--want` alone, not every command.
    from cachetui.core.load import STDIN, UnreadableWanted, read_wanted
    from cachetui.core.model.wanted import MixedHashes, merged

    if STDIN in args.want:
        fail_usage(f"--want {STDIN}: the browser needs the terminal's standard input; "
                   f"pipe into `cachetui coverage {STDIN} SOURCE...` instead")
    try:
        return merged([read_wanted(w, load_options(args).max_file_bytes) for w in args.want])
    except (UnreadableWanted, MixedHashes) as exc:
        fail_usage(str(exc))
