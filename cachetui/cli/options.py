"""Options shared by every command that loads a corpus."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from cachetui.core.cache import CorpusCache
from cachetui.core.corpus import load_corpus
from cachetui.core.loader import DEFAULT_MAX_BYTES, PathNotFound
from cachetui.core.model import Corpus
from cachetui.present.inert import inert

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def add_load_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-file-size",
        type=_megabytes,
        default=DEFAULT_MAX_BYTES,
        metavar="MB",
        help=f"skip files larger than this (default {DEFAULT_MAX_BYTES // 2**20} MB)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the warm-start cache ($XDG_CACHE_HOME/cachetui)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, metavar="N",
        help="parse in N processes (default: 1; more can pay on machines with more cores)",
    )
    parser.add_argument("--debug", action="store_true", help="show a traceback for internal errors")


def _megabytes(text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return int(value * 2**20)


def load_or_exit(paths: Sequence[str], args: argparse.Namespace) -> Corpus:
    """Load the corpus; a missing path is a usage error (exit 2), with a clear message."""
    try:
        cache = None if args.no_cache else CorpusCache()
        return load_corpus(paths, max_bytes=args.max_file_size, cache=cache, workers=args.workers)
    except PathNotFound as exc:
        fail_usage(f"no such file or directory: {exc}")


def report_unknown(exc: Exception) -> int:
    """A typo is never a silently empty answer: say what is unknown and what is near, exit 1."""
    print(f"cachetui: {inert(str(exc))}", file=sys.stderr)
    return EXIT_PROBLEMS


class UsageError(Exception):
    """Bad usage (such as a path that does not exist): one line on stderr, exit 2."""


def fail_usage(message: str) -> NoReturn:
    raise UsageError(message)


def guarded(run: Callable[[], int], debug: bool) -> int:
    """Run a command; an unexpected exception is one line on stderr, never a traceback (unless --debug)."""
    try:
        return run()
    except UsageError as exc:
        print(f"cachetui: {inert(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK  # `cachetui query ... | head` is fine
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if debug:
            raise
        print(f"cachetui: internal error: {inert(type(exc).__name__)}: {inert(str(exc))}", file=sys.stderr)
        print("cachetui: run again with --debug for a traceback", file=sys.stderr)
        return EXIT_INTERNAL
