"""Specs laid out as `spack find -lv` and `spack buildcache list -lv` print them.

Spack groups specs by (architecture, compiler), sorted, each group under a header drawn by
`llnl.util.tty.hline` (64 columns at most plus the newline's column: 65 characters), and
prints each spec as `{hash:7} {name}{@version}{variants}`. Variants follow Spack's
`VariantMap.__str__`: boolean variants first, sorted and run together (`+mpi~cuda`), then
the valued ones, sorted, each after a space (` build_type=Release`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from cachetui.core.model.corpus import Corpus, arch_triple
from cachetui.core.model.fields import REGISTRY
from cachetui.core.query.sorting import version_ranks
from cachetui.core.spack.compilers import normalise_compiler
from cachetui.core.spack.hashes import short_hash
from cachetui.core.spack.variants import Variant, VariantKind, parse_variants, variant_text
from cachetui.core.spack.versions import version_key

HEADER_WIDTH = 65  # hline's 64 columns and the one its suffix adds


def _group_facets() -> tuple[str, ...]:
    """What `spack find` groups by: the architecture, then the compiler."""
    return (*REGISTRY.marked("architecture"), "compiler")


@dataclass(frozen=True, slots=True)
class FindLine:
    """One printed line: a group header (spec None), a spec, or the blank line between groups."""

    text: str
    spec: int | None = None
    header: bool = False


def header(arch: str, compiler: str) -> str:
    label = f"{arch} / {compiler}"
    return "-- " + label + " " + "-" * max(0, HEADER_WIDTH - 4 - len(label))


def compiler_label(compiler: str) -> str:
    """`gcc@=13.2.0` as Spack prints a concrete compiler (`gcc@13.2.0`); none as `no compiler`."""
    return "no compiler" if compiler in ("", "none") else normalise_compiler(compiler)


def variants_text(raw_variants: Iterable[str]) -> str:
    variants = sorted((v for text in raw_variants for v in parse_variants(text)), key=lambda v: v.name)
    flags = [v for v in variants if v.kind in (VariantKind.ON, VariantKind.OFF, VariantKind.BARE)]
    valued = [v for v in variants if v not in flags]
    return "".join(_flag(v) for v in flags) + "".join(f" {_valued(v)}" for v in valued)


def _flag(variant: Variant) -> str:
    return f" {variant}" if variant.kind is VariantKind.BARE else str(variant)


def _valued(variant: Variant) -> str:
    return variant_text(variant.name, variant.values, ":=" if variant.exact else "=")


def spec_line(corpus: Corpus, i: int) -> str:
    spec = corpus.spec(i)
    return f"{short_hash(spec.hash)} {spec.package}@{spec.version}{variants_text(spec.raw_variants)}"


@dataclass(frozen=True, eq=False)
class FindLayout:
    """The lines of `spack find -lv` for some specs, as numbers: built with numpy, texts made when shown.

    `rows[k]` is the spec on line k, or -1 for a group header or the blank line before it
    (`headers[k]`, "" for blank).
    """

    corpus: Corpus
    rows: np.ndarray
    headers: dict[int, str]

    def __len__(self) -> int:
        return len(self.rows)

    def line(self, k: int) -> FindLine:
        spec = int(self.rows[k])
        if spec < 0:
            text = self.headers[k]
            return FindLine(text, header=bool(text))
        return FindLine(spec_line(self.corpus, spec), spec=spec)


def find_layout(corpus: Corpus, indices: np.ndarray) -> FindLayout:
    """Group by (architecture, compiler) as Spack prints them, groups sorted; specs by name and version."""
    indices = np.asarray(indices, dtype=np.int64)
    if not len(indices):
        return FindLayout(corpus, indices, {})
    distinct, group_of = _distinct_groups(corpus, indices)
    labels = [_group_label(corpus, row) for row in distinct]
    by_rank = sorted(labels, key=_group_order)
    label_rank = np.array([by_rank.index(label) for label in labels], dtype=np.int64)
    group_rank = label_rank[group_of.reshape(-1)]
    # ties (one name@version several times) keep their order: ranking 500k hashes costs more than it says
    order = np.lexsort((version_ranks(corpus)[corpus.single["version"][indices]], corpus.package_of[indices],
                        group_rank))
    ordered, groups = indices[order], group_rank[order]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]).tolist()
    pieces: list[np.ndarray] = []
    headers: dict[int, str] = {}
    position = 0
    for n, (begin, end) in enumerate(zip(starts, [*starts[1:], len(ordered)])):
        separators = [""] * bool(n) + [header(*by_rank[int(groups[begin])])]
        for text in separators:
            headers[position] = text
            position += 1
        pieces += [np.full(len(separators), -1, dtype=np.int64), ordered[begin:end]]
        position += end - begin
    return FindLayout(corpus, np.concatenate(pieces), headers)


def _distinct_groups(corpus: Corpus, indices: np.ndarray) -> tuple[list[list[int]], np.ndarray]:
    """The distinct (platform, os, target, compiler) id rows, and each spec's row among them.

    The ids are packed into one integer per spec: `np.unique(axis=0)` on 500k rows sorts them as
    raw bytes and takes half a second, one integer column takes a few milliseconds.
    """
    packed = np.zeros(len(indices), dtype=np.int64)
    radices = [max(1, len(corpus.vocab[f].values)) for f in _group_facets()]
    for facet, radix in zip(_group_facets(), radices):
        packed = packed * radix + corpus.single[facet][indices]
    keys, group_of = np.unique(packed, return_inverse=True)
    rows = []
    for key in keys.tolist():
        row = []
        for radix in reversed(radices):
            key, value = divmod(key, radix)
            row.append(value)
        rows.append(row[::-1])
    return rows, group_of


def find_lines(corpus: Corpus, indices: Sequence[int]) -> list[FindLine]:
    """The lines of `spack find -lv` for these specs."""
    layout = find_layout(corpus, np.asarray(indices, dtype=np.int64))
    return [layout.line(k) for k in range(len(layout))]


def _group_order(label: tuple[str, str]) -> tuple:
    """Spack sorts the (architecture, compiler) index: compilers by name, then version (gcc@9 before gcc@13)."""
    arch, compiler = label
    name, _, version = compiler.partition("@")
    return arch, name, version_key(version) if version else ((), ())


def _group_label(corpus: Corpus, ids: list[int]) -> tuple[str, str]:
    platform, os, target, compiler = (corpus.vocab[f].values[i] for f, i in zip(_group_facets(), ids))
    return arch_triple(platform, os, target), compiler_label(compiler)
