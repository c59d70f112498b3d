"""Abstract specs read together, as a spack.yaml's matrices read them: no binary is asked here.

- `combined`: a matrix row's parts (`hdf5 +mpi`, `%gcc@13`, `^openmpi`) as the one spec Spack makes of them by
  constraining the first with each of the others (`Spec.constrain`): the node's constraints gathered, the
  dependencies added;
- `implies`: whether every constraint of one spec is stated by another, as Spack's `satisfies` reads two abstract
  specs (what a matrix's `exclude:` asks of each row): a version range within the other's, the variant values,
  the architecture values and the compiler named there too.

What a binary satisfies is decided elsewhere, column by column (cachetui.core.query.specmatch).
"""

from __future__ import annotations

from dataclasses import replace

from cachetui.core.spack.compilers import canonical_compiler_name
from cachetui.core.spack.specquery import DependencyQuery, NodeQuery, SpecQuery
from cachetui.core.spack.targets import UnknownTarget, in_range
from cachetui.core.spack.versions import ExactVersion, VersionConstraint, VersionRange


class Incompatible(ValueError):
    """Parts that cannot be one spec: two names, or two version constraints on the node."""


def combined(parts: list[SpecQuery]) -> SpecQuery:
    """The parts constrained into one spec: the first part's node, then each other part's node constraints and
    dependencies (what a part names after `^` is a dependency, whatever part it is written in)."""
    root, dependencies = NodeQuery(), list[DependencyQuery]()
    for part in parts:
        root = _constrained(root, part.root)
        dependencies.extend(part.dependencies)
    return SpecQuery(root, tuple(dependencies))


def _constrained(node: NodeQuery, other: NodeQuery) -> NodeQuery:
    if node.name is not None and other.name is not None and node.name != other.name:
        raise Incompatible(f"names two packages: {node.name} and {other.name}")
    if node.versions is not None and other.versions is not None and node.versions != other.versions:
        raise Incompatible(f"two version constraints: @{node.versions} and @{other.versions}")
    if node.hash_prefix and other.hash_prefix and not _prefix_related(node.hash_prefix, other.hash_prefix):
        raise Incompatible(f"two hashes: /{node.hash_prefix} and /{other.hash_prefix}")
    return replace(
        node, name=node.name or other.name, versions=node.versions or other.versions,
        compilers=node.compilers + other.compilers, variants=node.variants + other.variants,
        arch=node.arch + other.arch,
        hash_prefix=max(node.hash_prefix or "", other.hash_prefix or "", key=len) or None,
    )


def _prefix_related(a: str, b: str) -> bool:
    return a.startswith(b) or b.startswith(a)


def implies(spec: SpecQuery, other: SpecQuery) -> bool:
    """Whether `spec` states every constraint of `other` (so every binary that is `spec` is `other`)."""
    if not _node_implies(spec.root, other.root):
        return False
    return all(any(_dependency_implies(mine, theirs) for mine in spec.dependencies) for theirs in other.dependencies)


def may_be(node: NodeQuery, other: NodeQuery) -> bool:
    """Whether `node` (an external's spec, which states little) could be `other`: nothing both state disagrees
    (its name, a version outside `other`'s, a variant set otherwise). What only one of them states never does."""
    if other.name is not None and node.name is not None and node.name != other.name:
        return False
    if other.versions is not None and node.versions is not None and \
            not versions_within(node.versions, other.versions):
        return False
    for variant in other.variants:
        for stated in (v for v in node.variants if v.name == variant.name):
            if variant.boolean or stated.boolean:
                if stated.values != variant.values:
                    return False
            elif not set(variant.values) <= set(stated.values):
                return False
    return True


def _dependency_implies(mine: DependencyQuery, theirs: DependencyQuery) -> bool:
    if theirs.deptypes and set(theirs.deptypes) != set(mine.deptypes):
        return False
    if theirs.virtuals and not set(theirs.virtuals) <= set(mine.virtuals):
        return False
    return _node_implies(mine.node, theirs.node)


def _node_implies(node: NodeQuery, other: NodeQuery) -> bool:
    if other.name is not None and node.name != other.name:
        return False
    if other.versions is not None and (node.versions is None or not versions_within(node.versions, other.versions)):
        return False
    if other.hash_prefix and not (node.hash_prefix or "").startswith(other.hash_prefix):
        return False
    for variant in other.variants:
        alike = [v for v in node.variants if v.name == variant.name]
        if variant.boolean or any(v.boolean for v in alike):
            if not any(v.values == variant.values for v in alike):
                return False
        elif not any(set(variant.values) <= set(v.values) and (v.exact or not variant.exact) for v in alike):
            return False
    for arch in other.arch:
        if not any(a.key == arch.key and all(_arch_within(a.key, value, arch.values) for value in a.values)
                   for a in node.arch):
            return False
    for compiler in other.compilers:
        name = canonical_compiler_name(compiler.name)
        same = [c for c in node.compilers if canonical_compiler_name(c.name) == name]
        if not any(compiler.versions is None or (c.versions is not None and versions_within(c.versions,
                                                                                            compiler.versions))
                   for c in same):
            return False
    return True


def _arch_within(key: str, value: str, allowed: tuple[str, ...]) -> bool:
    """Whether `value` is one of `allowed`, a target also when it lies in a range of them (`x86_64:` holds zen4)."""
    if value in allowed:
        return True
    if key != "target" or ":" in value:
        return False
    for bound in allowed:
        if ":" in bound:
            lo, hi = bound.split(":", 1)
            try:
                if in_range(value, lo or None, hi or None):
                    return True
            except UnknownTarget:
                continue
    return False


def versions_within(inner: VersionConstraint, outer: VersionConstraint) -> bool:
    """Whether every version `inner` allows is one `outer` allows (ranges compared by their bounds)."""
    return all(any(_part_within(part, bound) for bound in outer.parts) for part in inner.parts)


def _part_within(part: VersionRange | ExactVersion, bound: VersionRange | ExactVersion) -> bool:
    if isinstance(part, ExactVersion):
        return bound.contains(part.text.removeprefix("="))
    if isinstance(bound, ExactVersion):
        return False  # a range holds more than one exact version
    return bound.lo <= part.lo and part.hi <= bound.hi

