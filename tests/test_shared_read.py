"""Two loads of the same sources at once (two visitors of one `serve` reloading) read them once: the second waits
for the first, then takes the warm cache it wrote."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cachetui.core.load import load_corpus
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.progress import WAITING
from cachetui.core.model.corpus import Corpus
from tests.mirrors import DB8, MirrorServer, index_bytes, serve, v3_mirror


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[tuple[MirrorServer, str]]:
    checksum = v3_mirror(tmp_path / "mirror", index_bytes(DB8))
    server = serve(tmp_path / "mirror")
    yield next(server), checksum
    server.close()


def test_two_loads_at_once_read_the_index_once(mirror: tuple[MirrorServer, str], tmp_path: Path) -> None:
    server, checksum = mirror
    server.held = checksum  # the first load's download of the index waits until the second is waiting too
    cache = tmp_path / "cache"
    corpora: dict[str, Corpus] = {}
    second_waits = threading.Event()

    def load(who: str) -> None:
        def progress(_done: int, _total: int | None, what: str) -> None:
            if who == "second" and what == WAITING:
                second_waits.set()

        corpora[who] = load_corpus([server.url], progress=progress, cache=CorpusCache(cache))

    first = threading.Thread(target=load, args=("first",))
    first.start()
    assert server.held_asked.wait(timeout=30)
    second = threading.Thread(target=load, args=("second",))
    second.start()
    assert second_waits.wait(timeout=30)
    server.release.set()
    first.join(timeout=60)
    second.join(timeout=60)
    assert sum(checksum in path for path in server.requests) == 1  # one read, shared
    assert (corpora["first"].cache_status, corpora["second"].cache_status) == ("miss", "hit")
    assert list(corpora["second"].hashes) == list(corpora["first"].hashes) and corpora["first"].n_specs


def test_a_load_alone_never_waits(mirror: tuple[MirrorServer, str], tmp_path: Path) -> None:
    server, _ = mirror
    said: list[str] = []
    load_corpus([server.url], progress=lambda _d, _t, what: said.append(what), cache=CorpusCache(tmp_path / "c"))
    assert said and WAITING not in said


def test_a_lock_held_too_long_is_waited_for_then_read_alone(tmp_path: Path) -> None:
    """A process stopped mid-load (a Ctrl+Z'd browser) holds its lock: the others wait a while, then go on alone."""
    cache = CorpusCache(tmp_path / "cache")
    said: list[str] = []
    with cache.locked("sources"):
        with cache.locked("sources", waiting=lambda: said.append("waiting"), patience=0.2):
            said.append("read")
    assert said == ["waiting", "read"]


def test_no_lock_is_kept_in_a_cache_directory_others_can_write(tmp_path: Path) -> None:
    shared = tmp_path / "cache"
    shared.mkdir()
    shared.chmod(0o777)
    with CorpusCache(shared).locked("sources"):
        pass
    assert list(shared.iterdir()) == []


def test_a_lock_is_let_go_of_as_its_load_ends_though_a_forked_worker_holds_its_descriptor(tmp_path: Path) -> None:
    """A command forks its parsing worker during the load: the worker holds a copy of every descriptor, the lock's
    too, until it exits. The lock is let go of when the load ends all the same, and the next load does not wait."""
    cache = CorpusCache(tmp_path / "cache")
    read_end, write_end = os.pipe()
    with cache.locked("sources"):
        child = os.fork()
        if child == 0:  # the worker: alive until the test closes the pipe
            os.close(write_end)
            os.read(read_end, 1)
            os._exit(0)
    said: list[str] = []
    try:
        with cache.locked("sources", waiting=lambda: said.append("waiting"), patience=5):
            said.append("read")
    finally:
        os.close(write_end)
        os.waitpid(child, 0)
        os.close(read_end)
    assert said == ["read"]
