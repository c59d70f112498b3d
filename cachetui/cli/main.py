"""`cachetui`: open the browser, or run one of the headless commands (COMMAND_MODULES)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cachetui import __version__
from cachetui.cli import check, config, coverage, diff, query, serve, verify
from cachetui.cli.options import (
    EXIT_OK,
    UsageError,
    add_inputs,
    check_inputs,
    fail_usage,
    guarded,
    load_options,
    names_a_source,
)
from cachetui.core.load import STDIN, UnreadableWanted, read_wanted
from cachetui.core.model.wanted import MixedHashes, WantedDag, merged

if TYPE_CHECKING:
    from cachetui.app.app import CacheTuiApp

# The headless commands, in the order `cachetui --help` names them. Each module's `add_parser` adds its
# subcommand (name, help, options) and the function that runs it: a new command is a module here.
COMMAND_MODULES = (check, query, diff, coverage, verify, serve, config)


def _command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cachetui")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.add_parser(subparsers)
    return parser


def commands() -> dict[str, str]:
    """Each headless command's name and its one-line help, as its module declares them."""
    found = next(a for a in _command_parser()._actions if isinstance(a, argparse._SubParsersAction))
    # argparse keeps subcommands only in these private fields (no public accessor exists)
    return {choice.dest: choice.help or "" for choice in found._choices_actions}


def browse_parser() -> argparse.ArgumentParser:
    said = "; ".join(f"'{name}' ({help_text})" for name, help_text in commands().items())
    parser = argparse.ArgumentParser(
        prog="cachetui",
        description="Browse Spack build caches: site documents, mirrors and the public cache. With no SOURCE, "
        "opens the sources of your config.toml, else the bundled sample corpus. Commands (see 'cachetui "
        f"COMMAND --help'): {said}.",
    )
    parser.add_argument("--version", action="version", version=f"cachetui {__version__}")
    parser.add_argument(
        "--want", action="append", default=[], metavar="WANTED",
        help="open on the coverage of what you want installed: a spack.lock, an environment directory, specfiles "
             "or an install database, as `cachetui coverage` reads them (repeatable: one DAG, a node shared once)",
    )
    add_inputs(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in commands():
        args = _command_parser().parse_args(argv)
        return guarded(lambda: args.run(args), args.debug)
    args = browse_parser().parse_args(argv)
    return guarded(lambda: _browse(args), args.debug)


def _browse(args: argparse.Namespace) -> int:
    browser_app(args).run()
    return EXIT_OK


def browser_app(args: argparse.Namespace) -> CacheTuiApp:
    """The browser for a command line: its sources, else config.toml's, else the bundled sample."""
    from cachetui.app.app import CacheTuiApp  # Textual loads only when the browser opens
    from cachetui.app.user_settings import load_user_settings

    settings = load_user_settings()  # the browser's alone: no other command reads it
    from_settings = not names_a_source(args) and bool(settings.settings.sources)
    if from_settings:
        args.inputs = list(settings.settings.sources)
    try:
        inputs = check_inputs(args)  # before the window opens: a typo is a usage error, not a blank app
    except UsageError as exc:
        if from_settings:
            raise UsageError(f"{exc} (in the sources of {settings.path})") from None
        raise
    return CacheTuiApp(inputs, load_options(args), settings=settings, wanted=wanted_of(args))


def wanted_of(args: argparse.Namespace) -> WantedDag | None:
    """What `--want` names, read before the window opens: unreadable is one line, exit 2, as `coverage` says it."""
    if STDIN in args.want:
        fail_usage(f"--want {STDIN}: the browser needs the terminal's standard input; "
                   f"pipe into `cachetui coverage {STDIN} SOURCE...` instead")
    try:
        return merged([read_wanted(w, load_options(args).max_file_bytes) for w in args.want]) if args.want else None
    except (UnreadableWanted, MixedHashes) as exc:
        fail_usage(str(exc))
