"""What the status line says of the sources' freshness: what is new since the last look, what a reload changed."""

from __future__ import annotations

import time

from cachetui.core.load import New

RELOADING = "reloading the sources…"
DATING = "reading when each binary was pushed…"  # a mirror read cold is dated after it is shown (`later_dates`)


def moment(seconds: float) -> str:
    """A moment as the status line says it: UTC, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def news_text(new: New | None, changed: tuple[int, int] | None = None) -> str | None:
    """`reloaded: +12 −3 binaries · 12 new since 2026-11-20 14:03 UTC`; None when there is nothing to say (no
    reload, and no source was looked at before)."""
    parts = []
    if changed is not None:
        added, removed = changed
        parts.append(f"reloaded: +{added} −{removed} binaries" if added or removed else "reloaded: no binary changed")
    if new is not None and new.binaries:
        assert new.since is not None
        parts.append(f"{new.binaries} new since {moment(new.since)}")
    elif new is not None and new.looked is not None:
        parts.append(f"nothing new since {moment(new.looked)}")
    return " · ".join(parts) or None


def dating(news: str | None) -> str:
    """What the status line says while a mirror's push dates are read after its load: the news, then that."""
    return " · ".join(part for part in (news, DATING) if part)
