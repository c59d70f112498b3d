"""Reads that allocate millions of acyclic objects (a load, a large WANTED) run with the cyclic collector paused.

The collector is one switch for the whole process, and a browser's start pauses it too (`CyclicGcPause`), with a
load in a thread beside it: pauses are counted, and the collector runs again once the last one ends, if it ran
before the first.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_enabled_before = True  # whether the collector ran before the first of the pauses now held


def _pause() -> None:
    global _pauses, _enabled_before
    with _lock:
        if _pauses == 0:
            _enabled_before = gc.isenabled()
            gc.disable()
        _pauses += 1


def _resume(freeze: bool) -> None:
    global _pauses
    with _lock:
        _pauses -= 1
        if freeze:
            gc.freeze()
        if _pauses == 0 and _enabled_before:
            gc.enable()


class CyclicGcPause:
    """One pause of the cyclic collector, held until `end` (a second `end` does nothing). A browser's start holds one
    until its first frame is out (`app/paused_start.py` says why)."""

    def __init__(self) -> None:
        self._held = True
        _pause()

    def end(self, freeze: bool = False) -> None:
        if self._held:
            self._held = False
            _resume(freeze)


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """A load allocates millions of acyclic objects; collecting them mid-load is wasted work.

    Afterwards the survivors are frozen out of the collector: they live as long as the
    corpus, and scanning them on every full collection showed up as 100 ms hiccups in the UI.
    """
    pause = CyclicGcPause()
    try:
        yield
    finally:
        pause.end(freeze=True)
