"""Options shared by every command that loads a corpus."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, NoReturn, TextIO

from cachetui.core.load import (
    LoadOptions,
    public_sources,
    redact,
    require_inputs,
    sample_path,
    spack_mirror_inputs,
)
from cachetui.core.model.problems import PathNotFound, UnusableInput
from cachetui.core.spack.tags import PUBLIC_HOST
from cachetui.core.spack.words import counted, echo_at
from cachetui.present.inert import inert

if TYPE_CHECKING:  # the loader (numpy, the readers) is imported by the commands that load, not by the browser's start
    from cachetui.core.model.corpus import Corpus
    from cachetui.core.spack.specquery import SpecQuery

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports of a command killed by SIGPIPE


# What a command opens when its command line names no source: the headless commands answer about the user's own
# mirrors or say to name one, never silently about the bundled sample; the browser and `serve` open the sample.
SPACK_CONFIGURED, SAMPLE = "spack-configured", "sample"
_DEFAULT_HELP = {
    SPACK_CONFIGURED: "Default: the binary mirrors of your Spack configuration, as --spack-mirrors (said on stderr); "
                      "with none, name a SOURCE",
    SAMPLE: "Default: the bundled sample",
}


def add_inputs(parser: argparse.ArgumentParser, *, unnamed: str = SPACK_CONFIGURED, default_help: str = "") -> None:
    """The SOURCE arguments and options; `unnamed` is what the command opens when none is named."""
    parser.add_argument(
        "inputs", nargs="*", metavar="SOURCE",
        help="site documents (files, directories), a mirror (directory or file:// http(s):// s3:// URL), "
             "an OCI build cache (oci://HOST/NAME, oci+http://HOST/NAME), an index, or an index of indexes "
             "(cache_spack_io_index.json, or a file of any name holding one); NAME=SOURCE names a mirror's tag. "
             + (default_help or _DEFAULT_HELP[unnamed]),
    )
    parser.add_argument(
        "--public", nargs="?", const="", default=None, metavar="TAG",
        help=f"the live public build cache ({PUBLIC_HOST}), all tags or one",
    )
    parser.add_argument(
        "--spack-mirrors", action="store_true",
        help="every binary mirror of your Spack configuration, each tagged by its name",
    )
    parser.add_argument(
        "--spack-mirror", action="append", default=[], metavar="NAME",
        help="one binary mirror of your Spack configuration (repeatable)",
    )
    parser.set_defaults(unnamed=unnamed)
    add_load_options(parser)


def inputs_of(args: argparse.Namespace) -> list[str]:
    """What to load: the sources named and the public cache if asked for; else what the command opens unnamed."""
    inputs = list(args.inputs)
    if args.public is not None:
        inputs += public_sources(args.public or None)
    inputs += spack_mirror_inputs(args.spack_mirrors, args.spack_mirror)
    if inputs:
        return inputs
    return [str(sample_path())] if args.unnamed == SAMPLE else _spack_configured()


SHOWN_MIRRORS = 10  # the names said on the line that says what was opened unnamed; the rest are counted


def _spack_configured() -> list[str]:
    """What `--spack-mirrors` opens, said on stderr (the answer is about those mirrors, not one the user named);
    with no binary mirror configured, a usage error that says to name a source."""
    from cachetui.core.load import binary_mirror_names  # reads Spack's configuration: only when asked

    names = binary_mirror_names()
    if not names:
        fail_usage(f"no SOURCE named, and your Spack configuration has no binary mirror to read instead: name a "
                   f"source (a directory, a mirror's URL, --public), such as the bundled sample: {sample_path()}")
    more = f" and {len(names) - SHOWN_MIRRORS} more" if len(names) > SHOWN_MIRRORS else ""
    print(inert(f"cachetui: no SOURCE named: reading what --spack-mirrors reads, your Spack configuration's "
                f"{counted(len(names), 'binary mirror')}: {', '.join(names[:SHOWN_MIRRORS])}{more}"), file=sys.stderr)
    return spack_mirror_inputs(True, [])


def names_a_source(args: argparse.Namespace) -> bool:
    """Whether the command line names what to load (else the browser opens config.toml's sources)."""
    return bool(args.inputs or args.public is not None or args.spack_mirrors or args.spack_mirror)


def add_load_options(parser: argparse.ArgumentParser) -> None:
    """The options `load_options` reads, with `LoadOptions`' defaults."""
    parser.add_argument(
        "--max-file-size",
        type=_megabytes,
        default=_DEFAULTS.max_file_bytes,
        metavar="MB",
        help=f"skip files larger than this (default {_DEFAULTS.max_file_bytes // 2**20} MB)",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the warm-start cache ($XDG_CACHE_HOME/cachetui)"
    )
    parser.add_argument(
        "--workers", type=int, default=None, metavar="N",
        help="parse site documents in N processes (default: one per core, up to 8, from 10,000 files)",
    )
    parser.add_argument(
        "--timeout", type=_positive, default=_DEFAULTS.timeout, metavar="S",
        help=f"network connect and read timeout (default {_DEFAULTS.timeout:g} s)",
    )
    parser.add_argument("--debug", action="store_true", help="show a traceback for internal errors")


_DEFAULTS = LoadOptions()


def load_options(args: argparse.Namespace) -> LoadOptions:
    """What the command line chose about the load; the warm cache unless `--no-cache`."""
    return LoadOptions(max_file_bytes=args.max_file_size, use_cache=not args.no_cache, workers=args.workers,
                       timeout=args.timeout)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _megabytes(text: str) -> int:
    return int(_positive(text) * 2**20)


def load_or_exit(args: argparse.Namespace) -> Corpus:
    """The corpus to answer from. A missing path, or no source loaded at all, ends the command (exit 2),
    never an answer about nothing; an offline copy in it, and a warm cache file found damaged and rebuilt, are
    said on stderr, whatever the output format."""
    from cachetui.core.load import CACHE_REBUILT
    from cachetui.present.format import problem_line

    corpus = load_inputs(args)
    if corpus.nothing_loaded:
        report_load_errors(corpus)
        fail_usage(NOTHING_LOADED)
    rebuilt = [p for p in corpus.report.warnings if p.reason == CACHE_REBUILT]  # said once, as check says it
    for problem in [*corpus.report.stale, *rebuilt]:
        print(f"cachetui: {problem_line(problem)}", file=sys.stderr)
    return corpus


NOTHING_LOADED = "no source loaded: nothing to answer from (the errors above say why)"


def load_inputs(args: argparse.Namespace) -> Corpus:
    """Load the corpus, with a progress line on a terminal; a missing path is a usage error (exit 2)."""
    from cachetui.cli.progress_line import ProgressLine
    from cachetui.core.load import load_corpus

    with _inputs_checked(), ProgressLine(sys.stderr) as line:
        return load_corpus(inputs_of(args), load_options(args), progress=line.update)


def check_inputs(args: argparse.Namespace) -> list[str]:
    """The inputs, once recognised: a local path that does not exist is a usage error (exit 2)."""
    inputs = inputs_of(args)
    with _inputs_checked():
        require_inputs(inputs)
    return inputs


@contextmanager
def _inputs_checked() -> Iterator[None]:
    """An input that does not exist or cannot be used is a usage error (exit 2)."""
    try:
        yield
    except PathNotFound as exc:
        fail_usage(f"no such file or directory: {exc}")
    except UnusableInput as exc:
        fail_usage(str(exc))


def report_load_errors(corpus: Corpus) -> int:
    """What could not be loaded is said on stderr, so an answer is never silently partial (exit 1)."""
    for problem in corpus.report.errors:
        print(f"cachetui: {inert(problem.described())}", file=sys.stderr)
    return EXIT_PROBLEMS if corpus.report.errors else EXIT_OK


def report_unknown(exc: Exception) -> int:
    """A typo is never a silently empty answer: say what is unknown and what is near, exit 1."""
    print(f"cachetui: {inert(str(exc))}", file=sys.stderr)
    return EXIT_PROBLEMS


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors echo what was typed inert: an unknown option may hold an escape sequence."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {inert(message)}\n")


class UsageError(Exception):
    """Bad usage (such as a path that does not exist): a message on stderr, exit 2."""


def fail_usage(message: str) -> NoReturn:
    raise UsageError(message)


def answered(answer: Callable[[], int], no_answer: Callable[[], None]) -> int:
    """A command's answer; on a usage error, what its machine-read format prints when there is none (`[]`, a CSV
    header) before the error is said (exit 2), so a pipe into jq or a CSV reader never breaks."""
    try:
        return answer()
    except UsageError:
        no_answer()
        raise


def guarded(run: Callable[[], int], debug: bool) -> int:
    """Run a command; an unexpected exception is one line on stderr, never a traceback (unless --debug)."""
    try:
        code = run()
        sys.stdout.flush()  # here, where a closed pipe is caught, not at exit where Python reports it
        return code
    except UsageError as exc:  # lines kept (a caret under a query), each made inert
        print("cachetui: " + "\n".join(inert(redact(line)) for line in str(exc).split("\n")), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `cachetui query ... | head -1`: the reader has gone, so the answer was not read whole; as a standard tool
        # killed by SIGPIPE, never 0 (nor the answer's own code). Stdout is pointed at nothing, so that the flush
        # at exit does not fail again.
        with suppress(OSError, ValueError):  # a stdout with no descriptor (captured) has no flush at exit to fail
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        if debug:
            raise
        print(f"cachetui: internal error: {inert(type(exc).__name__)}: {inert(redact(str(exc)))}", file=sys.stderr)
        print("cachetui: run again with --debug for a traceback", file=sys.stderr)
        return EXIT_INTERNAL


def spec_option(text: str | None) -> SpecQuery | None:
    """`--spec`, parsed before anything loads: a malformed query is a usage error whatever the corpus."""
    if text is None:
        return None
    from cachetui.core.spack.specquery import NotRecorded, SpecSyntaxError, parse_spec_query  # only with --spec

    try:
        return parse_spec_query(text)
    except NotRecorded as exc:  # valid Spack, but nothing a cache could answer: a usage error, not a malformed one
        fail_usage(exc.message)
    except SpecSyntaxError as exc:
        shown, column = echo_at(exc.text, exc.position)
        fail_usage(f"malformed spec query: {exc.message}\n  {shown}\n  {' ' * column}^")


def add_status_option(parser: argparse.ArgumentParser, statuses: Sequence[str], rows: str) -> None:
    """`--status WORDS`: only the rows of those statuses, in every format (`status_option` reads it)."""
    parser.add_argument("--status", metavar="WORDS",
                        help=f"only the {rows} of these statuses, comma-separated: {', '.join(statuses)}")


def status_option(text: str | None, statuses: Sequence[str]) -> frozenset[str] | None:
    """The statuses `--status` names (None: all), read before anything loads. A word that is no status is a usage
    error naming the nearest ones (as an unknown value does), as is a `--status` that names none."""
    if text is None:
        return None
    words = [word.strip() for word in text.split(",") if word.strip()]
    if not words:
        fail_usage(f"--status names no status: name one or more of {', '.join(statuses)}, comma-separated")
    for word in words:
        if word not in statuses:
            from cachetui.core.query.resolve import UnknownValue  # only for a typo: a word spelt right never pays

            fail_usage(f"--status: {UnknownValue('status', word, statuses, shown=len(statuses))}")
    return frozenset(words)


def report_none_shown(statuses: Collection[str] | None, shown: int, total: int, what: str, whats: str) -> None:
    """A `--status` that leaves no row is said on stderr, with how many rows there were: never a silent blank."""
    if statuses is not None and not shown and total:
        print(f"cachetui: --status {','.join(sorted(statuses))}: none of {counted(total, what, whats)}",
              file=sys.stderr)


def terminal_width(stream: TextIO) -> int | None:
    """The columns of the terminal `stream` is (`$COLUMNS` first, as `shutil` reads it), which a table then fits;
    None when it is no terminal (a pipe, a file): then nothing is cut."""
    try:
        if not stream.isatty():
            return None
        columns = os.environ.get("COLUMNS", "")
        return int(columns) if columns.isdigit() and int(columns) > 0 else os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):  # closed, or a terminal that will not say (io.UnsupportedOperation is both)
        return shutil.get_terminal_size().columns
