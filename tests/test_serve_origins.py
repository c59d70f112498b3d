"""`cachetui serve` answers only its own hosts, and starts a session only for its own page.

Another site's page can send a browser's requests to any address, and a name its author controls
can be made to resolve to this server (DNS rebinding): such a request carries that name in `Host`,
and a websocket it opens carries that page's `Origin`. The end-to-end tests run the server on
127.0.0.1 (an ephemeral port) and ask as such a page would; each session's process is a stand-in
that starts instantly, counted as it starts (test_serve.py drives real sessions).
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from cachetui.cli import web
from cachetui.cli.main import main
from cachetui.cli.served_hosts import ServedHosts
from cachetui.cli.web import FOREIGN_PAGE, MISDIRECTED, SessionServer
from cachetui.core.load.sample import sample_path
from cachetui.present.serve.served import ServeConfig

# Says it is a Textual app, then waits for the server's first word (its "quit") and ends.
STAND_IN = shlex.join([sys.executable, "-c", "import sys; print('__GANGLION__', flush=True); sys.stdin.buffer.read(1)"])
TITLE = "cachetui: sample"


# -- the rule ----------------------------------------------------------------------------------------------


def test_a_loopback_server_serves_its_address_and_localhost_on_its_own_port() -> None:
    hosts, at = ServedHosts("127.0.0.1", None), ("127.0.0.1", 8000)
    assert all(hosts.serves_host(host, *at) for host in ("127.0.0.1:8000", "localhost:8000", "LocalHost:8000"))
    assert not any(hosts.serves_host(host, *at) for host in (
        None, "", "rebound.example.org:8000", "127.0.0.1:8001", "127.0.0.1", "localhost.:8000", "0.0.0.0:8000",
        "evil@127.0.0.1:8000", "127.0.0.1:8000/x", "127.0.0.1:port"))
    assert all(hosts.serves_origin(origin, *at) for origin in ("http://127.0.0.1:8000", "http://localhost:8000"))
    assert not any(hosts.serves_origin(origin, *at) for origin in (
        None, "", "null", "https://127.0.0.1:8000", "http://127.0.0.1:8001", "http://127.0.0.1",
        "http://rebound.example.org:8000", "http://localhost:8000/x", "file://", "127.0.0.1:8000"))


def test_every_address_serves_the_address_a_visitor_reached_and_no_name() -> None:
    hosts = ServedHosts("0.0.0.0", None)
    assert hosts.serves_host("192.0.2.7:8000", "192.0.2.7", 8000)
    assert hosts.serves_host("192.0.2.7:8000", "::ffff:192.0.2.7", 8000)  # an IPv4 visitor of a dual-stack socket
    assert hosts.serves_host("[2001:db8::7]:8000", "2001:db8::7", 8000)
    assert hosts.serves_host("localhost:8000", "127.0.0.1", 8000)
    assert not hosts.serves_host("localhost:8000", "192.0.2.7", 8000)
    assert not hosts.serves_host("198.51.100.1:8000", "192.0.2.7", 8000)
    assert not hosts.serves_host("buildbox.example.org:8000", "192.0.2.7", 8000)
    assert ServedHosts("buildbox.example.org", None).serves_host("buildbox.example.org:8000", "192.0.2.7", 8000)


def test_a_public_url_is_the_one_host_and_origin_served() -> None:
    hosts, at = ServedHosts("127.0.0.1", "https://browse.example.org/"), ("127.0.0.1", 8000)
    assert hosts.serves_host("browse.example.org", *at) and hosts.serves_host("browse.example.org:443", *at)
    assert not any(hosts.serves_host(host, *at)
                   for host in ("127.0.0.1:8000", "localhost:8000", "browse.example.org:8000"))
    assert hosts.serves_origin("https://browse.example.org", *at)
    assert not any(hosts.serves_origin(origin, *at) for origin in (
        "http://browse.example.org", "https://browse.example.org:8443", "http://127.0.0.1:8000", "http://localhost:8000"))


def test_a_public_url_is_an_http_url(capsys: pytest.CaptureFixture[str]) -> None:
    for url in ("browse.example.org", "ftp://browse.example.org", "https://"):
        assert main(["serve", "--no-cache", "--public-url", url, str(sample_path())]) == 2
        assert "--public-url takes the http(s) URL browsers use" in capsys.readouterr().err


def test_serve_help_says_which_hosts_are_served(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "0.0.0.0" in " ".join(capsys.readouterr().out.split())


# -- the server, asked as another page would ---------------------------------------------------------------


@dataclass
class Servers:
    """Servers of one session at most, whose session processes are stand-ins, each command counted as it starts."""

    started: list[str] = field(default_factory=list)
    running: list[TestServer] = field(default_factory=list)

    async def start(self, public_url: str | None = None) -> tuple[TestServer, SessionServer]:
        server = SessionServer(ServeConfig([str(sample_path())]), host="127.0.0.1", port=0,
                               public_url=public_url, title=TITLE, max_sessions=1)
        test_server = TestServer(await server.make_app(), host="127.0.0.1", port=0)
        await test_server.start_server()
        self.running.append(test_server)
        return test_server, server


@pytest.fixture
async def servers(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Servers]:
    monkeypatch.setattr(web, "COMMAND", STAND_IN)
    servers = Servers()
    create = asyncio.create_subprocess_shell

    async def counted(command: str, *args: Any, **kwargs: Any) -> asyncio.subprocess.Process:
        servers.started.append(command)
        return await create(command, *args, **kwargs)

    monkeypatch.setattr(asyncio, "create_subprocess_shell", counted)
    try:
        yield servers
    finally:
        for test_server in servers.running:
            await test_server.close()  # ends every session and its process


async def test_a_request_for_another_host_gets_no_page_and_its_own_host_does(servers: Servers) -> None:
    test_server, _ = await servers.start()
    port = test_server.port
    assert port is not None
    async with aiohttp.ClientSession() as http:
        for path in ("/", "/static/js/textual.js", "/download/any", "/ws"):
            for host in (f"rebound.example.org:{port}", f"127.0.0.1:{port + 1}", "localhost"):
                response = await http.get(test_server.make_url(path), headers={"Host": host})
                body = await response.text()
                assert (response.status, body) == (421, MISDIRECTED), (path, host)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            page = await http.get(test_server.make_url("/"), headers={"Host": host})
            assert page.status == 200 and f"<title>{TITLE}</title>" in await page.text()
            assert f"ws://{host}/ws" in await page.text()
            script = await http.get(test_server.make_url("/static/js/textual.js"), headers={"Host": host})
            assert script.status == 200


async def test_a_websocket_from_no_page_or_another_page_is_refused_before_a_session_starts(servers: Servers) -> None:
    test_server, server = await servers.start()
    port = test_server.port
    assert port is not None
    own = f"http://127.0.0.1:{port}"
    async with aiohttp.ClientSession() as http:
        for origin in (None, "null", "http://rebound.example.org", f"http://rebound.example.org:{port}",
                       f"https://127.0.0.1:{port}", f"http://127.0.0.1:{port + 1}"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(test_server.make_url("/ws"), origin=origin)
            assert refused.value.status == 403, origin
        assert servers.started == [] and not server.sessions
        # The one session a refused page would have taken is still there for the server's own page.
        ws = await http.ws_connect(test_server.make_url("/ws"), origin=own)
        assert len(servers.started) == 1 and len(server.sessions) == 1
        await ws.close()
    refused_text = await _refusal(test_server, "http://rebound.example.org")
    assert refused_text == FOREIGN_PAGE


async def test_behind_a_public_url_its_host_and_origin_are_the_ones_accepted(servers: Servers) -> None:
    test_server, server = await servers.start("https://browse.example.org")
    async with aiohttp.ClientSession() as http:
        page = await http.get(test_server.make_url("/"), headers={"Host": "browse.example.org"})
        assert page.status == 200 and "wss://browse.example.org/ws" in await page.text()
        direct = await http.get(test_server.make_url("/"))  # Host: 127.0.0.1:port, the address it listens on
        assert direct.status == 421
        for origin in (f"http://127.0.0.1:{test_server.port}", "http://browse.example.org"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(test_server.make_url("/ws"), origin=origin,
                                      headers={"Host": "browse.example.org"})
            assert refused.value.status == 403, origin
        assert servers.started == [] and not server.sessions
        ws = await http.ws_connect(test_server.make_url("/ws"), origin="https://browse.example.org",
                                   headers={"Host": "browse.example.org"})
        assert len(servers.started) == 1 and len(server.sessions) == 1
        await ws.close()


async def _refusal(test_server: TestServer, origin: str) -> str:
    """What a page of `origin` reads when its websocket is refused."""
    async with aiohttp.ClientSession() as http:
        response = await http.get(test_server.make_url("/ws"), headers={
            "Origin": origin, "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        assert response.status == 403
        return await response.text()
