"""`cachetui verify [SOURCE...] [--spec QUERY] [--closure] [--status WORDS] [--format table|json]`: who signed each
binary."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cachetui.cli.options import (
    EXIT_PROBLEMS,
    add_inputs,
    add_status_option,
    answered,
    load_or_exit,
    report_load_errors,
    report_none_shown,
    report_unknown,
    spec_option,
    status_option,
    terminal_width,
)
from cachetui.core.load import BinaryProvenance, ClosureDownload, Provenance, redact
from cachetui.core.load.provenance import FETCH_AT_ONCE, OUTCOMES, VERIFIED, closure_download
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Filters, Query, select
from cachetui.core.query.resolve import QueryProblem
from cachetui.present.inert import inert
from cachetui.present.output.provenance import FORMATS, write_provenance

DESCRIPTION = f"""\
Read each binary's signed record from the mirror it was loaded from and verify it against the keys
that mirror publishes (no gpg needed). One row per binary and source that holds it: signature
({", ".join(OUTCOMES)}), signer (the primary key's fingerprint when verified, the key ID the
signature names when unknown-key), expires (the signing key's expiry, ISO 8601) and size (the
tarball's bytes). "verified" means signed by a key the same cache publishes: whoever controls the
mirror controls that key too. Records are fetched {FETCH_AT_ONCE} at a time.

--spec resolves as `query --spec` does (a value that names nothing names the nearest real ones,
exit 1); --closure adds every held binary that the matched ones' link/run dependencies need, and the
table ends with what `spack install` of the matched hashes downloads (count, bytes, sizes unknown).
--status keeps only the rows of the signature values it names, comma-separated (e.g. --status
bad,unknown-key), in every format; the exit code still speaks of every binary. The table lists the
binaries not verified first; on a terminal it fits its width (hashes shortened to 7 characters, long
cells cut with …); piped or redirected, nothing is cut.
--format json always prints one JSON list ([] when nothing matched). A published key that cannot
be used (it does not parse, has no valid binding signature, or links out of the mirror) is one
warning line on stderr and costs only the records it signed. Exit 0: every listed binary is
verified and every SOURCE loaded; 1: otherwise (nothing matched too); 2: usage."""


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("verify", help="who signed each binary, whether it verifies, and its size",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", metavar="QUERY", help="only the binaries a Spack spec query matches, e.g. 'zlib@1.3'")
    parser.add_argument("--closure", action="store_true",
                        help="also every held binary the matched ones' link/run dependencies need")
    add_status_option(parser, OUTCOMES, "binaries")
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_inputs(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return answered(lambda: _answer(args), lambda: _no_answer(args.format))


def _no_answer(format: str) -> None:
    """No binary at all, as the answer's own writer says it (`[]` in JSON, nothing in a table)."""
    write_provenance(sys.stdout, [], format)


def _answer(args: argparse.Namespace) -> int:
    spec = spec_option(args.spec)  # syntax first: a malformed query is a usage error whatever the corpus
    statuses = status_option(args.status, OUTCOMES)
    corpus = load_or_exit(args)
    try:
        matched = [int(i) for i in select(corpus, Query(None, Filters({}), spec, None)).indices()]
    except QueryProblem as exc:
        _no_answer(args.format)
        report_load_errors(corpus)
        return report_unknown(exc)
    provenance = Provenance(corpus, timeout=args.timeout)
    if args.closure:
        binaries, download = _with_closure(corpus, provenance, matched)
    else:
        binaries, download = provenance.binaries(matched), None
    shown = [b for b in binaries if statuses is None or b.signature.outcome in statuses]
    write_provenance(sys.stdout, shown, args.format, width=terminal_width(sys.stdout), download=download,
                     asked=[corpus.hashes[spec] for spec in matched] if download else ())
    report_none_shown(statuses, len(shown), len(binaries), "binary", "binaries")
    for root, problem in provenance.key_problems():  # once per key, however many records it might have signed
        print(f"cachetui: warning: {inert(redact(root))}: published keys: {inert(problem)}", file=sys.stderr)
    loaded = report_load_errors(corpus)
    if not binaries:
        print("cachetui: no binary matched", file=sys.stderr)
        return EXIT_PROBLEMS
    if any(b.signature.outcome != VERIFIED for b in binaries):
        return EXIT_PROBLEMS
    return loaded


def _with_closure(corpus: Corpus, provenance: Provenance,
                  matched: list[int]) -> tuple[list[BinaryProvenance], ClosureDownload | None]:
    """The matched binaries, then every source's copy of each held binary their link/run closures need; and what
    `spack install` of the matched hashes downloads, totalled by the rule the browser's details use (None when
    nothing matched)."""
    members, not_held, partial = provenance.closures_members(matched)
    asked = {corpus.hashes[spec] for spec in matched}
    listed = dict.fromkeys(matched)
    for member in members:
        if corpus.hashes[member] not in asked:
            listed.update(dict.fromkeys(corpus.occurrences(corpus.hashes[member])))
    binaries = provenance.binaries(list(listed))
    if not matched:
        return binaries, None
    read = {binary.spec: binary for binary in binaries}  # each member is listed: read once, not again
    return binaries, closure_download([read[member] for member in members], not_held, partial)
