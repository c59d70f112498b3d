"""What every spec of a result shares, and so what tells its rows apart.

Binaries of one package often differ only in a variant or two. Saying once what all rows
have ("common: hdf5@1.14.3 %gcc@13.2.0 +mpi build_type=Release") leaves each row with
just what is its own. A variant is common when every row has it with the same values;
rows without it, or with other values, make it differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cachetui.core.model.corpus import Corpus, arch_triple
from cachetui.core.model.fields import REGISTRY, SINGLE
from cachetui.core.spack.variants import Variant, atom_name, parse_variants


@dataclass(frozen=True)
class Common:
    """The values shared by every spec of a result (empty for an empty result)."""

    rows: int = 0
    package: str | None = None
    values: dict[str, str] = field(default_factory=dict)  # facet -> the one value all rows have
    variant_names: frozenset[str] = frozenset()
    variants: tuple[str, ...] = ()  # the common variants as text, in the first row's order
    variants_vary: bool = False  # some row has a variant that not every row has alike

    def spec_text(self) -> str:
        """The shared part in spec syntax: `hdf5@1.14.3 %gcc@13.2.0 +mpi arch=linux-ubuntu22.04-zen3`."""
        parts = [(self.package or "") + (f"@{self.values['version']}" if "version" in self.values else "")]
        if "compiler" in self.values and self.values["compiler"] != "none":
            parts.append(f"%{self.values['compiler']}")
        platform, os_, target = arch = [self.values.get(key, "") for key in REGISTRY.marked("architecture")]
        if all(arch):  # before the variants: a long variant list must not push it out of sight
            parts.append("arch=" + arch_triple(platform, os_, target))
        else:
            parts += [f"{key}={value}" for key, value in zip(REGISTRY.marked("architecture"), arch) if value]
        parts += self.variants
        if "tag" in self.values:
            parts.append(f"(tag {self.values['tag']})")
        return " ".join(p for p in parts if p)

    def differing(self, raw_variants: tuple[str, ...]) -> list[Variant]:
        """A row's variants that not every row shares."""
        return [v for text in raw_variants for v in parse_variants(text) if v.name not in self.variant_names]


def common_to(corpus: Corpus, indices: np.ndarray) -> Common:
    """What all of `indices` share (numpy over the span they lie in, so a package costs what it holds)."""
    if len(indices) == 0:
        return Common()
    first = int(indices[0])
    values = {}
    for facet in REGISTRY.shown(SINGLE):  # what documents say, not what the load works out
        column = corpus.single[facet][indices]
        if (column == column[0]).all():
            values[facet] = corpus.vocab[facet].values[int(column[0])]
    packages = corpus.package_of[indices]
    package = corpus.packages[int(packages[0])] if (packages == packages[0]).all() else None
    names, vary = _common_variant_names(corpus, indices)
    variants = tuple(str(v) for text in corpus.raw_variants(first) for v in parse_variants(text) if v.name in names)
    return Common(len(indices), package, values, names, variants, vary)


def _common_variant_names(corpus: Corpus, indices: np.ndarray) -> tuple[frozenset[str], bool]:
    """Variant names whose every value present among the rows is present in all of them; whether others exist."""
    column = corpus.multi["variant"]
    lo, hi = int(indices.min()), int(indices.max()) + 1
    start, stop = column.offsets[lo], column.offsets[hi]
    chosen = np.zeros(hi - lo, dtype=bool)
    chosen[indices - lo] = True
    entries = column.flat[start:stop][chosen[column.owner[start:stop] - lo]]
    counts = np.bincount(entries, minlength=len(corpus.vocab["variant"]))
    present = np.flatnonzero(counts)
    name_of = corpus.variant_names[present]
    shortest = np.full(len(corpus.variant_name_ids), len(indices) + 1, dtype=np.int64)
    np.minimum.at(shortest, name_of, counts[present])
    atoms = corpus.vocab["variant"].values
    common = [atom_name(atoms[a]) for a, n in zip(present.tolist(), name_of.tolist()) if shortest[n] == len(indices)]
    return frozenset(common), len(common) < len(present)
