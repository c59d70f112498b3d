"""A served session ends when its server does, however the server ended.

textual-serve starts each visitor's app as the server's child and tells it to quit when the tab
closes. A server that is killed (SIGKILL, the OOM killer) tells nothing; its child's input pipe
closes, which Textual's web driver reads as "no more input", not as a reason to exit, so the app
would stay alive with its memory and CPU. On Linux the kernel sends the parent-death signal.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# SIGTERM, which the web driver turns into a quit: whatever the session was writing (the warm cache) ends cleanly.
SIGNAL = signal.SIGTERM


def end_with_server(server_pid: int | None) -> bool:
    """Ask for `SIGNAL` when the server (our parent, `server_pid`) dies; False when it has died already, so
    this session has no one to serve (the request can only be made from here, after the server forked us)."""
    if server_pid is None:
        return True  # not started by a server: a test, or run by hand
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(SIGNAL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
            pass
    # Asked after the fork: a server that died before then would never signal; its child has a new parent.
    return os.getppid() == server_pid
