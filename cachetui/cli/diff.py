"""`cachetui diff OLD NEW [SOURCE...]`: what a cache gained and lost between two snapshots.

With SOURCEs (or --public, --spack-mirror(s)), OLD and NEW are tags of what they load. Without, OLD
and NEW are sources themselves when either is spelled as one (two directories, mirrors, indexes),
else tags of what `--spack-mirrors` opens (each mirror is tagged by its name). Exit 0 when both hold
the same binaries, 1 when they differ (as `diff` does), 2 for usage or when something could not be
loaded (the answer could be incomplete).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from cachetui.cli.options import add_inputs, fail_usage, load_or_exit, names_a_source, report_load_errors
from cachetui.core.load import recognisable, redact
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import REGISTRY
from cachetui.core.query.diff import Configuration, Diff, Side, configuration_parts, corpus_side, diff, tag_side
from cachetui.core.query.filters import UnknownValue, resolve_package
from cachetui.core.spack.words import counted
from cachetui.present.inert import inert
from cachetui.present.output import table, writers

EXIT_SAME, EXIT_DIFFERENT = 0, 1
FORMATS = ("table", "json", "csv")
SUMMARY = ("package", "added", "removed", "kept", "configurations gained", "configurations lost")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("diff", help="binaries added, removed and kept between two tags or sources")
    parser.add_argument("old", metavar="OLD", help="a tag of the SOURCEs, or a source when no SOURCE is given")
    parser.add_argument("new", metavar="NEW", help="a tag of the SOURCEs, or a source when no SOURCE is given")
    parser.add_argument("--package", metavar="NAME", help="only this package")
    parser.add_argument("--format", choices=FORMATS, default="table")
    add_inputs(parser)
    parser.set_defaults(run=run)


def _sides(args: argparse.Namespace) -> tuple[Side, Side]:
    if not names_a_source(args) and (_names_a_source(args.old) or _names_a_source(args.new)):
        return _source_side(args, args.old), _source_side(args, args.new)  # a missing one: "no such file…"
    corpus = load_or_exit(args)
    _report_load_errors(corpus)
    return _tag(corpus, args.old), _tag(corpus, args.new)


def _names_a_source(text: str) -> bool:
    """A location rather than a tag: it exists, or is spelled as a path or URL (tags have no '/')."""
    return recognisable(text) or "/" in text or text.startswith((".", "~"))


def _source_side(args: argparse.Namespace, source: str) -> Side:
    corpus = load_or_exit(argparse.Namespace(**{**vars(args), "inputs": [source], "public": None,
                                                "spack_mirrors": False, "spack_mirror": []}))
    _report_load_errors(corpus)
    return corpus_side(redact(source), corpus)  # the label is printed: never a password typed in a URL


def _tag(corpus: Corpus, tag: str) -> Side:
    if tag not in corpus.vocab["tag"].ids:
        raise UnknownValue("tag", tag, corpus.tags)
    return tag_side(corpus, tag)


def _report_load_errors(corpus: Corpus) -> None:
    """An unreadable file could look like removed binaries: never compare on a partial load."""
    if report_load_errors(corpus):
        fail_usage(f"{counted(len(corpus.report.errors), 'input')} could not be loaded; "
                   "not comparing an incomplete snapshot")


def run(args: argparse.Namespace) -> int:
    try:
        old, new = _sides(args)
        package = args.package
        if package is not None:
            resolve_package(old.corpus, package, new.corpus)
    except UnknownValue as exc:
        fail_usage(str(exc))
    found = diff(old, new, package)
    {"json": write_json, "csv": write_csv}.get(args.format, write_table)(sys.stdout, found)
    if package is not None and not found.packages:  # loaded, but in neither side: the same, and said so
        print(f"cachetui: {inert(package)} has no binaries in {inert(old.label)} or {inert(new.label)}: "
              "nothing to compare", file=sys.stderr)
    return EXIT_DIFFERENT if found.changed else EXIT_SAME


def _summary_rows(found: Diff) -> list[list[str]]:
    rows = [[p.package, str(len(p.added)), str(len(p.removed)), str(p.kept), str(len(p.gained)), str(len(p.lost))]
            for p in found.packages]
    t = found.totals()
    return rows + [["total", *(str(t[k]) for k in ("added", "removed", "kept", "gained", "lost"))]]


def write_table(out: TextIO, found: Diff) -> None:
    """Changed packages and the total, then each configuration gained (+) or lost (-)."""
    summary = _summary_rows(found)
    rows = [list(SUMMARY), *(row for row, p in zip(summary, found.packages) if p.differs), summary[-1]]
    out.write(f"{inert(_said(found.old, found.old_offline))} -> {inert(_said(found.new, found.new_offline))}\n")
    table.write_table(out, rows, right=range(1, len(SUMMARY)))  # the package, then counts
    lines = [("+", c) for p in found.packages for c in p.gained] + [("-", c) for p in found.packages for c in p.lost]
    if lines:
        out.write(f"\nconfigurations ({_spelled(('package', *configuration_parts()), heading=True)}):\n")
    for sign, config in sorted(lines, key=lambda line: (line[1], line[0])):
        out.write(inert(f"{sign} {_spelled(config)}") + "\n")


def _spelled(config: Configuration, heading: bool = False) -> str:
    """A configuration in spec syntax (`hdf5@1.14.3 %gcc@13.2.0 arch=linux-ubuntu22.04-zen3`), each part as the
    differs cell spells its field (else `name=value`); a heading names each part: `key=value` by its key alone."""
    said = config[0]
    for part, value in zip(configuration_parts(), config[1:]):
        plain = f"{part}={{}}"
        field = REGISTRY.named.get(part)  # none for the architecture's part
        spelling = REGISTRY.spellings().get(field.key, plain) if field is not None else plain
        text = part if heading and spelling == plain else spelling.format(value)
        said += text if text.startswith("@") else f" {text}"  # a version stands against its package, as Spack writes
    return said


def _said(label: str, offline: dict[str, list[str]]) -> str:
    """A side as the header names it: an offline copy compared says so, with its date."""
    copies = Diff.copies(offline)
    return f"{label} ({'; '.join(copies)})" if copies else label


def write_csv(out: TextIO, found: Diff) -> None:
    """Two more columns, `old_offline` and `new_offline`, when a side was read from an offline copy: which copy,
    per package (the total: every one)."""
    header, rows = [c.replace(" ", "_") for c in SUMMARY], _summary_rows(found)
    if found.old_offline or found.new_offline:
        header += ["old_offline", "new_offline"]
        packages = [p.package for p in found.packages] + [None]  # None: the total row
        rows = [[*row, *("; ".join(Diff.copies(side, package)) for side in (found.old_offline, found.new_offline))]
                for row, package in zip(rows, packages)]
    writers.write_csv(out, [header, *rows])


def write_json(out: TextIO, found: Diff) -> None:
    def configs(items: list[Configuration]) -> list[dict[str, str]]:
        return [dict(zip(configuration_parts(), config[1:])) for config in items]

    data = {
        "old": found.old, "new": found.new, "changed": found.changed, "total": found.totals(),
        "offline": {"old": Diff.copies(found.old_offline), "new": Diff.copies(found.new_offline)},
        "packages": [{"package": p.package, "added": p.added, "removed": p.removed, "kept": p.kept,
                      "gained": configs(p.gained), "lost": configs(p.lost)} for p in found.packages],
    }
    writers.write_json(out, data)

