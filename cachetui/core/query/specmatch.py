"""Which binaries satisfy a spec query, the way Spack reads constraints on a concrete spec.

- a name is that package (one that is not in the corpus is an error naming the near ones);
- `@1.2` is 1.2 to 1.2.x, `@1.2:1.4` includes 1.4.x, `@=1.2` is exactly 1.2;
- `%gcc@13` is the compiler gcc 13 to 13.x; old and new names are one compiler
  (`oneapi` and `intel-oneapi-compilers`); `%c,cxx=gcc` is gcc for those languages;
- `+x`/`~x` need the variant on/off; `k=a,b` needs at least those values, `k:=a,b` exactly those;
- `platform=`, `os=`, `target=` take any of their values; a target range `lo:hi` holds the
  microarchitectures between (archspec);
- `/abc` is every binary whose hash starts with abc;
- `^dep@v` needs dep (or a provider of the virtual dep) somewhere among the dependencies, along
  every edge the indexes record, through records held without their binary too; only mirror
  indexes record dependencies, so on site documents alone it is an error, and beside a mirror
  it is unknown for the site documents' binaries, and said so (cachetui.core.query.unrecorded);
- what follows `%gcc` is gcc's own (Spack 1.x), which caches do not record: the parser refuses it.

Every value resolves through cachetui.core.query.resolve, in the package the query names (else the
one open, else the corpus): a value that names nothing there is an error with the near ones.

Each constraint is decided once per distinct value (a version, a compiler, a target) and
applied to the scope with numpy, so a query costs little even over 500k specs.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.dependencies import node_graph
from cachetui.core.model.recent import Recent
from cachetui.core.query.masks import facet_mask
from cachetui.core.query.resolve import (
    QueryProblem,
    Scope,
    UnknownValue,
    nearest_versions,
    resolve_arch,
    resolve_compiler,
    resolve_package,
    resolve_variant,
    resolve_versions,
    unknown_hash,
)
from cachetui.core.spack.deptypes import deptype_bits
from cachetui.core.spack.specquery import DependencyQuery, NodeQuery, SpecQuery, VariantTerm
from cachetui.core.spack.targets import runs_on
from cachetui.core.spack.words import echo

# Dependency masks kept per corpus (a bool per spec: 120 KB each on the 120,000-record mirror).
DEPENDENCY_MASKS_KEPT = 32

Part = tuple[str, np.ndarray]  # a constraint as typed (spec syntax) and its mask over the scope


class NoDependencyData(QueryProblem):
    """`^` asked of a corpus whose sources record no dependencies."""


def spec_parts(corpus: Corpus, scope: slice, query: SpecQuery, package: str | None = None) -> list[Part]:
    """Each constraint of the query with its mask over the scope, in the order a user reads the query.

    Values resolve in the package the query names, else in `package` (the one open), else the corpus.
    """
    return root_parts(corpus, scope, query, package) + dependency_parts(corpus, scope, query)


def root_parts(corpus: Corpus, scope: slice, query: SpecQuery, package: str | None = None) -> list[Part]:
    """The constraints on the binary itself (all but its `^` dependencies): see spec_parts."""
    root = query.root
    if root.name is not None:
        resolve_package(corpus, root.name)
    return node_parts(corpus, scope, root, Scope(corpus, root.name or package))


def dependency_parts(corpus: Corpus, scope: slice, query: SpecQuery) -> list[Part]:
    """The `^` constraints. A binary whose source records no dependencies matches none of them: for it
    they are unknown (cachetui.core.query.unrecorded says so), not false."""
    return [(str(dependency), _dependency_mask(corpus, dependency)[scope]) for dependency in query.dependencies]


def node_parts(corpus: Corpus, scope: slice, node: NodeQuery, resolution: Scope) -> list[Part]:
    parts: list[Part] = []
    if node.name is not None:
        start, stop = corpus.package_ranges[corpus.package_index[node.name]]
        parts.append((node.name, _range_mask(scope, start, stop)))
    if node.versions is not None:
        versions = resolve_versions(resolution, node.versions)
        parts.append((f"@{node.versions}", facet_mask(corpus, scope, "version", versions)))
    for variant in node.variants:
        parts.append((str(variant), _variant_mask(corpus, scope, variant, resolution)))
    for arch in node.arch:
        satisfies = resolve_arch(resolution, arch.key, arch.values)
        parts.append((str(arch), _values_mask(corpus, scope, arch.key, satisfies)))
    if node.hash_prefix:
        if not len(hash_matches(corpus, node.hash_prefix)):
            raise unknown_hash(node.hash_prefix)
        parts.append((f"/{node.hash_prefix}", _hash_mask(corpus, scope, node.hash_prefix)))
    for compiler in node.compilers:
        compilers = resolve_compiler(resolution, compiler.name, compiler.versions)
        parts.append((str(compiler), facet_mask(corpus, scope, "compiler", compilers)))
    return parts


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


def _variant_mask(corpus: Corpus, scope: slice, term: VariantTerm, resolution: Scope) -> np.ndarray:
    atoms = resolve_variant(resolution, term.name, term.values, term.boolean)
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
    def compute() -> tuple[np.ndarray, list[str]]:
        order = sorted(range(corpus.n_specs), key=corpus.hashes.__getitem__)
        return np.asarray(order, dtype=np.int64), [corpus.hashes[i] for i in order]

    return corpus.memoised("sorted-hashes", compute)


def hash_matches(corpus: Corpus, prefix: str) -> np.ndarray:
    """Indices of every spec whose hash starts with `prefix`, across the whole corpus."""
    return np.flatnonzero(_hash_mask(corpus, slice(0, corpus.n_specs), prefix))


# -- dependencies -------------------------------------------------------------------------------------


def _dependency_mask(corpus: Corpus, query: DependencyQuery) -> np.ndarray:
    """Over all specs: those with a dependency, at any depth, that satisfies the node (kept per query).

    Every edge the indexes record counts, build edges included and through records held without
    their binary, as Spack's `satisfies` reads `^` on a concrete DAG. It does not depend on the
    scope, and a query's answer and its facet counts ask for it alike. The last masks asked for
    are kept, not all: typing `^zlib` asks for one at each pause, a byte per spec each.
    """
    masks = corpus.memoised("dependency-masks", lambda: Recent[DependencyQuery, np.ndarray](DEPENDENCY_MASKS_KEPT))
    return masks.get(query, lambda: _compute_dependency_mask(corpus, query))


def _compute_dependency_mask(corpus: Corpus, query: DependencyQuery) -> np.ndarray:
    if not corpus.has_dependencies:
        raise NoDependencyData("'^' needs dependency data: site documents record none (mirror indexes do)")
    graph = node_graph(corpus)
    return graph.dependents_of(_edges_to(corpus, query))[graph.node_of_spec]


def _edges_to(corpus: Corpus, query: DependencyQuery) -> np.ndarray:
    """Edges (bool over the graph's edges) that reach a node satisfying the query, through the allowed deptypes."""
    d, node, graph = corpus.deps, query.node, node_graph(corpus)
    vocab = corpus.vocab
    if node.name is not None:
        virtual_ids = [i for i, v in enumerate(vocab["dep_virtuals"].values) if node.name in v.split(",")]
        targets = d.name_of == vocab["dep_name"].ids.get(node.name, -1)
        if not targets.any() and not virtual_ids:
            raise UnknownValue("dependency", node.name, set(vocab["dep_name"].values) - {""})
        virtual_edges = np.isin(graph.virtuals, virtual_ids)
    else:
        targets = np.ones(len(d.name_of), dtype=bool)
        virtual_edges = np.zeros(len(graph.target), dtype=bool)
    if node.versions is not None:  # a provider of a virtual is held to the version too
        versions = vocab["dep_version"].values
        decided = np.fromiter(map(node.versions.contains, versions), dtype=bool, count=len(versions))
        version_ok = decided[d.version_of]  # each distinct version decided once
        _check_dependency_versions(corpus, node, targets, version_ok)
        targets &= version_ok
        virtual_edges &= version_ok[graph.target]
    if _constrains_more_than_name(node):  # variants, compiler, arch, hash: only binaries in the corpus tell
        resolution = Scope(corpus, node.name if node.name in corpus.package_index else None)
        matching = np.ones(corpus.n_specs, dtype=bool)
        for _, part in node_parts(corpus, slice(0, corpus.n_specs), _without_name(node), resolution):
            matching &= part
        nodes = graph.node_of_spec[matching]
        in_corpus = np.zeros(len(d.name_of), dtype=bool)
        in_corpus[nodes[nodes < len(d.name_of)]] = True
        targets &= in_corpus
        virtual_edges &= in_corpus[graph.target]
    reached = targets[graph.target] | virtual_edges
    if query.deptypes:
        reached &= (graph.types & deptype_bits(query.deptypes)) > 0
    return reached


def _check_dependency_versions(corpus: Corpus, node: NodeQuery, named: np.ndarray, version_ok: np.ndarray) -> None:
    """`^zlib@9` where no zlib the indexes name is 9: say so, with the versions they do name."""
    if node.name is None or (named & version_ok).any() or not named.any():
        return
    versions = corpus.vocab["dep_version"].values
    known_versions = {versions[i] for i in np.unique(corpus.deps.version_of[named]).tolist()} - {""}
    raise UnknownValue("version", str(node.versions), known_versions,
                       f"no {echo(node.name)} dependency satisfies @{echo(str(node.versions))}",
                       nearest_versions(str(node.versions), known_versions))


def _constrains_more_than_name(node: NodeQuery) -> bool:
    return bool(node.compilers or node.variants or node.arch or node.hash_prefix)


def _without_name(node: NodeQuery) -> NodeQuery:
    return replace(node, name=None)
