"""Turn what a user typed into facet filters, or say plainly what is not in the corpus.

`--compiler gcc@13` means gcc 13 to 13.x, the way Spack reads `@13`; `--version 1.2`
likewise. A name or value that the corpus does not have is never a silently empty
answer: it is an `UnknownValue` that names the nearest known values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from cachetui.core.compilers import compiler_spellings, normalise_compiler
from cachetui.core.model import Corpus
from cachetui.core.variants import atom_name, text_atoms
from cachetui.core.versions import VersionSyntaxError, parse_version_constraint

EXACT_FACETS = ("tag", "platform", "os", "target", "stack")
SUGGESTIONS = 3
NEAR_SCORE = 75  # rapidfuzz WRatio: `hdf55` -> hdf5 scores 89, unrelated names stay under 60


class UnknownValue(ValueError):
    """A typed name or value that matches nothing in the corpus."""

    def __init__(self, what: str, typed: str, known: Iterable[str], detail: str = "") -> None:
        self.what, self.typed = what, typed
        choices = sorted(set(known))
        self.suggestions = nearest(typed, choices)
        message = detail or f"unknown {what} {typed!r}"
        if self.suggestions:
            message += f"; did you mean: {', '.join(self.suggestions)}?"
        elif choices:
            more = f" (and {len(choices) - SUGGESTIONS} more)" if len(choices) > SUGGESTIONS else ""
            message += f"; known: {', '.join(choices[:SUGGESTIONS])}{more}"
        super().__init__(message)


class MalformedValue(ValueError):
    """A typed value that is not valid syntax (a usage error)."""


def nearest(typed: str, known: Iterable[str], limit: int = SUGGESTIONS) -> list[str]:
    """The known values close to `typed` (rapidfuzz), best first; empty when none is close."""
    choices = list(known)
    # Edits first: WRatio scores a short transposition (`mip` for mpi) low, an edit distance does not.
    edits = process.extract(typed, choices, scorer=OSA.distance, limit=limit, score_cutoff=max(1, len(typed) // 4))
    similar = process.extract(typed, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=NEAR_SCORE)
    return list(dict.fromkeys(choice for choice, _, _ in [*edits, *similar]))[:limit]


def resolve_package(corpus: Corpus, typed: str) -> str:
    if typed not in corpus.package_index:
        raise UnknownValue("package", typed, corpus.packages)
    return typed


def resolve_filters(corpus: Corpus, typed: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
    """Facet -> the corpus values that each typed value stands for (repeated values are alternatives).

    Raises UnknownValue for the first value that matches nothing, MalformedValue for bad syntax.
    """
    filters: dict[str, frozenset[str]] = {}
    for facet, values in typed.items():
        if values:
            filters[facet] = frozenset().union(*(resolve_value(corpus, facet, v) for v in values))
    return filters


def resolve_value(corpus: Corpus, facet: str, typed: str) -> frozenset[str]:
    if facet == "compiler":
        return _compilers(corpus, typed)
    if facet == "version":
        return _versions(corpus, typed)
    if facet == "variant":
        return _variants(corpus, typed)
    known = corpus.vocab[facet].ids
    if typed not in known:
        raise UnknownValue(facet, typed, corpus.vocab[facet].values)
    return frozenset({typed})


def _versions(corpus: Corpus, typed: str) -> frozenset[str]:
    try:
        constraint = parse_version_constraint(typed)
    except VersionSyntaxError as exc:
        raise MalformedValue(f"version {typed!r}: {exc}") from None
    known = corpus.vocab["version"].values
    found = frozenset(v for v in known if constraint.contains(v))
    if not found:
        raise UnknownValue("version", typed, known, f"no version in the corpus satisfies @{typed}")
    return found


def _compilers(corpus: Corpus, typed: str) -> frozenset[str]:
    """`gcc`, `gcc@13` (13 to 13.x), `gcc@=13.2.0`; `oneapi` also finds `intel-oneapi-compilers`."""
    name, at, version = typed.strip().partition("@")
    known = corpus.vocab["compiler"].values
    names = {value.partition("@")[0] for value in known}
    spellings = compiler_spellings(name) & names
    if not spellings:
        raise UnknownValue("compiler", name, names)
    same_name = [value for value in known if value.partition("@")[0] in spellings]
    if not at:
        return frozenset(same_name)
    try:
        constraint = parse_version_constraint(version)
    except VersionSyntaxError as exc:
        raise MalformedValue(f"compiler {typed!r}: {exc}") from None
    found = frozenset(v for v in same_name if constraint.contains(v.partition("@")[2]))
    if not found:
        detail = f"no {name} compiler in the corpus satisfies @{version}"
        raise UnknownValue("compiler", normalise_compiler(typed), same_name, detail)
    return found


def _variants(corpus: Corpus, typed: str) -> frozenset[str]:
    """Each atom must be a variant value the corpus has; `cuda_arch:=80` is `cuda_arch=80`."""
    atoms = text_atoms(typed.strip())
    if not atoms:
        raise MalformedValue(f"variant {typed!r}: empty")
    known = corpus.vocab["variant"].ids
    for atom in atoms:
        if atom in known:
            continue
        name = atom_name(atom)
        if name not in corpus.variant_name_ids:
            raise UnknownValue("variant", name, corpus.variant_name_ids)
        values = [v for v in corpus.vocab["variant"].values if atom_name(v) == name]
        raise UnknownValue("variant value", atom, values, f"no spec in the corpus has the variant {atom!r}")
    return frozenset(atoms)
