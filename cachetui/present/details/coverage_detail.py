"""A wanted node beside its nearest binary, field by field, and what the copy menu offers for it.

Which lines differ, and what each side says there, is exactly the differences `coverage()` found (the
rule `cachetui coverage` prints): the other lines only show each side's own value for context. Text from
the files is made inert here, once; the app draws it as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.records import build_provenance_parts
from cachetui.core.model.wanted import LINK_RUN, WantedNode
from cachetui.core.query.common import common_to
from cachetui.core.query.coverage import HIT, Coverage, Difference, NodeCoverage, reference
from cachetui.core.query.spack_commands import install_command
from cachetui.core.spack.hashes import hash_reference, is_base32
from cachetui.core.spack.variants import atom_name, canonical_variant
from cachetui.present.inert import inert
from cachetui.present.output.coverage_output import UNKNOWN


@dataclass(frozen=True, slots=True)
class Compared:
    """One field of the wanted node and of the binary; `difference` is coverage's, when they differ."""

    label: str
    wanted: str
    cached: str  # UNKNOWN when the source cannot tell
    difference: Difference | None = None


@dataclass(frozen=True)
class NodeDetail:
    node: NodeCoverage
    spec: str  # `name@version /hash7`
    binary: int | None  # the corpus index a key jumps to: the held binary of a hit, else the nearest
    binary_title: str  # `/hash7 in TAG`, "" without a binary
    lines: tuple[Compared, ...]

    @property
    def differences(self) -> tuple[Difference, ...]:
        return tuple(line.difference for line in self.lines if line.difference is not None)


def node_detail(corpus: Corpus, found: Coverage, node: NodeCoverage) -> NodeDetail:
    wanted = found.wanted.nodes[node.hash]
    spec = inert(f"{node.package}@{node.version} {hash_reference(node.hash)}")
    nearest = node.nearest
    if nearest is None:
        held = corpus.occurrences(node.hash) if node.status == HIT else []
        binary = held[0] if held else None
        title = inert(f"{hash_reference(node.hash)} in {', '.join(node.tags)}") if binary is not None else ""
        return NodeDetail(node, spec, binary, title, tuple(line for _, line in _fields(found, wanted, None)))
    lines = _fields(found, wanted, _binary_fields(corpus, nearest.index))
    by_key = {(d.category, d.name): d for d in nearest.differences}
    # a dependency built as an external on one side only is one `external` difference on its `^name` line
    shown = [_with_difference(line, by_key.pop((category, name), None)
                              or (by_key.pop(("external", name), None) if category == "depends_on" else None))
             for (category, name), line in lines]
    # a difference no field line names still shows, as its own line: every difference is said
    shown += [_with_difference(Compared(_label(d.category, d.name), "", ""), d) for d in by_key.values()]
    return NodeDetail(node, spec, nearest.index, inert(f"{hash_reference(nearest.hash)} in {nearest.tag}"),
                      tuple(shown))


Key = tuple[str, "str | None"]  # a difference's (category, name)
Fields = dict[Key, tuple[str, str]]  # (label, value)


def _with_difference(line: Compared, found: Difference | None) -> Compared:
    if found is None:
        return line
    cached = UNKNOWN if found.cached is None else inert(found.cached) or "(none)"
    return Compared(line.label, inert(found.wanted or "") or "(none)", cached, found)


def _label(category: str, name: str | None) -> str:
    return inert(name) if name else category.removeprefix("node_").replace("_", " ")


def _node_fields(version: str, compiler: str, arch: tuple[str, str, str], variants: tuple[str, ...],
                 provenance: tuple[str, str, tuple[str, ...]] | None, dependencies: dict[str, str]) -> Fields:
    found: Fields = {("version", None): ("version", version), ("node_compiler_version", None): ("compiler", compiler)}
    for category, value in zip(("node_platform", "node_os", "node_target"), arch):
        found[category, None] = (_label(category, None), value)
    named = {atom_name(canonical_variant(v)): v for v in variants}
    found |= {("variant_value", name): (name, v) for name, v in named.items()}
    if provenance is not None:
        found |= {("node_flag", atom_name(f)): (atom_name(f), f) for f in provenance[2]}
    found |= {("depends_on", name): (f"^{name}", ref) for name, ref in dependencies.items()}
    if provenance is not None:
        found[("package_hash", None)] = ("package hash", provenance[0])
        found[("namespace", None)] = ("namespace", provenance[1])
    return found


def _fields(found: Coverage, node: WantedNode, binary: Fields | None) -> list[tuple[Key, Compared]]:
    """Each field of either side, in the wanted side's order, then the binary's own."""
    nodes = found.wanted.nodes
    dependencies = {e.name: reference(e.name, nodes[e.hash].version if e.hash in nodes else "", e.hash)
                    for e in node.dependencies}
    ours = _node_fields(node.version, node.compiler, (node.platform, node.os, node.target), node.variants,
                        build_provenance_parts(node.build_provenance), dependencies)
    theirs = binary if binary is not None else {}
    keys = [*ours, *(k for k in theirs if k not in ours)]
    return [(k, Compared(inert((ours.get(k) or theirs[k])[0]), inert(ours[k][1]) if k in ours else "",
                         (inert(theirs[k][1]) if k in theirs else "") if binary is not None else ""))
            for k in keys]


def _binary_fields(corpus: Corpus, i: int) -> Fields:
    spec = corpus.spec(i)
    dependencies = {d.name: reference(d.name, d.version, d.hash) for d in corpus.dependencies(i)
                    if d.deptypes & LINK_RUN}
    return _node_fields(spec.version, spec.compiler, (spec.platform, spec.os, spec.target), corpus.raw_variants(i),
                        corpus.build_provenance_of(i), dependencies)


def node_copy_choices(corpus: Corpus, detail: NodeDetail) -> list[tuple[str, str]]:
    """(what, exact text) for the copy menu: the wanted hash; a hit's install line; for a binary that is near,
    the line installing it and the spec that selects it (`name@version +variants arch=… %compiler`, and
    `^dependency@version/hash` for each dependency it differs in, the binary's own)."""
    choices = [("wanted hash", inert(detail.node.hash))]
    if detail.binary is None:
        return choices
    binary = inert(corpus.hashes[detail.binary])
    if detail.node.status == HIT:
        return [*choices, ("install command", install_command(binary))]
    # `^` after the compiler: Spack attaches a `^` node to the root wherever it stands, and reads what follows
    # `%gcc` up to it as the compiler's
    spec = " ".join([inert(common_to(corpus, np.array([detail.binary])).spec_syntax()),
                     *_selecting_dependencies(corpus, detail.binary, detail.differences)])
    return [*choices, ("install the nearest binary", install_command(binary)), ("spec of the nearest binary", spec)]


def _selecting_dependencies(corpus: Corpus, binary: int, differences: tuple[Difference, ...]) -> list[str]:
    """`^name@version/hash` for each link or run dependency of `binary` that a difference names (another binary
    of it, or one built where the wanted side has an external): a spec without it could select another binary."""
    named = {d.name for d in differences if d.category in ("depends_on", "external") and d.name}
    found = []
    for dependency in sorted(corpus.dependencies(binary)):
        if dependency.name in named and dependency.deptypes & LINK_RUN:
            version = f"@{dependency.version}" if dependency.version else ""
            hash_ = f"/{dependency.hash}" if is_base32(dependency.hash) else ""  # never text a spec cannot hold
            found.append(inert(f"^{dependency.name}{version}{hash_}"))
    return found
