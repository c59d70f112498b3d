"""Turn the CLI's filter options into facet filters, through the one resolver (cachetui.core.query.resolve).

`--compiler gcc@13` means gcc 13 to 13.x, the way Spack reads `%gcc@13`; `--version 1.2`
likewise. Repeated options of one kind are alternatives. A value that names nothing in the
scope is an `UnknownValue` naming the nearest real values, exactly as in a spec query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.installable import VALUES as INSTALLABLE_VALUES
from cachetui.core.query.resolve import (
    MalformedValue,
    Scope,
    UnknownValue,
    resolve_arch,
    resolve_compiler,
    resolve_exact,
    resolve_package,
    resolve_variant,
    resolve_versions,
)
from cachetui.core.spack.variants import VariantKind, parse_variants
from cachetui.core.spack.versions import VersionConstraint, VersionSyntaxError, parse_version_constraint
from cachetui.core.spack.words import echo

__all__ = ["MalformedValue", "UnknownValue", "resolve_filters", "resolve_package", "resolve_value"]


def resolve_filters(corpus: Corpus, typed: Mapping[str, Sequence[str]], package: str | None = None
                    ) -> dict[str, frozenset[str]]:
    """Facet -> the corpus values that each typed value stands for (repeated values are alternatives).

    Values are looked for in `package` when given. Raises UnknownValue for the first value that
    matches nothing, MalformedValue for bad syntax.
    """
    scope = Scope(corpus, package)
    filters: dict[str, frozenset[str]] = {}
    for facet, values in typed.items():
        if values:
            filters[facet] = frozenset().union(*(resolve_value(scope, facet, v) for v in values))
    return filters


def resolve_value(scope: Scope, facet: str, typed: str) -> frozenset[str]:
    if facet == "compiler":
        name, at, version = typed.strip().partition("@")
        return resolve_compiler(scope, name, _versions(typed, version) if at else None)
    if facet == "version":
        return resolve_versions(scope, _versions(typed, typed))
    if facet == "variant":
        return _variants(scope, typed)
    if facet == "installable":  # yes, no, unknown: a value no binary has is an empty answer, not a typo
        if typed not in INSTALLABLE_VALUES:
            raise UnknownValue("installable value", typed, INSTALLABLE_VALUES)
        return frozenset({typed})
    if facet == "target" and ":" in typed:
        satisfies = resolve_arch(scope, facet, (typed,))
        return frozenset(filter(satisfies, scope.values(facet)))
    return frozenset({resolve_exact(scope, facet, typed.strip())})


def _versions(typed: str, text: str) -> VersionConstraint:
    try:
        return parse_version_constraint(text)
    except VersionSyntaxError as exc:
        raise MalformedValue(f"{echo(typed, quoted=True)}: {exc}") from None


def _variants(scope: Scope, typed: str) -> frozenset[str]:
    """Each variant must be one the scope has; `cuda_arch:=80` is `cuda_arch=80`."""
    variants = parse_variants(typed.strip())
    if not variants:
        raise MalformedValue(f"variant {echo(typed, quoted=True)}: empty")
    atoms: set[str] = set()
    for variant in variants:
        boolean = variant.kind in (VariantKind.ON, VariantKind.OFF)
        values = ("true",) if variant.kind is VariantKind.ON else ("false",) if boolean else variant.values
        if variant.kind is VariantKind.BARE:  # older site generations listed bare names
            atoms.add(resolve_exact(scope, "variant", variant.name))
            continue
        atoms.update(resolve_variant(scope, variant.name, values, boolean))
    return frozenset(atoms)
