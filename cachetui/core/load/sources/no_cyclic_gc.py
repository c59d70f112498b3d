"""Reads that allocate millions of acyclic objects (a load, a large WANTED) run with the cyclic collector paused."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """A load allocates millions of acyclic objects; collecting them mid-load is wasted work.

    Afterwards the survivors are frozen out of the collector: they live as long as the
    corpus, and scanning them on every full collection showed up as 100 ms hiccups in the UI.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
