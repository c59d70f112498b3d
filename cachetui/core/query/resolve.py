"""What a typed value stands for in the corpus: the one resolver for every command and the browser.

The CLI's filter options (`--compiler gcc@13`), spec queries (`%gcc@13`) in the CLI and in the
browser's query line, and `diff` all resolve through here, so one input gets one answer and
one message everywhere.

A value is resolved in its scope: the package the query names (or the one opened in the
browser), else the whole corpus. A value that names nothing there is never a silently empty
answer: it raises `UnknownValue`, whose message names the nearest real values (compared
case-insensitively; for a variant, the package's own variants first). What was typed is echoed
through `words.echo`: a 100 KB token comes back cut, never whole.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import REGISTRY
from cachetui.core.spack.compilers import canonical_compiler_name, compiler_spellings, spellings_of
from cachetui.core.spack.tags import is_whole_tag
from cachetui.core.spack.targets import UnknownTarget, in_range, known
from cachetui.core.spack.variants import atom_name
from cachetui.core.spack.versions import VersionConstraint, version_key
from cachetui.core.spack.words import echo

SUGGESTIONS = 3
VARIANTS_SHOWN = 12  # a package's own variants, when none is near what was typed: most packages have fewer
NEAR_SCORE = 75  # rapidfuzz WRatio: `hdf55` -> hdf5 scores 89, unrelated names stay under 60


class QueryProblem(ValueError):
    """A query that cannot be answered as typed: its message says why, in one line (CLI exit 1)."""


class UnknownValue(QueryProblem):
    """A typed name or value that matches nothing in its scope."""

    def __init__(self, what: str, typed: str, known: Iterable[str], detail: str = "",
                 suggestions: list[str] | None = None, shown: int = SUGGESTIONS) -> None:
        self.what, self.typed = what, typed
        choices = sorted(set(known))
        self.suggestions = nearest(typed, choices) if suggestions is None else suggestions[:SUGGESTIONS]
        message = detail or f"unknown {what} {echo(typed, quoted=True)}"
        if self.suggestions:
            message += f"; did you mean: {', '.join(self.suggestions)}?"
        elif choices:  # nothing near: the first `shown` of what there is
            more = f" (and {len(choices) - shown} more)" if len(choices) > shown else ""
            message += f"; known: {', '.join(choices[:shown])}{more}"
        super().__init__(message)


class MalformedValue(ValueError):
    """A typed value that cannot be asked as typed: not valid syntax, or not a value of its kind (a usage error)."""


def nearest(typed: str, known: Iterable[str], limit: int = SUGGESTIONS) -> list[str]:
    """The known values close to `typed`, best first, ignoring case; empty when none is close."""
    choices = list(known)
    same = [choice for choice in choices if choice.lower() == typed.lower()]
    # Edits first: WRatio scores a short transposition (`mip` for mpi) low, an edit distance does not.
    edits = process.extract(typed, choices, scorer=OSA.distance, processor=str.lower, limit=limit,
                            score_cutoff=max(1, len(typed) // 4))
    similar = process.extract(typed, choices, scorer=fuzz.WRatio, processor=str.lower, limit=limit,
                              score_cutoff=NEAR_SCORE)
    return list(dict.fromkeys([*same, *(choice for choice, _, _ in [*edits, *similar])]))[:limit]


def nearest_versions(typed: str, known: Iterable[str], limit: int = SUGGESTIONS) -> list[str]:
    """The known versions on either side of where `typed` (a version or range) would sort."""
    ordered = sorted(set(known), key=version_key)
    bound = typed.lstrip("=").split(",")[0].split(":")[0] or typed.split(":")[-1]
    at = bisect_left([version_key(v) for v in ordered], version_key(bound))
    lo = max(0, min(at - limit // 2 - 1, len(ordered) - limit))
    return ordered[lo : lo + limit]


@dataclass(frozen=True)
class Scope:
    """Where a value is looked for: one package's binaries, or the whole corpus."""

    corpus: Corpus
    package: str | None = None

    @property
    def slice(self) -> slice:
        return self.corpus.package_slice(self.package)

    @property
    def where(self) -> str:
        return f"{self.package} has" if self.package else "the loaded sources have"

    def values(self, facet: str) -> list[str]:
        """The values of `facet` that binaries in the scope have."""
        if self.package is None:
            return self.corpus.vocab[facet].values
        return self.corpus.memoised(("scope-values", facet, self.package), lambda: self._values(facet))

    def _values(self, facet: str) -> list[str]:
        scope, corpus = self.slice, self.corpus
        if facet in REGISTRY.multi():
            column = corpus.multi[facet]
            ids = column.flat[column.offsets[scope.start] : column.offsets[scope.stop]]
        else:
            ids = corpus.single[facet][scope]
        names = corpus.vocab[facet].values
        return [names[i] for i in np.unique(ids).tolist()]


def resolve_package(corpus: Corpus, typed: str, *others: Corpus) -> str:
    """`typed`, a package of `corpus` or of one of `others` (diff's two sides); else UnknownValue, the
    nearest packages of them all suggested. The one place a package name is refused."""
    corpora = (corpus, *others)
    if not any(typed in each.package_index for each in corpora):
        raise UnknownValue("package", typed, [package for each in corpora for package in each.packages])
    return typed


def resolve_versions(scope: Scope, versions: VersionConstraint) -> frozenset[str]:
    """The scope's versions within `versions` (`@1.2` is 1.2 to 1.2.x)."""
    known_versions = scope.values("version")
    found = frozenset(v for v in known_versions if versions.contains(v))
    if not found:
        raise UnknownValue("version", str(versions), known_versions,
                           f"{scope.where} no version satisfying @{echo(str(versions))}",
                           nearest_versions(str(versions), known_versions))
    return found


def resolve_compiler(scope: Scope, name: str, versions: VersionConstraint | None) -> frozenset[str]:
    """The scope's compilers that are `name` (either of its spellings: sources hold one, see
    cachetui.core.spack.compilers) within `versions`."""
    every_name = {value.partition("@")[0] for value in scope.corpus.vocab["compiler"].values}
    held = canonical_compiler_name(name)
    if held not in every_name:
        raise UnknownValue("compiler", name, every_name, suggestions=nearest_compilers(name, every_name))
    known_compilers = scope.values("compiler")
    same_name = [value for value in known_compilers if value.partition("@")[0] == held]
    if not same_name:
        in_scope = {value.partition("@")[0] for value in known_compilers}
        raise UnknownValue("compiler", name, in_scope, f"{scope.where} no binary built with %{echo(name)}", [])
    if versions is None:
        return frozenset(same_name)
    found = frozenset(v for v in same_name if versions.contains(v.partition("@")[2]))
    if not found:
        near = nearest_versions(str(versions), [v.partition("@")[2] for v in same_name])
        by_version = {v.partition("@")[2]: v for v in same_name}
        raise UnknownValue("compiler", f"{name}@{versions}", same_name,
                           f"{scope.where} no {echo(name)} compiler satisfying @{echo(str(versions))}",
                           [by_version[v] for v in near])
    return found


def nearest_compilers(typed: str, names: Iterable[str]) -> list[str]:
    """The held compiler names near `typed` under either spelling (`clnag` finds llvm, whose old name is clang)."""
    held_as = {spelling: name for name in names for spelling in compiler_spellings(name)}
    return list(dict.fromkeys(held_as[s] for s in nearest(typed, held_as, limit=2 * SUGGESTIONS)))[:SUGGESTIONS]


def typed_forms(facet: str, value: str) -> list[str]:
    """How a facet value may be typed, its own text first: a compiler under either of its names, any
    other value as it is (the palette matches what is typed against these)."""
    return spellings_of(value) if facet in REGISTRY.marked("compiler") else [value]


def resolve_variant(scope: Scope, name: str, values: tuple[str, ...], boolean: bool) -> list[str]:
    """The facet atoms a variant constraint needs: `+mpi`, or one `k=v` per value; each must exist in the scope."""
    atoms_in_scope = scope.values("variant")
    names_in_scope = dict.fromkeys(map(atom_name, atoms_in_scope))
    if name not in names_in_scope:
        # A package's own variants: the near ones, else all of them; another package's are no answer.
        raise UnknownValue("variant", name, names_in_scope, f"{scope.where} no variant {echo(name, quoted=True)}",
                           nearest(name, names_in_scope), shown=VARIANTS_SHOWN if scope.package else SUGGESTIONS)
    if boolean:
        atoms = ["+" + name if values == ("true",) else "~" + name]
    else:
        atoms = [f"{name}={value}" for value in values]
    present = set(atoms_in_scope)
    for atom in atoms:
        if atom not in present:
            same = [a for a in atoms_in_scope if atom_name(a) == name]
            raise UnknownValue("variant value", atom, same, f"{scope.where} no binary with {echo(atom, quoted=True)}")
    return atoms


def resolve_arch(scope: Scope, key: str, values: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a `platform`/`os`/`target` value is one of `values` (a target may be a range `lo:hi`)."""
    present = scope.values(key)
    exact = {value for value in values if ":" not in value}
    ranges = [tuple(value.split(":", 1)) for value in values if ":" in value]
    for value in sorted(exact - set(present)):
        raise UnknownValue(key, value, present, f"{scope.where} no binary with {key}={echo(value)}")
    for bounds in ranges:
        for bound in filter(None, bounds):
            if not known(bound):
                raise UnknownValue("target", bound, present,
                                   f"{echo(bound, quoted=True)} is not a microarchitecture archspec knows")

    def satisfies(value: str) -> bool:
        return value in exact or any(_in_range(value, lo or None, hi or None) for lo, hi in ranges)

    if ranges and not any(map(satisfies, present)):
        raise UnknownValue(key, ",".join(values), present,
                           f"{scope.where} no binary with {key}={echo(','.join(values))}")
    return satisfies


def _in_range(value: str, lo: str | None, hi: str | None) -> bool:
    try:
        return in_range(value, lo, hi)
    except UnknownTarget:
        return False


def resolve_exact(scope: Scope, facet: str, typed: str) -> str:
    """A value picked by name (a tag, a stack): it must be one the scope has.

    A stack label that names the whole tag (`root`) is refused wherever the corpus has it: it
    narrows nothing, and mirrors read through an index of indexes never list it as a stack.
    """
    if facet == "stack" and is_whole_tag(typed):
        raise MalformedValue(f"{typed!r} is not a stack: it names the whole tag (every binary of a tag is in it), "
                             "so it narrows nothing; leave the stack out, or choose a tag")
    present = scope.values(facet)
    if typed not in present:
        shown = echo(typed, quoted=True)
        detail = f"unknown {facet} {shown}" if scope.package is None else f"{scope.where} no {facet} {shown}"
        raise UnknownValue(facet, typed, present, detail)
    return typed


def unknown_hash(prefix: str) -> UnknownValue:
    """A hash prefix no binary has: said with what was typed (cut when long)."""
    return UnknownValue("hash", prefix, [], f"no binary's hash starts with {echo(prefix)}")
