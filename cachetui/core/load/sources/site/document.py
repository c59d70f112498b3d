"""Interpret a parsed front matter as one listing document, whatever the site generation.

Generations seen on the public build-cache site:
- current: `categories: [package, <tag>]`, JSON `meta` and `spec_details`;
- older: the same with `tarball` in each entry, or an `arches` (or `architecture`/`arch`) triple
  instead of platform/os/target, bare variant names, numeric sizes, `arches` in `meta`,
  plus `spec_files`/`spec_names` lists;
- oldest: `category: package`, no `spec_details`; the binaries are described by
  Spack spec JSON files (`spec-N.json`) named in `spec_files`, beside the document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import chain
from pathlib import PurePath
from typing import Any

from cachetui.core.load.sources.site.listing import ENTRY_FIELDS, Meta, meta_of, meta_problems
from cachetui.core.load.sources.site.specjson import SpecFileReader, spec_from_spec_json
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.records import UNKNOWN_SIZE, ParsedDocument, RawSpec, SpecColumns
from cachetui.core.spack.compilers import compiler_text, normalise_compiler
from cachetui.core.spack.hashes import all_valid_hashes, is_valid_hash

MAX_SIZE = 2**62  # sizes live in an int64 column; anything larger is not a real binary


class UnsupportedDocument(ValueError):
    """A front matter that no known generation of the site wrote."""


def interpret(data: dict[str, Any], path: str, key_lines: dict[str, int], reader: SpecFileReader) -> ParsedDocument:
    """Build a ParsedDocument from front-matter data; raise UnsupportedDocument if unusable."""
    title = data.get("title")
    doc = ParsedDocument(
        path=path,
        package=package_of(title, path),
        tag=tag_of(data, path),
        title=title if isinstance(title, str) else "",
        generation="current",
    )
    warn = _Warner(doc, key_lines)
    details = data.get("spec_details")
    if details is not None:
        if not isinstance(details, list):
            raise UnsupportedDocument(f"'spec_details' is a {type(details).__name__}, not a list")
        doc.generation = "current" if "spec_names" not in data else "spec_names"
        doc.columns = _columns_at_once(details) or _columns_entry_by_entry(details, warn)
    elif data.get("spec_files"):
        doc.generation = "spec_files"
        doc.columns = SpecColumns.from_rows(_specs_from_files(data["spec_files"], reader, warn))
    else:
        raise UnsupportedDocument("no 'spec_details' and no 'spec_files': not a build-cache listing")
    doc.columns = _drop_duplicate_hashes(doc.columns, warn)
    meta = meta_of(data.get("meta"))
    if meta is not None:
        check_meta(meta, doc.columns, doc, key_lines)
    warn.flush()
    return doc


def check_meta(meta: Meta, columns: SpecColumns, doc: ParsedDocument, key_lines: dict[str, int]) -> None:
    """Add to `doc.problems` where its `meta` summary disagrees with its spec list."""
    doc.problems.extend(Problem(doc.path, reason, Severity.WARNING, key_lines.get("meta"))
                        for reason in meta_problems(meta, columns))


def package_of(title: Any, path: str) -> str:
    if isinstance(title, str) and title.strip():
        return title.strip()
    parts = PurePath(path).parts
    return parts[-2] if len(parts) >= 2 else PurePath(path).stem


def tag_of(data: dict[str, Any], path: str) -> str:
    for key in ("categories", "category"):
        value = data.get(key)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str) and item.strip() and item.strip() != "package":
                return item.strip()
    parts = PurePath(path).parts
    if "_cache" in parts:
        rest = parts[parts.index("_cache") + 1 :]
        if len(rest) >= 3:  # _cache/<tag>/<package>/specs.md
            return rest[0]
    return "unknown"


class _Warner:
    """Collects per-entry complaints and reports each reason once per document, with a count."""

    def __init__(self, doc: ParsedDocument, key_lines: dict[str, int]) -> None:
        self.doc = doc
        self.key_lines = key_lines
        self.counts: Counter[tuple[str, str, Severity]] = Counter()

    def entry(self, key: str, reason: str, severity: Severity = Severity.WARNING) -> None:
        """Count a complaint about one entry; ERROR when the entry could not be used at all."""
        self.counts[(key, reason, severity)] += 1

    def now(self, key: str, reason: str, severity: Severity = Severity.WARNING) -> None:
        self.doc.problems.append(Problem(self.doc.path, reason, severity, self.key_lines.get(key)))

    def flush(self) -> None:
        for (key, reason, severity), count in self.counts.items():
            prefix = f"{count} spec entries: " if count > 1 else "1 spec entry: "
            self.now(key, prefix + reason, severity)
        self.counts.clear()


def _only(items: list[Any], kind: type) -> bool:
    return set(map(type, items)) <= {kind}


def _columns_at_once(details: list[Any]) -> SpecColumns | None:
    """The common case checked a column at a time (C-speed set/join/len); None if anything is irregular."""
    if not details or not _only(details, dict):
        return None
    try:
        hashes, versions, compilers, platforms, oss, targets, variants, stacks, sizes = (
            [entry[key] for entry in details] for key in ENTRY_FIELDS
        )
    except KeyError:
        return None
    if not all(_only(col, str) for col in (hashes, compilers, platforms, oss, targets)):
        return None
    if not (_only(versions, list) and all(versions) and _only(variants, list) and _only(stacks, list)):
        return None
    firsts = [v[0] for v in versions]
    if not (_only(firsts, str) and _all_strings(chain.from_iterable(variants))
            and _all_strings(chain.from_iterable(stacks))):
        return None
    numeric = [size for size in sizes if size != "-"]
    if numeric and not (_only(numeric, int) and min(numeric) >= 0 and max(numeric) < MAX_SIZE):
        return None
    sizes = [UNKNOWN_SIZE if size == "-" else size for size in sizes]
    if not all_valid_hashes(hashes):
        return None
    return SpecColumns(
        hashes, firsts, [normalise_compiler(c) for c in compilers], platforms, oss, targets,
        [tuple(v) for v in variants], [tuple(s) for s in stacks], sizes,
    )


def _columns_entry_by_entry(details: list[Any], warn: _Warner) -> SpecColumns:
    specs = []
    for entry in details:
        spec = _spec_from_entry(entry, warn)
        if spec is not None:
            specs.append(spec)
    return SpecColumns.from_rows(specs)


def _all_strings(items: Iterable[Any]) -> bool:
    try:
        "".join(items)  # C speed; raises on the first non-string
    except TypeError:
        return False
    return True


def _spec_from_entry(entry: Any, warn: _Warner) -> RawSpec | None:
    key = "spec_details"
    if not isinstance(entry, dict):
        warn.entry(key, f"is a {type(entry).__name__}, not a mapping; skipped", Severity.ERROR)
        return None
    hash_ = entry.get("hash")
    if not isinstance(hash_, str) or not hash_.strip():
        warn.entry(key, "has no hash (or it is not a string); skipped", Severity.ERROR)
        return None
    if not is_valid_hash(hash_):
        warn.entry(key, "hash is not 32 characters of lowercase base32")
    platform, os_, target = _arch(entry, warn)
    return RawSpec(
        hash=hash_,
        version=_version(entry.get("versions", entry.get("version")), warn),
        compiler=_compiler(entry.get("compiler"), warn),
        platform=platform,
        os=os_,
        target=target,
        variants=_strings(entry.get("variants"), "variants", warn),
        stacks=_strings(entry.get("stacks"), "stacks", warn),
        size=_size(entry.get("size"), warn),
    )


def _version(value: Any, warn: _Warner) -> str:
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[0]
    if isinstance(value, str) and value:
        warn.entry("spec_details", "'versions' is a string, not a list; used as the version")
        return value
    warn.entry("spec_details", "has no usable 'versions'")
    return ""


def _compiler(value: Any, warn: _Warner) -> str:
    text = compiler_text(value)
    if text is None:
        warn.entry("spec_details", "has no usable 'compiler'")
        return ""
    return normalise_compiler(text)


def _arch(entry: dict[str, Any], warn: _Warner) -> tuple[str, str, str]:
    given = [entry.get(k) for k in ("platform", "os", "target")]
    platform, os_, target = (f if isinstance(f, str) else "" for f in given)
    if all(isinstance(f, str) for f in given):
        return platform, os_, target
    # The spec_names-era generator wrote a per-entry `arches` triple; other shapes say `architecture`/`arch`.
    triple = next((entry[k] for k in ("arches", "architecture", "arch") if isinstance(entry.get(k), str)), None)
    if isinstance(triple, str) and triple.count("-") >= 2:
        platform, os_, target = triple.split("-", 2)
        return platform, os_, target
    warn.entry("spec_details", "has no usable platform/os/target")
    return platform, os_, target


def _strings(value: Any, name: str, warn: _Warner) -> tuple[str, ...]:
    if value is None:
        warn.entry("spec_details", f"'{name}' is missing or null")
        return ()
    if isinstance(value, str):
        warn.entry("spec_details", f"'{name}' is a string, not a list")
        return tuple(value.split())
    if not isinstance(value, list):
        warn.entry("spec_details", f"'{name}' is a {type(value).__name__}, not a list; ignored")
        return ()
    kept = tuple(v for v in value if isinstance(v, str))
    if len(kept) != len(value):
        warn.entry("spec_details", f"'{name}' holds items that are not strings; dropped")
    return kept


def _size(value: Any, warn: _Warner) -> int:
    if value is None or value == "-":
        return UNKNOWN_SIZE
    if isinstance(value, bool):
        warn.entry("spec_details", "'size' is a boolean; treated as unknown")
        return UNKNOWN_SIZE
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value < MAX_SIZE:
        return value
    warn.entry("spec_details", f"'size' is not a byte count ({str(value)[:40]!r}); treated as unknown")
    return UNKNOWN_SIZE


def _specs_from_files(files: Any, reader: SpecFileReader, warn: _Warner) -> list[RawSpec]:
    names = _spec_file_names(files)
    if not names:
        raise UnsupportedDocument("'spec_files' lists no usable file names")
    specs = []
    for name in names:
        spec, reason = spec_from_spec_json(reader, name)
        if spec is None:
            warn.now("spec_files", f"{name}: {reason}", Severity.ERROR)
        else:
            specs.append(spec)
    if not specs:
        raise UnsupportedDocument("older format: none of the spec files named in 'spec_files' could be read")
    return specs


def _spec_file_names(files: Any) -> list[str]:
    """`spec_files` is a list of names, or of one-key mappings `{spec string: name}`."""
    names: list[str] = []
    for item in files if isinstance(files, list) else []:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict):
            names.extend(v for v in item.values() if isinstance(v, str))
    return names


def _drop_duplicate_hashes(columns: SpecColumns, warn: _Warner) -> SpecColumns:
    if len(set(columns.hashes)) == len(columns):
        return columns
    seen: set[str] = set()
    kept = []
    for spec in columns.rows():
        if spec.hash in seen:
            warn.entry("spec_details", "repeats a hash already listed in this document; kept the first")
            continue
        seen.add(spec.hash)
        kept.append(spec)
    return SpecColumns.from_rows(kept)
