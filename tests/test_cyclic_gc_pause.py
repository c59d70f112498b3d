"""The cyclic collector is one switch for the process: a browser's start and a load in a thread each pause it, and it
runs again once the last pause ends, never before, and only if it ran before the first."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from cachetui.core.load.no_cyclic_gc import CyclicGcPause, no_cyclic_gc


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()  # what the pauses froze goes back to the collector
    if not enabled:
        gc.disable()


def test_a_start_and_a_load_overlapping_either_way_end_with_the_collector_running() -> None:
    start = CyclicGcPause()
    with no_cyclic_gc():
        start.end()  # the first frame is out while the load goes on
        assert not gc.isenabled()
    assert gc.isenabled()

    start = CyclicGcPause()
    with no_cyclic_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the load is done before the first frame
    start.end()
    assert gc.isenabled()


def test_a_pause_ended_twice_counts_once() -> None:
    start, load = CyclicGcPause(), CyclicGcPause()
    start.end()
    start.end()
    assert not gc.isenabled()  # the load's pause still holds
    load.end()
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    with no_cyclic_gc():
        pass
    assert not gc.isenabled()


def test_a_load_freezes_what_it_made_and_a_start_does_not() -> None:
    frozen = gc.get_freeze_count()
    CyclicGcPause().end()
    assert gc.get_freeze_count() == frozen
    with no_cyclic_gc():
        made = [[index] for index in range(1000)]
    assert gc.get_freeze_count() >= frozen + len(made)
