"""What the browser's first frame says on a warm start, drawn from the glance kept at the last reading
(`cachetui.core.load.glance`) while the sources are checked: that it shows that reading, and what the check is at.

Light on purpose (no numpy, no loader): it is imported before the first frame.
"""

from __future__ import annotations

from cachetui.core.load.glance import Glance
from cachetui.present.inert import inert

CHECKING = "checking the sources for changes…"


def glance_status(glance: Glance, progress: str | None = None, opening: str | None | bool = False) -> str:
    """The status line over the glance: its count, said to be the last reading's, the check under way (`checking`)
    and the package chosen meanwhile, which opens once the corpus is there (None: all packages; False: none)."""
    said = f"all packages  │  {glance.specs} specs as last read  │  {progress or CHECKING}"
    if opening is not False:
        said += f"  │  opening {'all packages' if opening is None else inert(str(opening))} once read"
    return said


def checking(done: int, total: int | None, what: str) -> str:
    """What the check is at, as a load's progress says it (`loading_text`)."""
    from cachetui.present.format import loading_text  # once the check reports: the first frame is out

    return f"checking the sources: {loading_text(done, total, what)}"
