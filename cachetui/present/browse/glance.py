"""What the browser's first frame says on a warm start, drawn from the glance kept at the last reading
(`cachetui.core.load.glance`) while the sources are checked: that it shows that reading, and what the check is at.

Light on purpose (no numpy, no loader): it is imported before the first frame.
"""

from __future__ import annotations

from cachetui.core.load.glance import Glance

CHECKING = "checking the sources for changes…"


def glance_status(glance: Glance, progress: str | None = None) -> str:
    """The status line over the glance: its count, said to be the last reading's, and the check under way."""
    return f"all packages  │  {glance.specs} specs as last read  │  {progress or CHECKING}"


def checking_status(glance: Glance, done: int, total: int | None, what: str) -> str:
    """The status line over the glance as the check goes on, its progress as a load says it (`loading_text`)."""
    from cachetui.present.format import loading_text  # once the check reports: the first frame is out

    return glance_status(glance, f"checking the sources: {loading_text(done, total, what)}")
