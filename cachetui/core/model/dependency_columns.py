"""Dependency edges of every spec, kept compactly: CSR arrays, not objects per spec.

Spec i's edges are rows offsets[i]:offsets[i+1] of five parallel columns (name, hash,
version and virtuals as ids into vocabularies, deptypes as bits). A whole-site mirror has
millions of edges; as int32/uint8 columns they cost a few bytes each.

The columns alone, which a corpus holds: their builder and the walks over a corpus's DAG
(cachetui.core.model.dependencies) sit above the corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cachetui.core.model.arrays import BitsArray, BoolArray, IdArray, IndexArray, owners


@dataclass(slots=True)
class DependencyColumns:
    offsets: IndexArray  # n_specs + 1
    hash: IdArray  # ids into vocab["dep_hash"]
    types: BitsArray  # deptype bits
    virtuals: IdArray  # ids into vocab["dep_virtuals"]
    name_of: IdArray  # per dep_hash id: its id in vocab["dep_name"]
    version_of: IdArray  # per dep_hash id: its id in vocab["dep_version"]
    # Records an index holds without their binary, by dep_hash id: their own edges (CSR), so a walk
    # goes through them as Spack's DAG does; and which dependencies are externals.
    unheld_offsets: IndexArray  # len(name_of) + 1
    unheld_hash: IdArray  # ids into vocab["dep_hash"]
    unheld_types: BitsArray
    unheld_virtuals: IdArray  # ids into vocab["dep_virtuals"]
    external: BoolArray  # per dep_hash id

    def rows(self, spec: int) -> range:
        return range(int(self.offsets[spec]), int(self.offsets[spec + 1]))

    def unheld_rows(self, hash_id: int) -> range:
        """The edges of an unheld record (empty for a binary, or a hash no index has a record of)."""
        return range(int(self.unheld_offsets[hash_id]), int(self.unheld_offsets[hash_id + 1]))

    def owners(self) -> IdArray:
        """The spec each edge belongs to."""
        return owners(np.diff(self.offsets))
