"""`cachetui serve`: labels instead of server paths, downloads instead of files, OSC 52 only, bounded sessions.

The end-to-end tests run the real server on 127.0.0.1 (an ephemeral port) and drive it as a
browser does, over its websocket with an aiohttp client: each session is a real app process.
Every wait polls with a deadline; every server and session is stopped by the test that started it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest
from aiohttp import WSCloseCode, WSMsgType
from aiohttp.test_utils import TestServer

from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.served import DownloadDialog, ServedApp
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.cli.main import main
from cachetui.cli.serve import is_loopback, mirror_urls
from cachetui.cli.web import SessionServer, busy_message
from cachetui.core.load import LoadOptions, load_corpus
from cachetui.core.load.sample import sample_path
from cachetui.present.serve.served import (
    DownloadRefused,
    Labels,
    ServeConfig,
    download_name,
    secure_context,
    served_corpus,
    source_label,
    source_labels,
)
from tests.app.helpers import open_package, wait_for, wait_loaded
from tests.mirrors import DB8, v2_mirror

# A directory name that a shell would run as commands, if it ever reached one unquoted.
HOSTILE_NAME = """it's a "cache"; touch pwned-1 $(touch pwned-2) `touch pwned-3`"""
CACHETUI = [sys.executable, "-c", "from cachetui.cli.main import main; raise SystemExit(main())"]
DEADLINE_S = 60.0  # a session is a new Python process on a shared 2-core machine
ANSI = re.compile(r"\x1b\[[0-9;?<>=$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Z]|\x1b[=>78]")


# -- labels, names, configuration ---------------------------------------------------------------------------


def test_sources_are_labelled_by_name_or_last_part() -> None:
    assert source_label("develop=https://example.org/m") == "develop"
    assert source_label("/srv/caches/site-mirror/") == "site-mirror"
    assert source_label("file:///srv/caches/site-mirror") == "site-mirror"
    assert source_label("/srv/m/build_cache/index.json") == "m"
    assert source_label("oci://ghcr.io/spack/buildcache") == "buildcache"
    assert source_label("spack-mirrors:") == "spack-mirrors"
    assert source_label("spack-mirrors:team") == "team"
    assert source_labels(["/a/mirror", "/b/mirror", "/c/mirror"]) == ["mirror", "mirror-2", "mirror-3"]


def test_server_paths_become_labels_in_paths_and_messages(tmp_path: Path) -> None:
    site, mirror = tmp_path / "site", tmp_path / "ab"
    labels = Labels([str(site), f"team={mirror}"])
    assert labels.path(str(site / "develop" / "hdf5" / "specs.md")) == "site/develop/hdf5/specs.md"
    assert labels.path(f"file://{mirror}") == "team"
    assert labels.path("/elsewhere/deep/index.json") == "index.json"  # outside every source: the last part only
    assert labels.path("https://user:secret@mirror.example.org/x") == "https://mirror.example.org/x"
    message = f"cannot read {mirror}/build_cache/index.json: denied; {tmp_path}/abc/x.json; /home/u/.spack/c.json"
    assert labels.text(message) == "cannot read team/build_cache/index.json: denied; …/x.json; …/c.json"
    assert labels.text("hash /abc1234 at https://h.example/a/b") == "hash /abc1234 at https://h.example/a/b"


def test_a_download_is_named_by_a_plain_file_name_never_a_path() -> None:
    assert download_name("cachetui-hdf5.csv") == "cachetui-hdf5.csv"
    assert download_name(" results.JSON ") == "results.JSON"
    assert download_name("my results") == "my_results.csv"
    assert download_name('a;b"c\r\n.csv') == "a_b_c__.csv"  # the name travels in an HTTP header
    assert download_name(".hidden.csv") == "hidden.csv"
    for typed in ("/etc/passwd", "../x.csv", "~/x.csv", "dir/x.csv", "a\\b.csv", "  "):
        with pytest.raises(DownloadRefused):
            download_name(typed)


def test_the_configuration_travels_whole_through_the_environment() -> None:
    config = ServeConfig([HOSTILE_NAME, "x=https://e.org/m"],
                         LoadOptions(max_file_bytes=123, use_cache=True, workers=2, timeout=4.5), mirror_urls={"m": "https://m.example.org"})
    assert ServeConfig.from_environment(config.to_environment()) == config
    with pytest.raises(KeyError):
        ServeConfig.from_environment({})


def test_mirror_url_names_a_local_source_by_its_label(tmp_path: Path) -> None:
    inputs = [str(tmp_path / "site-mirror"), "pub=https://example.org/m"]
    assert mirror_urls(["site-mirror=https://m.example.org/spack"], inputs) == {"site-mirror": "https://m.example.org/spack"}
    for bad in ("pub=https://x.org", "nope=https://x.org", "site-mirror", "site-mirror=not-a-url"):
        with pytest.raises(Exception, match="--mirror-url"):
            mirror_urls([bad], inputs)


def test_the_clipboard_is_open_to_https_and_this_machine_only() -> None:
    assert all(map(secure_context, ("https://mirror.example.org", "http://127.0.0.1:8000", "http://localhost:8000",
                                    "http://[::1]:8000", "http://app.localhost")))
    assert not any(map(secure_context, ("http://mirror.example.org:8000", "http://192.0.2.7:8000")))


async def test_without_https_a_copy_says_how_to_select_the_text() -> None:
    app = ServedApp(ServeConfig([str(sample_path())], browser_clipboard=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        app.screen.query_one(SpecTable).focus()
        await pilot.press("y")
        await pilot.pause()
        (note,) = app._notifications
        assert app.clipboard in str(note.message) and "Shift+drag" in str(note.message)


def test_loopback_hosts() -> None:
    assert all(map(is_loopback, ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost")))
    assert not any(map(is_loopback, ("0.0.0.0", "::", "192.0.2.7", "mirror.example.org")))


def test_the_served_corpus_names_local_mirrors_only_by_a_given_url(tmp_path: Path) -> None:
    mirror = v2_mirror(tmp_path / "site-mirror", DB8)
    inputs = [str(sample_path()), str(mirror)]
    corpus = load_corpus(inputs)
    for urls, expected in (({}, None), ({"site-mirror": "https://m.example.org/spack"}, "https://m.example.org/spack")):
        shown, origins = served_corpus(corpus, Labels(inputs), urls)
        assert not any(str(tmp_path) in d.path or str(sample_path()) in d.path for d in shown.documents)
        local = {origins[d] for d in shown.documents if d.path == "site-mirror"}
        assert local == {None} if expected is None else {o.url for o in local if o} == {expected}
        public = {origins[d] for d in shown.documents if d.path.startswith("sample/")}
        assert {o.url for o in public if o} == {"https://binaries.spack.io/develop", "https://binaries.spack.io/develop-2025-04-20"}
        assert not any(o.configured for o in origins.values() if o)  # the visitor's Spack knows none of them


# -- a served session, driven in process (headless: no browser) --------------------------------------------


def _served(inputs: list[str], **urls: str) -> ServedApp:
    return ServedApp(ServeConfig(inputs, mirror_urls=urls))


def _detail_text(app: ServedApp) -> str:
    rows = app.screen.query_one(DetailPane).source
    assert isinstance(rows, DetailRows)
    return "\n".join(text.plain for text, _ in rows.rows)


async def test_a_session_shows_labels_copies_by_osc52_only_and_offers_the_given_mirror_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mirror = v2_mirror(tmp_path / "site-mirror", DB8)
    local_copies: list[str] = []
    monkeypatch.setattr("cachetui.app.app.copy_to_local_clipboard", local_copies.append)
    for urls, mirror_line in (({}, None), ({"site-mirror": "https://m.example.org/spack"},
                                            "spack mirror add site-mirror https://m.example.org/spack")):
        app = _served([str(mirror)], **urls)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_loaded(pilot)
            await open_package(pilot, "libdwarf")
            table = app.screen.query_one(SpecTable)
            table.focus()
            await pilot.pause()
            assert "site-mirror" in _detail_text(app) and str(tmp_path) not in _detail_text(app)
            await pilot.press("y")
            await pilot.pause()
            spec = app.browser.corpus.spec(table.current_spec)
            assert app.clipboard == spec.hash
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, CopyMenu)
            offered = [text for _, (_, text) in app.screen._choices]
            assert (mirror_line in offered) if mirror_line else not any("mirror add" in t for t in offered)
            assert not any(str(tmp_path) in text for text in offered)
    assert local_copies == []  # never a clipboard tool on the server


async def test_export_without_a_browser_writes_nothing_on_the_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(home / "Downloads"))
    monkeypatch.chdir(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    app = _served([str(sample_path())])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        await pilot.press("e")
        await pilot.pause()
        assert not isinstance(app.screen, DownloadDialog)  # a headless session has no browser to download to
        assert any("web browser" in str(n.message) for n in app._notifications)
    assert sorted(tmp_path.rglob("*")) == before


# -- the server, end to end over its websocket ------------------------------------------------------------


class Visitor:
    """One browser tab: a websocket, what the terminal was sent, and the text messages beside it."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.raw = bytearray()
        self.messages: list[list[object]] = []
        self.closed: tuple[int | None, str] | None = None

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", errors="replace"))

    async def until(self, condition: Callable[[Visitor], bool], what: str, timeout: float = DEADLINE_S) -> None:
        deadline = time.monotonic() + timeout
        while not condition(self):
            left = deadline - time.monotonic()
            if left <= 0 or self.closed is not None:
                raise AssertionError(f"never saw {what} (closed: {self.closed}); last screen text: {self.text[-800:]!r}")
            try:
                self._take(await self.ws.receive(timeout=min(left, 1.0)))
            except asyncio.TimeoutError:
                continue

    def _take(self, message: aiohttp.WSMessage) -> None:
        """Keep what a message brings: screen bytes, a text message, or the close."""
        if message.type == WSMsgType.BINARY:
            self.raw += message.data
        elif message.type == WSMsgType.TEXT:
            self.messages.append(json.loads(message.data))
        else:
            self.closed = (self.ws.close_code, str(message.extra or ""))

    async def type(self, text: str, shows: str | None, what: str) -> None:
        """Send `text` as a terminal sends fast typing (one write), then read until `shows` is on screen
        (or, with None, until the app has drawn what it does with it)."""
        await self.ws.send_json(["stdin", text])
        if shows is None:
            await self.settle()
        else:
            await self.until(lambda v: shows in v.text[-20_000:], what)

    async def keys(self, *keys: str) -> None:
        for key in keys:
            await self.ws.send_json(["stdin", key])

    async def settle(self) -> None:
        """Read until the app has been quiet for a moment (bounded): what it was going to draw has arrived."""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            try:
                self._take(await self.ws.receive(timeout=0.5))
            except asyncio.TimeoutError:
                return
            if self.closed is not None:
                return


def _loaded(visitor: Visitor) -> bool:
    return "py-safetensors" in visitor.text  # the package list fills once the corpus is in


@pytest.fixture
async def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[TestServer, SessionServer, Path]]:
    """The sample under a name a shell would run, served with room for two sessions."""
    source = tmp_path / HOSTILE_NAME
    shutil.copytree(sample_path(), source, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.chdir(tmp_path)  # where `touch pwned` would land
    config = ServeConfig([str(source)])
    server = SessionServer(config, host="127.0.0.1", port=0, public_url=None, title="cachetui: " + HOSTILE_NAME,
                           max_sessions=2)
    test_server = TestServer(await server.make_app(), host="127.0.0.1", port=0)
    await test_server.start_server()
    try:
        yield test_server, server, tmp_path
    finally:
        await test_server.close()  # ends every session and its process
    assert not server.sessions


async def _visit(http: aiohttp.ClientSession, test_server: TestServer) -> Visitor:
    # A browser sends the page's origin with its websocket; the server starts a session for no other.
    ws = await http.ws_connect(test_server.make_url("/ws?width=120&height=40"),
                               origin=str(test_server.make_url("/").origin()))
    visitor = Visitor(ws)
    await ws.send_json(["resize", {"width": 120, "height": 40}])
    return visitor


async def test_two_visitors_browse_copy_and_download_apart_and_a_third_is_told_to_wait(
    served: tuple[TestServer, SessionServer, Path],
) -> None:
    test_server, server, tmp_path = served
    async with aiohttp.ClientSession() as http:
        page = await (await http.get(test_server.make_url("/"))).text()
        assert "<title>cachetui: it&#39;s a &#34;cache&#34;; touch pwned-1" in page
        assert str(tmp_path) not in page and sys.executable not in page and "cachetui.app.served" not in page

        first = await _visit(http, test_server)
        await first.until(_loaded, "the first session's packages")
        (first_session,) = server.sessions
        second = await _visit(http, test_server)
        await second.until(_loaded, "the second session's packages")

        third = await _visit(http, test_server)
        await third.until(lambda v: v.closed is not None, "the third visitor turned away")
        assert third.closed == (WSCloseCode.TRY_AGAIN_LATER, busy_message(2)) and len(server.sessions) == 2

        # Each types its own search: each sees its own, never the other's.
        await first.type("/zqalpha", "zqalpha", "the first search typed")
        await second.type("/zqbeta", "zqbeta", "the second search typed")
        await first.settle()
        await second.settle()
        assert "zqbeta" not in first.text and "zqalpha" not in second.text

        # The first opens a package, copies a hash (OSC 52, for the browser's clipboard) and downloads the table.
        await first.type("\x15", None, "the search line cleared")  # ctrl+u
        await first.type("mpi4", "mpi4", "a package search typed")
        await first.type("\r", "91 of", "py-mpi4py's table")
        await first.settle()
        await first.keys("y")
        await first.until(lambda v: b"\x1b]52;c;" in v.raw, "an OSC 52 copy")
        copied = base64.b64decode(re.search(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07", bytes(first.raw)).group(1)).decode()
        assert re.fullmatch(r"[a-z0-9]{32}", copied)
        assert b"\x1b]52;" not in second.raw
        await first.keys("e")
        await first.until(lambda v: "Download 91 specs" in v.text, "the download dialog")
        await first.settle()  # the dialog is drawn before its input takes the focus: keys before that are lost
        await first.type("\x15", None, "the suggested name cleared")  # Textual drops a key sent with ctrl+u in one write
        await first.type("/etc/passwd\r", "a file name only", "a path refused")
        await first.type("\x15", None, "the path cleared")
        await first.type("cachetui-py-mpi4py.csv\r", None, "the file name typed")
        await first.until(lambda v: any(m[0] == "deliver_file_start" for m in v.messages), "a download offered")
        key = next(m[1] for m in first.messages if m[0] == "deliver_file_start")
        response = await http.get(test_server.make_url(f"/download/{key}"))
        assert response.headers["Content-Disposition"] == "attachment; filename=cachetui-py-mpi4py.csv"
        assert response.headers["Content-Type"].startswith("text/csv")
        rows = (await response.text()).splitlines()
        assert rows[0].startswith("package,tag,hash,") and len(rows) == 1 + 91
        assert all(row.startswith("py-mpi4py,") for row in rows[1:])
        assert copied in "\n".join(rows)
        assert not any(str(tmp_path) in row for row in rows)  # the path column holds labels
        assert not any(p.name.endswith(".csv") for p in tmp_path.rglob("*"))  # nothing written on the server

        for visitor in (first, second):
            assert str(tmp_path) not in visitor.text and sys.executable not in visitor.text

        # A closed tab ends its session and its process.
        process = first_session._process
        await first.ws.close()
        deadline = time.monotonic() + DEADLINE_S
        while first_session in server.sessions or process.returncode is None:
            assert time.monotonic() < deadline, "the closed tab's session never ended"
            await asyncio.sleep(0.05)
        assert len(server.sessions) == 1
        await second.ws.close()
    assert not list(tmp_path.glob("pwned*"))  # the source's name was never shell syntax


# -- the command, as a user runs it -------------------------------------------------------------------------


def test_serve_warms_the_cache_binds_loopback_and_stops_on_sigterm(tmp_path: Path, private_cache_home: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(private_cache_home)}
    command = [*CACHETUI, "serve", "--port", "0", str(sample_path())]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
                               start_new_session=True)
    try:
        line = _first_line(process, DEADLINE_S)
        url = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert url is not None, line
        assert "(sample; at most 4 sessions)" in line
        listening = subprocess.run(["ss", "-ltnH", f"sport = :{url.group(1)}"], capture_output=True, text=True)
        if listening.returncode == 0:  # ss is there: the port is on loopback only
            assert listening.stdout.split() and all(
                local.startswith("127.0.0.1:") for local in listening.stdout.split()[3::5]), listening.stdout
        check = subprocess.run([*CACHETUI, "check", "--json", str(sample_path())],
                               capture_output=True, text=True, env=env, timeout=DEADLINE_S)
        assert json.loads(check.stdout)["cache"] == "hit"  # loaded once before the first visitor came
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""


def _first_line(process: subprocess.Popen[str], timeout: float) -> str:
    """The server's first line of stdout, read in a thread so a silent server fails the test instead of hanging it."""
    import threading

    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(process.stdout.readline() if process.stdout else ""),
                              daemon=True)
    reader.start()
    reader.join(timeout)
    assert lines and lines[0], f"no address printed; stderr: {process.stderr.read() if process.poll() is not None and process.stderr else ''}"
    return lines[0]


def test_a_busy_port_is_one_line_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--no-cache", "--port", str(port), str(sample_path())]) == 2
    out, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert out == "" and line.startswith(f"cachetui: port {port} is in use on 127.0.0.1") and "--port" in line


def test_a_public_host_is_warned_about(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    started: list[str] = []
    monkeypatch.setattr(SessionServer, "run", lambda self, ready: started.append(self.host))
    assert main(["serve", "--host", "0.0.0.0", "--no-cache", f"lab={sample_path()}"]) == 0
    assert started == ["0.0.0.0"]
    err = capsys.readouterr().err
    assert "warning: listening on 0.0.0.0: anyone who can reach this port can browse these sources (lab)" in err
    assert main(["serve", "--no-cache"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_mirror_url_for_no_local_source_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--no-cache", "--mirror-url", "nope=https://x.example.org", str(sample_path())]) == 2
    assert "no source read from a local path has that label (those that do: sample)" in capsys.readouterr().err


def test_busy_message_fits_a_close_frame() -> None:
    assert busy_message(1).startswith("The one session") and busy_message(4).startswith("All 4 sessions")
    assert len(busy_message(10_000).encode()) <= 123


def test_other_commands_never_load_the_web_server() -> None:
    probe = "import sys, cachetui.cli.main; print(sorted({'aiohttp', 'textual_serve', 'textual'} & set(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=DEADLINE_S)
    assert loaded.stdout.strip() == "[]"
