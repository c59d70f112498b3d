"""What `cachetui serve` does when not told otherwise: read by its options (`serve.py`) and its server (`web.py`).

Standard library only, and apart from both: `cachetui serve --help` states them without loading the web
server, and the server takes them without importing the command that starts it.
"""

from __future__ import annotations

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# One app process per visitor. Their corpus is the warm cache's file, mapped and shared, so what limits them
# is CPU: each is a Textual app answering keys, and 4 fit a 2-core server. textual-serve has no limit.
DEFAULT_MAX_SESSIONS = 4
DEFAULT_IDLE_TIMEOUT_S = 1800  # seconds
