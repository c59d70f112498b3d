"""A root of `--plan ENV` field by field, and what the copy menu offers for it.

Every line comes from the root's `RootPlan` (`plan()`, the rule `cachetui plan` prints): the chosen binary, its
closure, the missing records and failing dependencies of a `partly` root, every reason that excluded the nearest
binaries of a root to build, and its note. Text from the files is made inert here, once; the app draws it as plain
text.
"""

from __future__ import annotations

from dataclasses import dataclass

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.plan import BUILD, INCOMPLETE, RootPlan
from cachetui.core.query.spack_commands import install_command
from cachetui.core.spack.hashes import hash_reference
from cachetui.core.spack.words import counted
from cachetui.present.inert import inert

LABEL = 12  # cells a field's label takes


@dataclass(frozen=True, slots=True)
class DetailLine:
    label: str  # "" for a line under the one before
    value: str
    style: str = ""  # "heading", "dim", "bad", "hash"


def plan_detail(root: RootPlan, candidates_key: str = "n") -> tuple[DetailLine, ...]:
    """The root's lines: its spec and package, then what its status rests on (inert, every one)."""
    lines = [DetailLine("root", inert(root.spec), "heading"),
             DetailLine("package", inert(root.package) if root.package else "(not read)")]
    binary = root.binary
    if binary is not None:
        lines += [DetailLine("binary", inert(f"/{binary.hash}"), "hash"),
                  DetailLine("selected by", inert(binary.spec)),
                  DetailLine("tag", inert(binary.tag)),
                  DetailLine("closure", inert(root.closure)),
                  DetailLine("candidates", f"{root.candidates}  ({inert(candidates_key)}: in the spec table)")]
        if root.closure == INCOMPLETE and root.missing:
            lines.append(DetailLine("missing", counted(len(root.missing), "record") + " no source holds", "bad"))
            lines += [DetailLine("", inert(f"/{h}"), "hash") for h in root.missing]
        if root.failing_count:
            lines.append(DetailLine("failing", counted(root.failing_count, "dependency", "dependencies")
                                    + " failing its package's requirements", "bad"))
            for failing in root.failing:
                lines.append(DetailLine("", inert(f"{hash_reference(failing.hash)} {failing.spec}"), "hash"))
                lines.append(DetailLine("", inert(f"  excluded by {failing.excluded_by}"), "dim"))
            if root.failing_count > len(root.failing):
                lines.append(DetailLine("", f"and {root.failing_count - len(root.failing)} more", "dim"))
    elif root.status == BUILD:
        lines.append(DetailLine("candidates", "none: Spack builds it"))
        if root.why:
            lines.append(DetailLine("why", "the nearest binaries, and every reason each is excluded", "heading"))
        last = None
        for exclusion in root.why:
            if exclusion.hash != last:
                lines.append(DetailLine("", inert(f"{hash_reference(exclusion.hash)} {exclusion.spec}"), "hash"))
                last = exclusion.hash
            lines.append(DetailLine("", inert(f"  {exclusion.category}: {exclusion.excluded_by}"), "bad"))
    if root.note:
        lines.append(DetailLine("note", inert(root.note), "dim"))
    return tuple(lines)


def pinned_spec(corpus: Corpus, root: RootPlan) -> str | None:
    """`name@version/<full hash>`: the chosen binary as `--export` pins it; None without one."""
    binary = root.binary
    if binary is None or root.package is None:
        return None
    version = corpus.value("version", corpus.single["version"][binary.index])
    return inert(f"{root.package}@{version}/{binary.hash}")


def root_copy_choices(corpus: Corpus, root: RootPlan) -> list[tuple[str, str]]:
    """(what, exact text) for the copy menu: the pinned spec and the install line of the chosen binary."""
    pinned = pinned_spec(corpus, root)
    if pinned is None or root.binary is None:
        return []
    return [("pinned spec", pinned), ("install command", install_command(inert(root.binary.hash))),
            ("full hash", inert(root.binary.hash))]
