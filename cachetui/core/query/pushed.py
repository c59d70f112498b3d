"""Binaries pushed since a moment (inclusive) or before one (exclusive): one rule for `query` and the browser.

A moment is typed as a date (`2026-11-20`: its midnight) or in ISO 8601 (`2026-11-20T14:03`, `…Z`, `…+02:00`),
read in UTC unless it carries an offset. A binary whose storage does not say when it was pushed matches
neither bound: unknown is not "before" anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.freshness import minute_utc
from cachetui.core.model.records import UNKNOWN_PUSHED
from cachetui.core.spack.words import echo

EXAMPLES = "2026-11-20, 2026-11-20T14:03, 2026-11-20T14:03Z or 2026-11-20T14:03+02:00 (UTC unless an offset is given)"


class MalformedMoment(ValueError):
    """Typed text that is no date nor ISO 8601 moment; the message shows what is accepted."""


def parse_moment(text: str) -> int:
    """Seconds since the epoch of a typed date or ISO 8601 moment (UTC unless it says otherwise)."""
    try:
        moment = datetime.fromisoformat(text.strip())
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        # a fraction of a second up to the next whole one: dates are whole seconds, so `>= since` and `< before`
        # hold for the same of them as they would against the fraction
        seconds: int | None = math.ceil(moment.timestamp())
    except (ValueError, OverflowError, OSError):
        seconds = None
    # an offset can carry year 9999 past what a moment in UTC can be said as (`-`)
    if seconds is None or minute_utc(seconds) == "-":
        raise MalformedMoment(f"not a date: {echo(text, quoted=True)}; give YYYY-MM-DD or ISO 8601, e.g. {EXAMPLES}")
    return seconds


@dataclass(frozen=True, slots=True)
class PushedWithin:
    """Pushed at or after `since` and before `before` (seconds since the epoch; None: no bound)."""

    since: int | None = None
    before: int | None = None

    def parts(self, corpus: Corpus, scope: slice) -> list[tuple[str, str, np.ndarray]]:
        """(key, label, mask over the scope) of each bound, in the order they read."""
        when = _pushed(corpus, scope)
        known = when != UNKNOWN_PUSHED
        found = []
        if self.since is not None:
            found.append(("pushed-since", f"pushed since {minute_utc(self.since)} UTC", known & (when >= self.since)))
        if self.before is not None:
            found.append(("pushed-before", f"pushed before {minute_utc(self.before)} UTC",
                          known & (when < self.before)))
        return found


def pushed_mask(corpus: Corpus, scope: slice, within: PushedWithin) -> np.ndarray:
    """The specs of the scope pushed within both bounds (a spec whose push is unknown: never)."""
    mask = np.ones(scope.stop - scope.start, dtype=bool)
    for _, _, part in within.parts(corpus, scope):
        mask &= part
    return mask


def _pushed(corpus: Corpus, scope: slice) -> np.ndarray:
    if not len(corpus.pushed):  # a corpus built without the column: every spec unknown
        return np.full(scope.stop - scope.start, UNKNOWN_PUSHED, dtype=np.int64)
    return corpus.pushed[scope]


def any_dated(corpus: Corpus, scope: slice, among: np.ndarray) -> bool:
    """Whether any spec of `among` (a mask over `scope`) has a known push date."""
    return bool((_pushed(corpus, scope)[among] != UNKNOWN_PUSHED).any())
