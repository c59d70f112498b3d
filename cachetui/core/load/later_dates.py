"""Push dates looked up after the load rather than beside it: how the browser dates a mirror it reads cold.

Dating a local mirror is one `stat` per binary (`sources.push_dates`). Beside the index's decoding the walk runs on
the other core, and on a machine of few shared cores that slows the decoding by about what the walk costs. So the
browser shows the corpus first (`pipeline.load_dating_later`) and dates it after, step by step:

- `read`, in a worker thread: the walks (a large mirror's in a process of its own, as at a load; killed when the
  dates are no longer wanted), and the corpus's push-date column with those dates in;
- `apply`, on the screen's thread: the column put in, and the Pushed facet worked out again;
- `store`, in the worker: the warm cache file written again, with the dates. The load wrote it with the mirror
  marked as left to date (`Snapshot.undated`): a browser that quits before the dates are in starts warm next time
  and dates the mirror then; a command reads such a mirror again, dates and all, rather than answer without them.

Until `apply`, the mirror's binaries read as of unknown date, and the browser says the dates are being read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cachetui.core.load.sources.push_dates import PendingDates, PushDates, RecordStore
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.moment import at_load
from cachetui.core.model.problems import Problem
from cachetui.core.model.records import UNKNOWN_PUSHED

# Writes the warm cache file of a corpus: with, per group key, the problems its dating found, and leaving out the
# groups whose dates failed for a reason that may pass (the next load reads those again, as at a load).
CacheWrite = Callable[[Corpus, dict[str, list[Problem]], set[str]], None]


@dataclass(frozen=True)
class Undated:
    """A mirror read without its push dates: where they are, and the documents (by path) they date."""

    key: str  # the group's key, as the warm cache knows it
    stores: tuple[RecordStore, ...]
    paths: frozenset[str]


@dataclass(frozen=True)
class Dated:
    """What `LaterDates.read` found: the corpus's new push-date column, and each mirror's dates and problems."""

    column: np.ndarray
    found: tuple[PushDates, ...]


@dataclass(frozen=True)
class LaterDates:
    """The push dates a load left to look up after it (see the module's steps)."""

    undated: tuple[Undated, ...]
    timeout: float
    write: CacheWrite | None = None  # None: no warm cache for this load

    def read(self, corpus: Corpus, cancelled: Callable[[], bool] = lambda: False) -> Dated | None:
        """Each undated mirror's dates (slow: a walk of its records), and the corpus's push-date column with them
        in, a new array: the corpus itself is not changed. None once `cancelled()` (a browser quitting, or loading
        again) says they are no longer wanted."""
        found: list[PushDates] = []
        for group in self.undated:
            dates = PendingDates(list(group.stores), self.timeout).result_unless(cancelled)
            if dates is None:
                return None
            found.append(dates)
        pushed = np.array(corpus.pushed, dtype=np.int64) if len(corpus.pushed) else \
            np.full(corpus.n_specs, UNKNOWN_PUSHED, dtype=np.int64)
        dates_of = {path: dates.dates.get for group, dates in zip(self.undated, found) if dates.dates
                    for path in group.paths}  # each undated document's path -> its mirror's dates
        for document in corpus.documents if dates_of else ():
            dated = dates_of.get(document.path)
            if dated is not None and document.stop > document.start:
                hashes = corpus.hashes[document.start:document.stop]
                pushed[document.start:document.stop] = np.fromiter(
                    (dated(hash_, UNKNOWN_PUSHED) for hash_ in hashes), dtype=np.int64, count=len(hashes))
        return Dated(pushed, tuple(found))

    def apply(self, corpus: Corpus, dated: Dated) -> None:
        """The column `read` made put in the corpus, the facets of the moment of its load worked out again, and
        what the dating found said with the load's problems."""
        corpus.with_pushed(dated.column)
        at_load(corpus, corpus.loaded_at)
        for dates in dated.found:
            corpus.report.extend(dates.problems)

    def store(self, corpus: Corpus, dated: Dated) -> None:
        """The warm cache file of the dated corpus, when the load had a cache."""
        if self.write is None:
            return
        problems = {group.key: list(dates.problems) for group, dates in zip(self.undated, dated.found)}
        self.write(corpus, problems, {group.key for group, dates in zip(self.undated, dated.found) if dates.passing})
