"""A row's siblings: the rows of its package in the same answer, and what they all share.

Over every package the answer's common part is nearly empty, so "what is not common" would list
a row's every variant; what a reader needs is what tells the row from the other binaries of its
package. So the differs cell of the all-packages view is worked out per package, from what that
package's rows share (worked out when a row of it is first asked about).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

import numpy as np

from cachetui.core.query.common import Common, common_to
from cachetui.present.spec_table.table_cells import SpecRows, differing_variants

T = TypeVar("T")


class Siblings:
    """Per row, its variants that not all of its siblings share (name -> as its cell shows it)."""

    def __init__(self, rows: SpecRows) -> None:
        self.rows = rows
        self._one_package = rows.package is not None or rows.common.package is not None or not len(rows.indices)
        self._sorted: np.ndarray | None = None  # the answer's rows in corpus order: a package's rows are a run
        self._commons: dict[int, Common] = {}
        self._memo: dict[Hashable, Any] = {}

    def common(self, spec: int) -> Common:
        """What every row of `spec`'s package in the answer shares."""
        if self._one_package:
            return self.rows.common
        package = int(self.rows.corpus.package_of[spec])
        if package not in self._commons:
            self._commons[package] = common_to(self.rows.corpus, self.members(spec))
        return self._commons[package]

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """What `compute` gives, worked out once per answer (what a row's key needs at any layout)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])

    def members(self, spec: int) -> np.ndarray:
        """The answer's rows of `spec`'s package (itself among them), in corpus order."""
        if self._sorted is None:
            self._sorted = np.sort(self.rows.indices)
        start, stop = self.rows.corpus.package_ranges[int(self.rows.corpus.package_of[spec])]
        lo, hi = np.searchsorted(self._sorted, [start, stop])
        return self._sorted[lo:hi]

    def variants(self, spec: int) -> dict[str, str]:
        """`spec`'s variants that not every row of its package in the answer has alike."""
        return differing_variants(self.common(spec), self.rows.corpus.raw_variants(spec))
