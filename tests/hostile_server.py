"""A loopback server that misbehaves on purpose, for the hostile-mirror tests.

Listens on 127.0.0.1, port 0; nothing reaches the internet. Routes, each over the files under `root`:

- `/private/<path>`: only with HTTP basic credentials USER:PASSWORD, else 401;
- `/loop/<path>`: a redirect to itself, for ever;
- `/away/<path>`: a redirect to `http://localhost:<port>/<path>` (another host name for this server);
- `/home/<path>`: a redirect to `/private/<path>` on this host;
- `/reset/...`: the connection reset (RST) without an answer;
- anything else: the file;
- every path, while `forbidden` is set: 403 (a mirror that stopped letting this user in).

Every request is recorded with the host it named and the Authorization header it carried.
"""

from __future__ import annotations

import base64
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.loopback import serving

USER, PASSWORD = "reader", "s3cr3t-p@ss"


@dataclass(frozen=True)
class Seen:
    host: str
    path: str
    authorization: str | None


@dataclass
class HostileServer:
    root: Path
    port: int = 0
    seen: list[Seen] = field(default_factory=list)
    forbidden: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def at(self, path: str) -> str:
        return f"{self.url}/{path.lstrip('/')}"

    def with_credentials(self, path: str, user: str = USER, password: str = PASSWORD) -> str:
        from urllib.parse import quote

        return f"http://{quote(user, safe='')}:{quote(password, safe='')}@127.0.0.1:{self.port}/{path.lstrip('/')}"


def _handler(state: HostileServer) -> type[SimpleHTTPRequestHandler]:
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(state.root), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
            pass

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            self.do_GET()

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            state.seen.append(Seen(self.headers.get("Host", ""), self.path, self.headers.get("Authorization")))
            route, _, rest = self.path.lstrip("/").partition("/")
            if state.forbidden:
                self.send_error(403)
                return
            if route == "private":
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.path = "/" + rest
            elif route in ("loop", "away", "home"):
                target = {"loop": self.path, "away": f"http://localhost:{state.port}/{rest}", "home": f"/private/{rest}"}
                self.send_response(302)
                self.send_header("Location", target[route])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            elif route == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            super().do_GET() if self.command == "GET" else super().do_HEAD()

        def finish(self) -> None:
            try:
                super().finish()
            except (OSError, ValueError):  # the connection this handler reset on purpose
                pass

    return Handler


def serve_hostile(root: Path) -> Iterator[HostileServer]:
    """Serve `root` on 127.0.0.1 (port 0) until the generator is closed."""
    state = HostileServer(root)
    with serving(_handler(state)) as httpd:
        state.port = httpd.server_address[1]
        yield state


# -- an index whose values try to drive the terminal or fake lines --------------------------------------

EVIL_HASH = "u5uz3dcch5if4eve4sef67o2rf2lbfgh"  # libdwarf (m1) in the DB 8 fixture
EVIL_VALUE = "x\n+cuda\nhash     abcdefgh\x1b[31m\tcol\u202eevil\u200b\x07\rend"
EVIL_OS = "ubuntu\n22.04\x1b]0;PWNED\x07"


def evil_index(index: bytes) -> bytes:
    """The index with one record's variant value, variant names and OS written to fake lines and columns."""
    import json

    data = json.loads(index)
    spec = data["database"]["installs"][EVIL_HASH]["spec"]
    spec["parameters"].update({"evil": EVIL_VALUE, "fake +cuda": True, "k\nv": "1"})
    spec["arch"]["platform_os"] = EVIL_OS
    return json.dumps(data).encode()
