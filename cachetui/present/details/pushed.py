"""When a binary was pushed, as the details say it."""

from __future__ import annotations

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.freshness import minute_utc
from cachetui.core.model.records import UNKNOWN_PUSHED
from cachetui.present.format import human_size

_RECORDED = "pushed-recorded"  # the memo of whether any loaded source says when a binary was pushed


def pushed_said(corpus: Corpus, index: int) -> str:
    """`2026-11-20 14:03 UTC`; `-` where its storage does not say, as an unknown size is said; "" (no line) when
    no loaded source says it of any binary (site documents never do): a line of `-` on every spec says nothing."""
    recorded = corpus.memoised(_RECORDED, lambda: bool(len(corpus.pushed)) and bool(
        (corpus.pushed != UNKNOWN_PUSHED).any()))
    if not recorded:
        return ""
    when = corpus.pushed_of(index)
    return human_size(None) if when is None else f"{minute_utc(when)} UTC"
