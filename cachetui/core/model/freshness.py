"""When each binary was pushed, and what is new since the user last looked: facets of the moment of the load.

Both facets are relative to the load (`Corpus.loaded_at`, `Corpus.new`), not to the documents alone: a warm
start's cached column would say yesterday's "last day". So they are worked out again at every load, warm or
cold (`cachetui.core.model.moment.at_load`, which the load pipeline calls as it finishes), and the CLI and the
browser of one load agree.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

from cachetui.core.model.records import UNKNOWN_PUSHED

# numpy is imported by the columns' computation: the registry (fields.py) names these columns and their values for
# the settings, which the browser reads before its first frame, numpy unloaded.
if TYPE_CHECKING:
    import numpy as np

    from cachetui.core.model.corpus import Corpus

DAY = 24 * 60 * 60
LAST_DAY, LAST_WEEK, LAST_MONTH, OLDER, UNKNOWN = "last day", "last week", "last month", "older", "unknown"
PUSHED_VALUES = (LAST_DAY, LAST_WEEK, LAST_MONTH, OLDER, UNKNOWN)  # vocabulary order: the column's ids
# The end of each window, in days before the load; a spec falls in the first that holds it.
_WINDOWS = ((LAST_DAY, 1), (LAST_WEEK, 7), (LAST_MONTH, 30))

NEW, SEEN = "new", "seen before"
SINCE_VALUES = (NEW, SEEN)


def pushed_column(corpus: Corpus) -> np.ndarray:
    """Per spec, the id in PUSHED_VALUES of how long before `corpus.loaded_at` it was pushed.

    A push after the load (a clock ahead of ours) counts as the last day: it is as new as anything can be.
    """
    import numpy as np

    column = np.full(corpus.n_specs, PUSHED_VALUES.index(UNKNOWN), dtype=np.int32)
    if not len(corpus.pushed):
        return column
    known = corpus.pushed != UNKNOWN_PUSHED
    age = corpus.loaded_at - corpus.pushed
    column[known] = PUSHED_VALUES.index(OLDER)
    for value, days in reversed(_WINDOWS):  # the narrowest window last: it wins
        column[known & (age <= days * DAY)] = PUSHED_VALUES.index(value)
    return column


def since_column(corpus: Corpus) -> np.ndarray:
    """Per spec, the id in SINCE_VALUES of whether it is new since the user last looked (`corpus.new`)."""
    import numpy as np

    column = np.full(corpus.n_specs, SINCE_VALUES.index(SEEN), dtype=np.int32)
    if len(corpus.new):
        column[np.asarray(corpus.new, dtype=bool)] = SINCE_VALUES.index(NEW)
    return column


def iso_utc(when: int | None) -> str | None:
    """`2026-11-20T14:03:00Z`, as JSON and CSV say a moment; None when unknown."""
    moment = _utc(when)
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def minute_utc(when: int) -> str:
    """`2026-11-20 14:03`, in UTC: what a table cell and the details say of a moment (`-` past year 9999)."""
    moment = _utc(when)
    return "-" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


def _utc(when: int | None) -> datetime | None:
    """The moment in UTC; None when unknown, or beyond what a date can say (storage is others' data)."""
    if when is None:
        return None
    try:
        return datetime.fromtimestamp(when, timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
