"""The page of `cachetui serve`: keys reach the terminal with no click first, and the page has an icon.

No browser runs here: the page is fetched from the real server on 127.0.0.1 (an ephemeral port), and its
scripts are checked against what the installed textual.js does (it builds xterm's terminal in its
`window.onload`, and xterm reads keys from its hidden `.xterm-helper-textarea`).
"""

from __future__ import annotations

import tomllib
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from fnmatch import fnmatch
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from cachetui.cli import web
from cachetui.cli.web import MISDIRECTED, SessionServer
from cachetui.core.load.sample import sample_path
from cachetui.present.serve.served import ServeConfig

REPO = Path(__file__).resolve().parent.parent
ICON = Path(web.__file__).with_name("favicon.svg")


@pytest.fixture
async def served() -> AsyncIterator[TestServer]:
    server = SessionServer(ServeConfig([str(sample_path())]), host="127.0.0.1", port=0, public_url=None,
                           title="cachetui: sample", max_sessions=1)
    test_server = TestServer(await server.make_app(), host="127.0.0.1", port=0)
    await test_server.start_server()
    try:
        yield test_server
    finally:
        await test_server.close()


async def test_the_page_focuses_the_terminal_once_built_and_again_when_its_session_opens(served: TestServer) -> None:
    async with aiohttp.ClientSession() as http:
        page = await (await http.get(served.make_url("/"))).text()
        script = await (await http.get(served.make_url("/static/js/textual.js"))).text()
    # What the page relies on: textual.js builds the terminal in window.onload, xterm's keys come through its textarea.
    assert "window.onload=" in script and "xterm-helper-textarea" in script
    assert 'document.querySelector("#terminal .xterm-helper-textarea")' in page
    assert ".focus({ preventScroll: true })" in page
    # Listened for after textual.js has set its window.onload: the terminal exists when this runs.
    assert page.index('window.addEventListener("load", focusTerminal)') > page.index("js/textual.js")
    # The session's websocket opening focuses it again (the page's WebSocket is the one textual.js opens).
    assert 'this.addEventListener("open", () => focusTerminal())' in page


async def test_the_favicon_is_a_small_svg_with_a_strict_policy(served: TestServer) -> None:
    icon = ICON.read_bytes()
    async with aiohttp.ClientSession() as http:
        page = await (await http.get(served.make_url("/"))).text()
        assert '<link rel="icon" type="image/svg+xml" href="/favicon.svg" />' in page
        for path in ("/favicon.svg", "/favicon.ico"):  # .ico: where a browser looks for one by itself
            response = await http.get(served.make_url(path))
            assert response.status == 200, path
            assert response.content_type == "image/svg+xml"
            assert await response.read() == icon
            assert response.headers["Content-Security-Policy"] == "default-src 'none'"  # opened alone: runs nothing
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            foreign = await http.get(served.make_url(path), headers={"Host": "rebound.example.org"})
            assert (foreign.status, await foreign.text()) == (421, MISDIRECTED)
    root = ET.fromstring(icon)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox") == "0 0 32 32"
    assert not any(element.tag.endswith("script") or any(name.startswith("on") for name in element.attrib)
                   for element in root.iter())
    assert len(icon) < 1024


def test_the_wheel_ships_the_page_and_its_icon() -> None:
    shipped = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["cachetui.cli"]
    for name in ("serve_page.html", "favicon.svg"):
        assert (ICON.parent / name).is_file() and any(fnmatch(name, pattern) for pattern in shipped), name
