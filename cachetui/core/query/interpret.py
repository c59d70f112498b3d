"""What the browser's query line asks for: where a spec query looks, and whether it names one binary.

A package named in the query's text belongs to that query only: the next query without a
name looks in the package opened from the list (or in every package), never in the one an
earlier query named.
"""

from __future__ import annotations

from dataclasses import dataclass

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query
from cachetui.core.query.resolve import resolve_package, unknown_hash
from cachetui.core.query.specmatch import hash_matches
from cachetui.core.spack.specquery import NodeQuery, SpecQuery


@dataclass(frozen=True)
class Interpretation:
    query: Query
    select: int | None = None  # the one binary a bare hash prefix names: open it


def interpret(corpus: Corpus, spec: SpecQuery, current: Query, opened: str | None) -> Interpretation:
    """The query for `spec`, keeping `current`'s filters; `opened` is the package opened from the list."""
    root = spec.root
    if root.name is not None:
        return Interpretation(Query(resolve_package(corpus, root.name), current.filters, spec, current.runs_on))
    if root.hash_prefix and not spec.dependencies and root == NodeQuery(hash_prefix=root.hash_prefix):
        hits = hash_matches(corpus, root.hash_prefix)
        if not len(hits):
            raise unknown_hash(root.hash_prefix)
        if len(hits) > 1:
            return Interpretation(Query(None, spec=spec))  # every candidate, whatever the filters
        return Interpretation(Query(corpus.packages[corpus.package_of[hits[0]]], spec=spec), int(hits[0]))
    return Interpretation(Query(opened, current.filters, spec, current.runs_on))
