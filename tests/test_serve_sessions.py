"""`cachetui serve` with many visitors: they map one cache file, an idle one is closed, a crashed one costs only itself.

Real servers on 127.0.0.1 (an ephemeral port), driven as the page drives them (with its Origin);
every wait polls with a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestServer

from cachetui.cli.main import main
from cachetui.cli.web import ENDED, SessionServer, busy_message, idle_message
from cachetui.core.load import LoadOptions, load_corpus
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.sample import sample_path
from cachetui.present.serve.served import ServeConfig
from tests.test_serve import CACHETUI, DEADLINE_S, Visitor, _first_line, _loaded, _visit


async def _serving(max_sessions: int, idle_timeout: float) -> tuple[TestServer, SessionServer]:
    config = ServeConfig([str(sample_path())], LoadOptions(use_cache=True))
    server = SessionServer(config, host="127.0.0.1", port=0, public_url=None, title="cachetui: sample",
                           max_sessions=max_sessions, idle_timeout=idle_timeout)
    test_server = TestServer(await server.make_app(), host="127.0.0.1", port=0)
    await test_server.start_server()
    return test_server, server


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def _until_ended(server: SessionServer, process: asyncio.subprocess.Process, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while any(s._process is process for s in server.sessions) or process.returncode is None:
        assert time.monotonic() < deadline, f"{what}: its session never ended"
        await asyncio.sleep(0.05)


async def _read_for(visitor: Visitor, seconds: float) -> None:
    """Keep reading what the session sends for `seconds` (the pace of a visitor's activity, not a wait for it)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0 and visitor.closed is None:
        try:
            visitor._take(await visitor.ws.receive(timeout=left))
        except asyncio.TimeoutError:
            return


async def _session_of(server: SessionServer, known: list[asyncio.subprocess.Process]) -> asyncio.subprocess.Process:
    """The app process of the session that started last (it starts once the websocket is open)."""
    deadline = time.monotonic() + DEADLINE_S
    while not (started := {s._process for s in server.sessions if s._process is not None} - set(known)):
        assert time.monotonic() < deadline, "no session process started"
        await asyncio.sleep(0.05)
    (process,) = started
    return process


async def test_each_visitor_maps_the_cache_file_the_server_wrote(http: aiohttp.ClientSession,
                                                                 private_cache_home: Path) -> None:
    load_corpus([str(sample_path())], LoadOptions(use_cache=True))  # as `cachetui serve` does before it listens
    (file,) = CorpusCache().directory.glob("corpus-*.map")
    written = file.stat()
    test_server, server = await _serving(max_sessions=2, idle_timeout=600)
    try:
        first = await _visit(http, test_server)
        await first.until(_loaded, "the first session's packages")
        second = await _visit(http, test_server)
        await second.until(_loaded, "the second session's packages")
        for session in server.sessions:
            assert session._process is not None
            maps = Path(f"/proc/{session._process.pid}/maps").read_text()
            assert str(file) in maps  # the corpus is the file's pages, shared, not a private copy
            environment = Path(f"/proc/{session._process.pid}/environ").read_bytes().split(b"\0")
            assert b"MALLOC_MMAP_THRESHOLD_=131072" in environment  # large temporaries given back, not kept as slack
        assert (file.stat().st_ino, file.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)  # not rebuilt
        for visitor in (first, second):
            await visitor.ws.close()
    finally:
        await test_server.close()
    assert not server.sessions


async def test_an_idle_visitor_is_closed_with_a_message_and_its_place_freed(http: aiohttp.ClientSession) -> None:
    timeout = 4.0  # four times the pace of the active visitor below: a busy machine's stall does not close it
    test_server, server = await _serving(max_sessions=1, idle_timeout=timeout)
    try:
        opened = time.monotonic()
        idle = await _visit(http, test_server)
        process = await _session_of(server, [])
        await idle.until(lambda v: v.closed is not None, "the idle session closed", timeout=DEADLINE_S)
        assert time.monotonic() - opened >= timeout - 0.1  # not before its time
        assert idle.closed == (WSCloseCode.GOING_AWAY, idle_message(timeout))
        await _until_ended(server, process, "the idle visitor")
        assert not server.sessions
        # Activity keeps a session open: a resize every second, for two and a half times the timeout.
        busy = await _visit(http, test_server)
        await busy.until(_loaded, "the next visitor's packages")
        for _ in range(int(2.5 * timeout)):
            await busy.ws.send_json(["resize", {"width": 120, "height": 40}])
            await _read_for(busy, 1.0)
            assert busy.closed is None, "closed while its visitor was active"
        await busy.ws.close()
    finally:
        await test_server.close()


def test_the_idle_message_says_how_long_and_fits_a_close_frame() -> None:
    assert idle_message(1800) == "Closed after 30 minutes without a key, click or resize. Try again."
    assert idle_message(3600).startswith("Closed after 1 hour ") and idle_message(90).startswith("Closed after 90 sec")
    assert len(idle_message(10**12 + 1).encode()) <= 123


async def test_a_killed_visitor_app_frees_its_place_and_the_others_still_answer(http: aiohttp.ClientSession) -> None:
    test_server, server = await _serving(max_sessions=2, idle_timeout=600)
    try:
        visitors: list[Visitor] = []
        processes: list[asyncio.subprocess.Process] = []
        for n in range(2):
            visitors.append(await _visit(http, test_server))
            processes.append(await _session_of(server, processes))
            await visitors[-1].until(_loaded, f"visitor {n}'s packages")
        turned_away = await _visit(http, test_server)
        await turned_away.until(lambda v: v.closed is not None, "a third visitor turned away")
        assert turned_away.closed == (WSCloseCode.TRY_AGAIN_LATER, busy_message(2))

        os.kill(processes[0].pid, signal.SIGKILL)  # an app that crashes
        await visitors[0].until(lambda v: v.closed is not None, "the crashed session's page closed")
        assert visitors[0].closed == (WSCloseCode.INTERNAL_ERROR, ENDED)
        await _until_ended(server, processes[0], "the crashed app")
        assert len(server.sessions) == 1

        await visitors[1].type("/zqalive", "zqalive", "the other visitor's keys answered")
        newcomer = await _visit(http, test_server)  # the crashed one's place is free again
        await newcomer.until(_loaded, "the newcomer's packages")
        for visitor in (visitors[1], newcomer):
            await visitor.ws.close()
    finally:
        await test_server.close()
    assert not server.sessions


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: /proc/PID/stat's fourth field)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:  # it ended while we looked
            continue
        if stat and int(stat.rpartition(")")[2].split()[1]) == pid:
            found.append(int(entry.name))
    return found


async def test_a_session_ends_when_its_server_is_killed(http: aiohttp.ClientSession, private_cache_home: Path,
                                                         tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(private_cache_home)}
    server = subprocess.Popen([*CACHETUI, "serve", "--port", "0", str(sample_path())], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, start_new_session=True)
    session: int | None = None
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+", _first_line(server, DEADLINE_S))
        assert url is not None
        ws = await http.ws_connect(url.group(0) + "/ws?width=120&height=40", origin=url.group(0))
        visitor = Visitor(ws)
        await visitor.until(_loaded, "the session's packages")
        (session,) = _children(server.pid)
        ended = os.pidfd_open(session)  # readable once the session has ended, whoever its parent is by then
        try:
            os.kill(server.pid, signal.SIGKILL)  # nothing of the server runs after this: no quit, no cleanup
            server.wait(DEADLINE_S)
            readable, _, _ = select.select([ended], [], [], DEADLINE_S)
        finally:
            os.close(ended)
        assert readable, "the session outlived its server"
        session = None
    finally:
        for pid in (server.pid, session):
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        server.wait(DEADLINE_S)


def test_idle_timeout_is_a_whole_number_of_seconds(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    given: list[float] = []
    monkeypatch.setattr(SessionServer, "run", lambda self, ready: given.append(self.idle_timeout))
    assert main(["serve", "--no-cache", "--idle-timeout", "90", str(sample_path())]) == 0
    assert main(["serve", "--no-cache", str(sample_path())]) == 0
    assert given == [90, 1800]
    for bad in ("0", "-5", "1.5", "soon"):
        with pytest.raises(SystemExit):
            main(["serve", "--no-cache", "--idle-timeout", bad, str(sample_path())])
    assert "--idle-timeout" in capsys.readouterr().err
