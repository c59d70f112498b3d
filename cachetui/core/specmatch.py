"""Which binaries satisfy a spec query, the way Spack reads constraints on a concrete spec.

- a name is that package (one that is not in the corpus is an error naming the near ones);
- `@1.2` is 1.2 to 1.2.x, `@1.2:1.4` includes 1.4.x, `@=1.2` is exactly 1.2;
- `%gcc@13` is the compiler gcc 13 to 13.x; old and new names are one compiler
  (`oneapi` and `intel-oneapi-compilers`); `%c,cxx=gcc` is gcc for those languages;
- `+x`/`~x` need the variant on/off; `k=a,b` needs at least those values, `k:=a,b` exactly those;
- `platform=`, `os=`, `target=` take any of their values; a target range `lo:hi` holds the
  microarchitectures between (archspec);
- `/abc` is every binary whose hash starts with abc;
- `^dep@v` needs dep (or a provider of the virtual dep) somewhere among the dependencies;
  only mirror indexes record dependencies, so on site documents alone it is an error.

Each constraint is decided once per distinct value (a version, a compiler, a target) and
applied to the scope with numpy, so a query costs little even over 500k specs.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable

import numpy as np

from cachetui.core.compilers import compiler_spellings
from cachetui.core.filters import UnknownValue
from cachetui.core.model import Corpus
from cachetui.core.records import deptype_bits
from cachetui.core.masks import facet_mask
from cachetui.core.specquery import ArchTerm, CompilerTerm, DependencyQuery, NodeQuery, SpecQuery, VariantTerm
from cachetui.core.targets import UnknownTarget, in_range, known, runs_on
from cachetui.core.variants import atom_name
from cachetui.core.versions import VersionConstraint


class NoDependencyData(ValueError):
    """`^` asked of a corpus whose sources record no dependencies."""


def spec_mask(corpus: Corpus, scope: slice, query: SpecQuery) -> np.ndarray:
    """Boolean mask over the scope: the binaries that satisfy `query` (raises UnknownValue on unknown names)."""
    mask = node_mask(corpus, scope, query.root)
    for dependency in query.dependencies:
        mask &= _dependency_mask(corpus, dependency)[scope]
    return mask


def node_mask(corpus: Corpus, scope: slice, node: NodeQuery) -> np.ndarray:
    if node.name is not None and node.name not in corpus.package_index:
        raise UnknownValue("package", node.name, corpus.packages)
    mask = np.ones(scope.stop - scope.start, dtype=bool)
    if node.name is not None:
        start, stop = corpus.package_ranges[corpus.package_index[node.name]]
        mask &= _range_mask(scope, start, stop)
    if node.versions is not None:
        mask &= _versions_mask(corpus, scope, node, node.versions)
    for compiler in node.compilers:
        mask &= _values_mask(corpus, scope, "compiler", _compiler_predicate(corpus, compiler))
    for variant in node.variants:
        mask &= _variant_mask(corpus, scope, variant)
    for arch in node.arch:
        mask &= _values_mask(corpus, scope, arch.key, _arch_predicate(corpus, arch))
    if node.hash_prefix:
        mask &= _hash_mask(corpus, scope, node.hash_prefix)
    return mask


def runs_on_mask(corpus: Corpus, scope: slice, machine: str, platform: str | None = None) -> np.ndarray:
    """Binaries whose target is `machine` or one of its ancestors (and, when given, built for `platform`)."""
    mask = _values_mask(corpus, scope, "target", lambda target: runs_on(target, machine))
    if platform is not None:
        mask &= facet_mask(corpus, scope, "platform", frozenset({platform}))
    return mask


# -- one constraint at a time -----------------------------------------------------------------------------


def _range_mask(scope: slice, start: int, stop: int) -> np.ndarray:
    positions = np.arange(scope.start, scope.stop)
    return (positions >= start) & (positions < stop)


def _values_mask(corpus: Corpus, scope: slice, facet: str, predicate: Callable[[str], bool]) -> np.ndarray:
    """Specs whose `facet` value satisfies `predicate`, deciding each distinct value once."""
    values = corpus.vocab[facet].values
    ids = np.fromiter((i for i, value in enumerate(values) if predicate(value)), dtype=np.int32)
    return np.isin(corpus.single[facet][scope], ids)


def _versions_mask(corpus: Corpus, scope: slice, node: NodeQuery, versions: VersionConstraint) -> np.ndarray:
    mask = _values_mask(corpus, scope, "version", versions.contains)
    if not mask.any():
        within = corpus.package_slice(node.name)
        known_versions = {corpus.vocab["version"].values[i] for i in np.unique(corpus.single["version"][within])}
        if not any(versions.contains(v) for v in known_versions):
            what = f"{node.name} has no version" if node.name else "no version in the corpus"
            raise UnknownValue("version", str(versions), known_versions, f"{what} satisfies @{versions}")
    return mask


def _compiler_predicate(corpus: Corpus, term: CompilerTerm) -> Callable[[str], bool]:
    names = {value.partition("@")[0] for value in corpus.vocab["compiler"].values}
    spellings = compiler_spellings(term.name) & names
    if not spellings:
        raise UnknownValue("compiler", term.name, names)
    versions = term.versions

    def satisfies(value: str) -> bool:
        name, _, version = value.partition("@")
        return name in spellings and (versions is None or versions.contains(version))

    return satisfies


def _variant_mask(corpus: Corpus, scope: slice, term: VariantTerm) -> np.ndarray:
    if term.name not in corpus.variant_name_ids:
        raise UnknownValue("variant", term.name, corpus.variant_name_ids)
    if term.boolean:
        atoms = ["+" + term.name if term.values == ("true",) else "~" + term.name]
    else:
        atoms = [f"{term.name}={value}" for value in term.values]
        known_atoms = corpus.vocab["variant"].ids
        for atom in atoms:
            if atom not in known_atoms:
                same = [v for v in known_atoms if atom_name(v) == term.name]
                raise UnknownValue("variant value", atom, same, f"no binary in the corpus has the variant {atom!r}")
    mask = np.ones(scope.stop - scope.start, dtype=bool)
    for atom in atoms:
        mask &= facet_mask(corpus, scope, "variant", frozenset({atom}))
    if term.exact:  # `k:=a,b`: no other value of k either
        mask &= _values_of_variant(corpus, scope, term.name) == len(set(atoms))
    return mask


def _values_of_variant(corpus: Corpus, scope: slice, name: str) -> np.ndarray:
    """How many values of variant `name` each spec of the scope has."""
    column = corpus.multi["variant"]
    lo, hi = column.offsets[scope.start], column.offsets[scope.stop]
    of_name = corpus.variant_names[column.flat[lo:hi]] == corpus.variant_name_ids[name]
    owners = column.owner[lo:hi][of_name] - scope.start
    return np.bincount(owners, minlength=scope.stop - scope.start)


def _arch_predicate(corpus: Corpus, term: ArchTerm) -> Callable[[str], bool]:
    present = set(corpus.vocab[term.key].values)
    exact = {value for value in term.values if ":" not in value}
    ranges = [tuple(value.split(":", 1)) for value in term.values if ":" in value]
    for value in exact - present:
        raise UnknownValue(term.key, value, present)
    for bounds in ranges:
        for bound in filter(None, bounds):
            if not known(bound):
                raise UnknownValue("target", bound, present, f"{bound!r} is not a microarchitecture archspec knows")

    def satisfies(value: str) -> bool:
        return value in exact or any(_in_range(value, lo or None, hi or None) for lo, hi in ranges)

    return satisfies


def _in_range(value: str, lo: str | None, hi: str | None) -> bool:
    try:
        return in_range(value, lo, hi)
    except UnknownTarget:
        return False


def _hash_mask(corpus: Corpus, scope: slice, prefix: str) -> np.ndarray:
    """Specs whose hash starts with `prefix`: a bisection of the sorted hashes (sorted once)."""
    order, ordered = _sorted_hashes(corpus)
    lo = bisect_left(ordered, prefix)
    hi = bisect_left(ordered, prefix + "\x7f")
    hits = order[lo:hi]
    hits = hits[(hits >= scope.start) & (hits < scope.stop)] - scope.start
    mask = np.zeros(scope.stop - scope.start, dtype=bool)
    mask[hits] = True
    return mask


def _sorted_hashes(corpus: Corpus) -> tuple[np.ndarray, list[str]]:
    found = corpus.memo.get("sorted-hashes")
    if found is None:
        order = sorted(range(corpus.n_specs), key=corpus.hashes.__getitem__)
        found = corpus.memo["sorted-hashes"] = (np.asarray(order, dtype=np.int64), [corpus.hashes[i] for i in order])
    return found  # type: ignore[return-value]


def hash_matches(corpus: Corpus, prefix: str) -> np.ndarray:
    """Indices of every spec whose hash starts with `prefix`, across the whole corpus."""
    return np.flatnonzero(_hash_mask(corpus, slice(0, corpus.n_specs), prefix))


# -- dependencies -------------------------------------------------------------------------------------


def _dependency_mask(corpus: Corpus, query: DependencyQuery) -> np.ndarray:
    """Over all specs: those with a dependency, at any depth, that satisfies the node (kept per query).

    It does not depend on the scope, and a query's answer and its facet counts ask for it alike.
    """
    key = ("dependency-mask", query)
    if key not in corpus.memo:
        corpus.memo[key] = _compute_dependency_mask(corpus, query)
    return corpus.memo[key]  # type: ignore[return-value]


def _compute_dependency_mask(corpus: Corpus, query: DependencyQuery) -> np.ndarray:
    if not corpus.has_dependencies:
        raise NoDependencyData("'^' needs dependency data: site documents record none (mirror indexes do)")
    deps = corpus.deps
    reached = _edges_to(corpus, query)
    satisfied = np.zeros(corpus.n_specs, dtype=bool)
    owners = corpus.deps.owners()
    frontier = np.unique(owners[reached])
    dep_ids_of_specs = _dep_ids_of_specs(corpus)
    while len(frontier):
        satisfied[frontier] = True
        ids = dep_ids_of_specs[frontier]
        edges = np.isin(deps.hash, ids[ids >= 0])
        frontier = np.unique(owners[edges])
        frontier = frontier[~satisfied[frontier]]
    return satisfied


def _edges_to(corpus: Corpus, query: DependencyQuery) -> np.ndarray:
    """Edges (bool over all edges) that reach a node satisfying the query, through the allowed deptypes."""
    deps, node = corpus.deps, query.node
    vocab = corpus.vocab
    versions = vocab["dep_version"].values
    if node.name is not None:
        virtual_ids = [i for i, v in enumerate(vocab["dep_virtuals"].values) if node.name in v.split(",")]
        by_name = deps.name_of == vocab["dep_name"].ids.get(node.name, -1)
        if not by_name.any() and not virtual_ids:
            raise UnknownValue("dependency", node.name, set(vocab["dep_name"].values))
        targets = by_name
        virtual_edges = np.isin(deps.virtuals, virtual_ids)
    else:
        targets = np.ones(len(deps.name_of), dtype=bool)
        virtual_edges = np.zeros(len(deps.hash), dtype=bool)
    if node.versions is not None:  # a provider of a virtual is held to the version too
        decided = np.fromiter(map(node.versions.contains, versions), dtype=bool, count=len(versions))
        version_ok = decided[deps.version_of]  # each distinct version decided once
        targets &= version_ok
        virtual_edges &= version_ok[deps.hash]
    if _constrains_more_than_name(node):  # variants, compiler, arch, hash: only binaries in the corpus tell
        matching = np.flatnonzero(node_mask(corpus, slice(0, corpus.n_specs), _without_name(node)))
        ids = _dep_ids_of_specs(corpus)[matching]
        in_corpus = np.zeros(len(deps.name_of), dtype=bool)
        in_corpus[ids[ids >= 0]] = True
        targets &= in_corpus
        virtual_edges &= in_corpus[deps.hash]
    reached = targets[deps.hash] | virtual_edges
    if query.deptypes:
        reached &= (deps.types & deptype_bits(query.deptypes)) > 0
    return reached


def _constrains_more_than_name(node: NodeQuery) -> bool:
    return bool(node.compilers or node.variants or node.arch or node.hash_prefix)


def _without_name(node: NodeQuery) -> NodeQuery:
    return NodeQuery(None, node.versions, node.compilers, node.variants, node.arch, node.hash_prefix)


def _dep_ids_of_specs(corpus: Corpus) -> np.ndarray:
    """Per spec, the id its hash has among dependency targets (-1 when nothing depends on it)."""
    found = corpus.memo.get("dep-ids-of-specs")
    if found is None:
        ids = corpus.vocab["dep_hash"].ids
        found = corpus.memo["dep-ids-of-specs"] = np.fromiter((ids.get(h, -1) for h in corpus.hashes),
                                                              dtype=np.int64, count=corpus.n_specs)
    return found  # type: ignore[return-value]
