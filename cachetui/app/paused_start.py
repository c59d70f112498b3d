"""Start a browser with the cyclic collector paused until its first frame is out: in a terminal and as a served session.

Importing Textual and the app makes some hundred thousand objects that live as long as the process. Left to the
collector, the full collection they bring due fell inside the first frame; paused, they are frozen out of its reach
once made, and the app ends the pause after its first frame (`CacheTuiApp`'s `gc_pause`). Nothing here imports
Textual: the caller's `make` does, inside the pause.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TYPE_CHECKING

from cachetui.core.load import CyclicGcPause

if TYPE_CHECKING:
    from cachetui.app.app import CacheTuiApp


def run_collector_paused(make: Callable[[CyclicGcPause], CacheTuiApp]) -> None:
    """Run the app `make` builds (given the pause the app is to end), the collector paused from before its imports."""
    pause = CyclicGcPause()
    try:
        app = make(pause)
        gc.freeze()  # what the imports made lives as long as the process: later full collections skip it
        app.run()
    finally:
        pause.end()
