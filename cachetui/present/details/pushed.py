"""When a binary was pushed, as the details say it."""

from __future__ import annotations

from datetime import datetime

from cachetui.core.model.corpus import Corpus
from cachetui.core.model.freshness import minute_utc
from cachetui.present.format import human_size


def pushed_said(corpus: Corpus, index: int) -> str:
    """`2026-11-20 14:03 UTC`; `-` where its storage does not say, as an unknown size is said; "" (no line) when
    no loaded source says it of any binary (site documents never do): a line of `-` on every spec says nothing."""
    if not corpus.any_pushed_known():
        return ""
    when = corpus.pushed_of(index)
    return human_size(None) if when is None else f"{minute_utc(when)} UTC"


def pushed_line(said: str, recorded: str | None) -> str:
    """The details' one `pushed` line: what the loaded source says (`said`, from `pushed_said`), else what the
    binary's own record said when it was fetched (`recorded`, ISO 8601: an HTTP mirror's Last-Modified, a
    registry's push), else nothing known. "" (no line) when nothing is known and no source says it of any."""
    if said not in ("", human_size(None)) or not recorded:
        return said
    try:
        moment = datetime.fromisoformat(recorded)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:  # no zone (a registry's timestamp may say none): as it is written
        return recorded  # (the line is made inert)
    return f"{minute_utc(int(moment.timestamp()))} UTC"
