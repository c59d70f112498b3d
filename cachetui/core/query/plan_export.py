"""A plan as an environment to hand to Spack: the same `spack:` mapping, its roots pinned where a binary serves them.

- `specs:` is a flat list, one string per root (matrices and definitions expanded, so `definitions:` goes): a
  `cached` or `partly` root is pinned to its binary, `name@version/<full hash>`; the others stay as written;
- `mirrors:` are the mirrors holding the chosen binaries, named and located as `spack mirror add` takes them
  (cachetui.core.query.spack_commands.mirror_of: never with credentials), in place of the environment's own;
- `concretizer: reuse: true` (the rest of `concretizer:` kept); `include:` paths made absolute, so the file reads
  the same configuration wherever it is written.

Everything else of the environment is kept as read (its comments are not: YAML as data has none).
"""

from __future__ import annotations

import copy
from typing import Any

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.plan import CACHED, PARTLY, Plan, RootPlan
from cachetui.core.query.spack_commands import mirror_of


def pinned(root: RootPlan, corpus: Corpus, parts: tuple[str, ...] = ()) -> str:
    """`zlib@1.3.1/abcdefghijklmnopqrstuvwxyz234567` for a root a binary serves; else the root as one string
    Spack 1.x reads as the parts it was made of (`parts`: a matrix row's)."""
    if root.status not in (CACHED, PARTLY) or root.binary is None or root.package is None:
        return one_string(parts) if parts else root.spec
    version = corpus.value("version", corpus.single["version"][root.binary.index])
    return f"{root.package}@{version}/{root.binary.hash}"


def one_string(parts: tuple[str, ...]) -> str:
    """A matrix row's parts as one spec string that means what the parts mean: Spack constrains the root with
    each part, but in one string what follows `%gcc` or `^dep` is that node's (`libelf %gcc target=x` gives gcc
    the target). So the root's own parts come first, then the compilers, then the dependencies."""
    def rank(part: str) -> int:
        return 1 if part.startswith("%") else 2 if part.startswith("^") else 0
    return " ".join(sorted(parts, key=rank))


def exported(found: Plan, corpus: Corpus) -> tuple[dict[str, Any], list[str]]:
    """The environment to write (`{"spack": {...}}`), and what could not be written as asked (a binary whose
    mirror is not known: read through an index of indexes that has no whole-tag index)."""
    original = {str(key): value for key, value in found.environment.document.items()}
    body: dict[str, Any] = {}
    mirrors: dict[str, str] = {}
    unplaced = []
    for root in found.roots:
        if root.status in (CACHED, PARTLY) and root.binary is not None:
            document = corpus.documents[corpus.document_of[root.binary.index]]
            origin = mirror_of(document, corpus.origins)
            if origin is None:
                unplaced.append(f"{root.spec}: the mirror holding /{root.binary.hash} is not known; add it yourself")
            else:
                mirrors.setdefault(origin.name, origin.url)
    specs = [pinned(root, corpus, parts) for root, parts in zip(found.roots, _parts(found))]
    written = set()
    for key, value in original.items():
        bare = key.removesuffix(":")
        if bare == "specs":
            body[key] = specs
        elif bare == "mirrors":
            body[key] = mirrors
        elif bare == "include" and found.environment.includes:
            body[key] = copy.deepcopy(list(found.environment.includes))
        elif bare == "concretizer":
            kept = {k: copy.deepcopy(v) for k, v in value.items() if str(k).removesuffix(":") != "reuse"} \
                if isinstance(value, dict) else {}
            body[key] = {**kept, "reuse": True}
        elif bare != "definitions":
            body[key] = copy.deepcopy(value)
        written.add(bare)
    if "specs" not in written:
        body["specs"] = specs
    if "mirrors" not in written and mirrors:
        body["mirrors"] = mirrors
    if "concretizer" not in written:
        body["concretizer"] = {"reuse": True}
    return {"spack": body}, unplaced


def _parts(found: Plan) -> list[tuple[str, ...]]:
    """Each root's parts, as the environment's roots list them (the plan keeps one root per environment root)."""
    roots = found.environment.roots
    return [root.parts for root in roots] if len(roots) == len(found.roots) else [() for _ in found.roots]
