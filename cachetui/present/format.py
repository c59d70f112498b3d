"""Human-readable renderings of model values (plain strings)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import lru_cache

from cachetui.core.load import DOCUMENTS, is_url
from cachetui.core.model.problems import Problem
from cachetui.core.spack.variants import Variant, VariantKind, parse_variants
from cachetui.core.spack.words import counted as counted  # one rule for counts, shared with the core
from cachetui.present.inert import inert

_UNITS = ("B", "kB", "MB", "GB", "TB", "PB")


def human_size(size: int | None) -> str:
    """Decimal units, as `ls -h --si` and most download pages show them; `-` when unknown."""
    if size is None or size < 0:
        return "-"
    value = float(size)
    for unit in _UNITS:
        if value < 1000 or unit == _UNITS[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def condensed_variants(raw_variants: Iterable[str]) -> str:
    """One line for a table cell: patches and other long lists shortened."""
    return " ".join(map(_condensed_text, raw_variants))


@lru_cache(maxsize=65536)
def _condensed_text(text: str) -> str:
    # The same variant strings recur across thousands of specs: condense each once.
    return " ".join(condensed(v) for v in parse_variants(text))


def condensed(variant: Variant) -> str:
    if variant.name == "patches" and variant.values:
        return f"patches({len(variant.values)})"
    if variant.kind is VariantKind.LIST and len(",".join(variant.values)) > 24:
        return f"{variant.name}={variant.values[0]},…(+{len(variant.values) - 1})"
    return str(variant)


def describe_variant(variant: Variant) -> tuple[str, str]:
    """(state, text) for the detail pane: `on`/`off`/`=`/`[n]`/`listed` and the variant's own text."""
    if variant.kind is VariantKind.ON:
        return "on", variant.name
    if variant.kind is VariantKind.OFF:
        return "off", variant.name
    if variant.kind is VariantKind.BARE:
        return "listed", variant.name
    if variant.kind is VariantKind.LIST:
        return f"[{len(variant.values)}]", f"{variant.name} = {', '.join(variant.values)}"
    return "=", f"{variant.name} = {variant.values[0] if variant.values else ''}"


def problem_line(problem: Problem) -> str:
    """A load problem as `check` reports it (`warning: WHERE: WHAT`), and every other command that repeats it."""
    return f"{problem.severity.value}: {inert(problem.described())}"


def display_path(path: str) -> str:
    """Relative to the working directory when under it (shorter, and stable across checkouts); URLs as they are."""
    if is_url(path) or "://" in path:  # oci://, oci+http:// too
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith("..") else relative


def problems_said(problems: int, key: str) -> str:
    """`⚠ 3 problems (p)`: what a load could not read, and the key (as bound) that lists it."""
    return f"⚠ {counted(problems, 'problem')} ({inert(key)})"


def loading_text(done: int, total: int | None, what: str) -> str:
    """`Reading documents 300/5000`, `Downloading the develop index: 12.0 of 170.3 MB`, `Reading the develop index:
    36,000 of 120,000 records` (`Reading the develop index` before its records are counted)."""
    phrase = inert(what[:1].upper() + what[1:])
    if what == DOCUMENTS:
        return f"{phrase} {done}/{total}…" if total is not None else f"{phrase} {done}…"
    if what.startswith("downloading"):
        return f"{phrase}: {done / 1e6:.1f} MB" + (f" of {total / 1e6:.1f} MB…" if total else "…")
    if total:
        return f"{phrase}: {done:,} of {total:,} records…"
    return f"{phrase}…"
