"""The web server of `cachetui serve`: textual-serve's, with the limits a site's mirror page needs.

textual-serve 1.1.3 starts one app process per websocket with no limit, names the page after
its shell command line, and guesses its public address from the host it binds. Here:
- at most `max_sessions` processes at once; a visitor beyond them is told so on the page
  (the websocket closes with 1013 "try again later" and a reason the page shows);
- the command line is fixed (`python -P -m cachetui.app.served`): the sources reach each session
  as JSON in its environment, so no source name is ever read by a shell, and `-P` keeps the
  working directory off the session's import path (a `cachetui/` folder there is not the package);
- only the hosts of `served_hosts` get an answer (DNS rebinding), and only their own page's
  websocket starts a session: any other is refused before it counts against `max_sessions`;
- the page is named by the sources' labels, and its addresses come from `--public-url`, else
  from the address the browser itself asked for;
- a session whose tab closed is told to quit, and killed if it has not within `STOP_S`; one that
  ends unasked (it could not start, or crashed) closes its page with a reason, not leaving it on
  "starting…", and frees its place;
- a session whose visitor sent no key, mouse event or resize for `idle_timeout` seconds is closed,
  its page saying why: a tab left open overnight does not hold a place and an app's memory;
- a session ends with the server, even one killed (`cachetui.app.server_lifetime`: it is told the
  server's pid, and the kernel signals it when that process dies);
- a port that cannot be listened on (in use) is a usage error naming it, not an internal error;
- the page has an icon (`/favicon.svg`, also at `/favicon.ico` where browsers look by themselves), and
  focuses the terminal once it is built, so that keys work before a click (`serve_page.html`).

Imported only by `cachetui serve`: aiohttp and textual-serve never load for the other commands.
"""

from __future__ import annotations

import asyncio
import errno
import os
import shlex
import signal
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import aiohttp_jinja2
from aiohttp import WSCloseCode, hdrs, web
from aiohttp.typedefs import Handler
from textual_serve.app_service import AppService
from textual_serve.server import Server, to_int

from cachetui.cli.options import fail_usage
from cachetui.cli.serve_defaults import DEFAULT_IDLE_TIMEOUT_S
from cachetui.cli.served_hosts import ServedHosts
from cachetui.present.format import counted
from cachetui.present.inert import inert
from cachetui.present.serve.served import ServeConfig, secure_context

PAGE = "serve_page.html"  # beside this file, in the wheel too
ICON = Path(__file__).with_name("favicon.svg")  # in the wheel too
# The icon is a document of its own when opened alone: it may load nothing and run nothing.
ICON_HEADERS = {"Content-Security-Policy": "default-src 'none'", "X-Content-Type-Options": "nosniff",
                "Cache-Control": "public, max-age=86400"}
STOP_S = 5.0  # a session told to quit has this long before it is killed
# -P: `-m` would put the working directory first on sys.path, before the installed package. Not -I: that
# also drops PYTHONPATH and the user's site-packages, where the server's own cachetui may have come from.
# textual-serve runs it through a shell: `exec` makes the app the session's process, so that stopping or killing
# that process ends the app itself (not a shell that would leave the app running, holding its memory).
COMMAND = "exec " + shlex.join([sys.executable, "-P", "-m", "cachetui.app.served"])
MISDIRECTED = ("This server does not answer for that host: only for the address it listens on, or for the "
               "host of its --public-url (a reverse proxy must pass the browser's Host header).")
FOREIGN_PAGE = "A session starts only for this server's own page."
# glibc's malloc raises its mmap threshold each time a large block is freed, so an app's later temporaries (the
# masks and counts of its first answers over 500k specs) come from the heap and stay as slack: ~85 MB of each
# visitor's ~175 MB at site scale. A fixed threshold returns every large temporary when it is freed.
SESSION_MALLOC = {"MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}
ENDED = "This session ended unexpectedly (the server's output says why). Try again."


def session_pythonpath(pythonpath: str) -> tuple[str, list[str]]:
    """A session's PYTHONPATH: the absolute entries of the server's, and those left out. Python resolves the
    others against the working directory, an empty one (`PYTHONPATH=$PYTHONPATH:/x`) being that directory:
    -P alone would leave it on the path."""
    if not pythonpath:
        return "", []  # unset and empty are alike to Python
    entries = pythonpath.split(os.pathsep)
    return (os.pathsep.join(entry for entry in entries if os.path.isabs(entry)),
            [entry for entry in entries if not os.path.isabs(entry)])


def idle_message(idle_timeout: float) -> str:
    """Why an idle session closed, as its page says it (a close reason holds at most 123 bytes)."""
    seconds = round(idle_timeout)
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            return f"Closed after {counted(seconds // size, unit)} without a key, click or resize. Try again."
    return f"Closed after {counted(seconds, 'second')} without a key, click or resize. Try again."


def busy_message(max_sessions: int) -> str:
    # A websocket close reason holds at most 123 bytes.
    if max_sessions == 1:
        return "The one session of this server is in use. Try again in a minute."
    return f"All {max_sessions} sessions of this server are in use. Try again in a minute."


class Session(AppService):
    """One visitor's app process, told its sources through the environment and never left running."""

    def __init__(self, config: ServeConfig, websocket: web.WebSocketResponse, **kwargs: Any) -> None:
        super().__init__(COMMAND, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                         close=self._close_socket, **kwargs)
        self.config = config
        self.websocket = websocket
        self.last_input = asyncio.get_running_loop().time()  # the visitor's last key, mouse event or resize

    async def send_bytes(self, data: bytes) -> bool:
        """The visitor's keys and mouse events (a terminal's input bytes): each one is activity."""
        self.last_input = asyncio.get_running_loop().time()
        return await super().send_bytes(data)

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.last_input = asyncio.get_running_loop().time()
        await super().set_terminal_size(width, height)

    async def _close_socket(self) -> None:
        await self.websocket.close()

    async def run(self) -> None:
        """Relay the app's output until its process ends; an app that ends unasked (it failed to start,
        or crashed) closes the page with a reason rather than leaving it on "starting…"."""
        await super().run()
        if not self.websocket.closed:  # a quit asked for has closed it already
            await self.websocket.close(code=WSCloseCode.INTERNAL_ERROR, message=ENDED.encode())

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        environment.update(self.config.to_environment())
        for name, value in SESSION_MALLOC.items():
            environment.setdefault(name, value)  # a site's own setting wins
        kept, _ = session_pythonpath(environment.get("PYTHONPATH", ""))
        if kept:
            environment["PYTHONPATH"] = kept
        else:
            environment.pop("PYTHONPATH", None)
        return environment

    async def stop(self) -> None:
        """Ask the app to quit; kill it if it has not within STOP_S, and reap it either way."""
        task, process = self._task, self._process
        if task is None or process is None:
            return
        try:
            await asyncio.wait_for(super().stop(), STOP_S)
        except TimeoutError:
            self._task = None
            if process.returncode is None:
                process.kill()
        try:
            await asyncio.wait_for(process.wait(), STOP_S)
        except TimeoutError:  # pragma: no cover - a process that survives SIGKILL
            pass


class SessionServer(Server):
    def __init__(
        self,
        config: ServeConfig,
        *,
        host: str,
        port: int,
        public_url: str | None,
        title: str,
        max_sessions: int,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT_S,
    ) -> None:
        super().__init__(COMMAND, host=host, port=port, title=title, public_url=public_url,
                         templates_path=Path(__file__).parent)
        self.config = config
        self.given_public_url = public_url.rstrip("/") if public_url else None
        self.hosts = ServedHosts(host, public_url)
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self.sessions: set[Session] = set()
        self.icon = ICON.read_bytes()
        self._stopping: set[asyncio.Future[None]] = set()  # held here: the loop keeps only weak references

    async def make_app(self) -> web.Application:
        """The aiohttp application (routes, page, shutdown), to run here or under a test server."""
        app = await self._make_app()
        app.router.add_get("/favicon.svg", self.handle_icon)
        app.router.add_get("/favicon.ico", self.handle_icon)  # where a browser asks when a page names no icon
        app.middlewares.append(self._served_hosts_only)  # every route: the page, /ws, downloads, static files
        return app

    @web.middleware
    async def _served_hosts_only(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        arrived = _arrived_at(request)
        if arrived is None or not self.hosts.serves_host(request.headers.get(hdrs.HOST), *arrived):
            raise web.HTTPMisdirectedRequest(text=MISDIRECTED)
        return await handler(request)

    async def on_startup(self, app: web.Application) -> None:
        pass  # textual-serve prints its logo and the command line; `run` says what matters instead

    async def on_shutdown(self, app: web.Application) -> None:
        """Every session ends with the server: its page is told why, its process stops."""
        for session in list(self.sessions):
            await session.websocket.close(code=WSCloseCode.GOING_AWAY, message=b"The server stopped.")
        await asyncio.gather(*(self._end(session) for session in list(self.sessions)), *list(self._stopping))

    def _base_url(self, request: web.Request) -> str:
        if self.given_public_url is not None:
            return self.given_public_url
        return str(request.url.origin())  # the address this browser used, which is right when bound to 0.0.0.0

    async def handle_index(self, request: web.Request) -> web.Response:
        base = self._base_url(request)
        websocket = ("wss:" if base.startswith("https:") else "ws:") + base.split(":", 1)[1] + "/ws"
        context = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": websocket,
            "static_url": base + "/static/",
            "title": self.title,
        }
        return aiohttp_jinja2.render_template(PAGE, request, context)

    async def handle_icon(self, request: web.Request) -> web.Response:
        return web.Response(body=self.icon, content_type="image/svg+xml", headers=ICON_HEADERS)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        arrived = _arrived_at(request)
        if arrived is None or not self.hosts.serves_origin(request.headers.get(hdrs.ORIGIN), *arrived):
            raise web.HTTPForbidden(text=FOREIGN_PAGE)  # before the upgrade: no session, no place taken
        websocket = web.WebSocketResponse(heartbeat=15)
        await websocket.prepare(request)
        if len(self.sessions) >= self.max_sessions:
            await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=busy_message(self.max_sessions).encode())
            return websocket
        config = replace(self.config, browser_clipboard=secure_context(self._base_url(request)), server_pid=os.getpid())
        session = Session(config, websocket, download_manager=self.download_manager)
        self.sessions.add(session)  # counted before the first await: two visitors cannot both take the last place
        idle = asyncio.ensure_future(self._close_when_idle(session))
        try:
            await session.start(to_int(request.query.get("width", "80"), 80),
                                to_int(request.query.get("height", "24"), 24))
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            pass
        except Exception as error:  # noqa: BLE001 - one visitor's broken message must not stop the server
            print(inert(f"cachetui serve: a session failed: {type(error).__name__}: {error}"), file=sys.stderr)
        finally:
            idle.cancel()
            await self._end(session)
            if not websocket.closed:
                await websocket.close()
        return websocket

    async def _close_when_idle(self, session: Session) -> None:
        """Close the session's page, saying why, once its visitor has sent nothing for `idle_timeout` seconds;
        closing the websocket ends the session as a closed tab does."""
        loop = asyncio.get_running_loop()
        while (left := session.last_input + self.idle_timeout - loop.time()) > 0:
            await asyncio.sleep(left)
        if not session.websocket.closed:
            await session.websocket.close(code=WSCloseCode.GOING_AWAY, message=idle_message(self.idle_timeout).encode())

    async def _end(self, session: Session) -> None:
        """Stop the session; its place is free once its process is gone, even if this handler is cancelled
        meanwhile (aiohttp cancels it when the visitor's connection drops)."""
        stopping = asyncio.ensure_future(session.stop())
        self._stopping.add(stopping)

        def ended(task: asyncio.Future[None]) -> None:
            self._stopping.discard(task)
            self.sessions.discard(session)

        stopping.add_done_callback(ended)
        await asyncio.shield(stopping)

    def run(self, started: Callable[[str], None] | None = None) -> None:
        """Serve until SIGINT or SIGTERM; `started` gets the address once the port is bound."""
        asyncio.run(self._serve(started))

    async def _serve(self, started: Callable[[str], None] | None) -> None:
        runner = web.AppRunner(await self.make_app(), handle_signals=False, access_log=None)
        await runner.setup()
        try:
            try:
                await web.TCPSite(runner, self.host, self.port).start()
            except OSError as exc:  # in use, or not ours to bind: the user's to fix, not an internal error
                fail_usage(unlistened(self.host, self.port, exc))
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, stop.set)
            host, port = runner.addresses[0][:2]
            if started is not None:
                started(self.given_public_url or f"http://{_url_host(_browsable(host))}:{port}")
            await stop.wait()
        finally:
            await runner.cleanup()


def unlistened(host: str, port: int, error: OSError) -> str:
    """Why the server cannot listen on `host:port`, in one line that names the port."""
    where = f"{_url_host(host)}:{port}"
    if error.errno == errno.EADDRINUSE:
        return f"port {port} is in use on {host}: choose another --port (0 picks a free one)"
    return f"cannot listen on {where}: {error.strerror or error}"


def _arrived_at(request: web.Request) -> tuple[str, int] | None:
    """The local address and port a request came in on: which of this machine's addresses the browser used."""
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    if not isinstance(sockname, tuple) or len(sockname) < 2:
        return None
    return str(sockname[0]), int(sockname[1])


def _browsable(host: str) -> str:
    """Bound to every address (0.0.0.0, ::), the server is browsed at one of them, such as loopback:
    a browser sent to 0.0.0.0 asks for host 0.0.0.0, which is not one this server answers."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
