"""Which binaries `spack install --use-buildcache only` can fetch: their whole link/run closure is held.

A binary whose link or run dependencies (at any depth) include a record that no loaded source
holds cannot be installed from the cache alone: Spack would build that record from source, or
fail with `--use-buildcache only`. Build edges aside (they are not installed); externals count
as held (Spack uses them where they are); a record held by another loaded mirror counts as held.
Site documents record no dependencies, so their binaries are "unknown", never "yes".

Computed once per load over the whole DAG in numpy (cachetui.core.model.dependencies.NodeGraph):
a walk up link/run edges from every missing record marks what needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# numpy and the graph are imported by the column's first computation: the registry (fields.py) names the column
# and its values for the settings, which the browser reads before its first frame, numpy unloaded.
if TYPE_CHECKING:
    import numpy as np

    from cachetui.core.model.corpus import Corpus

YES, NO, UNKNOWN = "yes", "no", "unknown"
VALUES = (YES, NO, UNKNOWN)  # vocabulary order: the column's ids


def installable_column(corpus: Corpus) -> np.ndarray:
    """Per spec, the id of YES, NO or UNKNOWN in VALUES."""
    import numpy as np

    from cachetui.core.model.dependencies import RUNTIME, node_graph

    column = np.full(corpus.n_specs, VALUES.index(UNKNOWN), dtype=np.int32)
    known = corpus.dependencies_recorded
    if not known.any():
        return column
    graph = node_graph(corpus)
    n_ids = len(corpus.deps.name_of)
    external = np.zeros(graph.n_nodes, dtype=bool)
    external[:n_ids] = corpus.deps.external
    missing = ~graph.held & ~external
    runtime = (graph.types & RUNTIME) > 0
    through = runtime & ~external[graph.source]  # an external's own dependencies are not installed
    needs = graph.dependents_of(through & missing[graph.target], through)
    column[known] = np.where(needs[graph.node_of_spec[known]], VALUES.index(NO), VALUES.index(YES))
    return column
