"""`cachetui`: open the browser, or run a headless command (`check`, `query`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cachetui import __version__
from cachetui.cli import check, diff, query, serve
from cachetui.cli.options import EXIT_OK, add_inputs, check_inputs, guarded

COMMANDS = ("check", "query", "diff", "serve")


def _browse_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cachetui",
        description="Browse Spack build caches: site documents, mirrors and the public cache. Commands: "
        "'check SOURCE...', 'query SOURCE...', 'diff OLD NEW [SOURCE...]' (see 'cachetui diff --help') and "
        "'serve SOURCE...' (the browser as a web page). With no SOURCE, opens the "
        "bundled sample corpus.",
    )
    parser.add_argument("--version", action="version", version=f"cachetui {__version__}")
    add_inputs(parser)
    return parser


def _command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cachetui")
    subparsers = parser.add_subparsers(dest="command", required=True)
    check.add_parser(subparsers)
    query.add_parser(subparsers)
    diff.add_parser(subparsers)
    serve.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        args = _command_parser().parse_args(argv)
        return guarded(lambda: args.run(args), args.debug)
    args = _browse_parser().parse_args(argv)
    return guarded(lambda: _browse(args), args.debug)


def _browse(args: argparse.Namespace) -> int:
    from cachetui.app.app import CacheTuiApp  # Textual loads only when the browser opens

    inputs = check_inputs(args)  # before the window opens: a typo is a usage error, not a blank app
    CacheTuiApp(inputs, max_bytes=args.max_file_size, use_cache=not args.no_cache, workers=args.workers,
                timeout=args.timeout).run()
    return EXIT_OK
