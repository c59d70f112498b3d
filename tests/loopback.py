"""The loopback HTTP server that stands in for a mirror, a hostile server or a registry in the tests."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away is what these tests do on purpose (a reset, a stall, an abandoned download):
        not printed, where it could land after its test, outside pytest's capture. Anything else is."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[LoopbackServer]:
    """`handler` served on 127.0.0.1 (port 0), from a thread, until the block ends."""
    httpd = LoopbackServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
