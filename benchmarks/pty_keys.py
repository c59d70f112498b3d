#!/usr/bin/env python3
"""Key to frame, as a user feels it: the app in a pseudo-terminal, beside a bare Textual app, in one run.

    .venv/bin/python benchmarks/pty_keys.py [TREE] [--presses 40] [--size 120x40]

Each app runs in its own pty at the given size. After it has drawn its first screen and gone
quiet, keys are written one at a time; a key's time is from the write to the last byte of the
burst of output that answers it (the burst ends when the terminal has been quiet for QUIET_S,
which is subtracted). The bare app (benchmarks/bare_app.py: one Input, two Statics redrawn per
key) is the floor: the least a full-screen answer costs in Textual on this machine now, so the
verdict is a ratio to it, measured side by side. Prints p50/p90 per interaction and the ratios.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
QUIET_S = 0.06  # no output for this long ends a burst: longer than a frame (1/60 s) with room to spare
READY_QUIET_S = 1.5
KEYS = {"down": b"\x1b[B", "pagedown": b"\x1b[6~", "escape": b"\x1b", "enter": b"\r", "tab": b"\t"}


@dataclass
class Session:
    pid: int
    fd: int

    @classmethod
    def start(cls, argv: list[str], columns: int, rows: int) -> Session:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the app, on the pty
            os.environ.update(TERM="xterm-256color", COLUMNS=str(columns), LINES=str(rows))
            os.execv(argv[0], argv)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        return cls(pid, fd)

    def drain(self, quiet: float, limit: float) -> float | None:
        """Read until the terminal has been quiet for `quiet`; the time of the last byte (None if none came)."""
        last, deadline = None, time.perf_counter() + limit
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([self.fd], [], [], quiet)
            if not ready:
                return last
            try:
                if not os.read(self.fd, 1 << 16):
                    return last
            except OSError:
                return last
            last = time.perf_counter()
        return last

    def press(self, key: bytes) -> float:
        """Seconds from writing `key` to the last byte of the output that answers it."""
        sent = time.perf_counter()
        os.write(self.fd, key)
        last = self.drain(QUIET_S, 10.0)
        return (last - sent) if last is not None else float("nan")

    def stop(self) -> None:
        try:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def _ready(session: Session) -> None:
    """The first screen is drawn and the app has gone quiet (a load may take a while: wait for it)."""
    session.drain(READY_QUIET_S, 180.0)


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(t * 1000 for t in times if t == t) or [float("nan")]  # nan: no key was answered
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def measure_bare(columns: int, rows: int, presses: int) -> dict[str, list[float]]:
    session = Session.start([PYTHON, str(HERE / "bare_app.py")], columns, rows)
    try:
        _ready(session)
        typing = [session.press(b"abcdefghij"[i % 10:i % 10 + 1]) for i in range(presses)]
        down = [session.press(KEYS["down"]) for _ in range(presses)]
        return {"typing": typing, "down": down}
    finally:
        session.stop()


def measure_app(tree: str, columns: int, rows: int, presses: int) -> dict[str, list[float]]:
    session = Session.start([str(Path(PYTHON).with_name("cachetui")), tree], columns, rows)
    try:
        _ready(session)
        session.press(b"/")
        typing = [session.press(c.encode()) for c in ("hdf5" * presses)[:presses]]  # a package search
        session.press(KEYS["enter"])  # open it: the table has the focus
        session.drain(READY_QUIET_S, 30.0)
        down = [session.press(KEYS["down"]) for _ in range(presses)]
        pages = [session.press(KEYS["pagedown"]) for _ in range(max(1, presses // 4))]
        return {"typing": typing, "down": down, "pagedown": pages}
    finally:
        session.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", default=str(HERE / "corpora" / "varied-L"),
                        help="what cachetui opens (default: the varied 500k-spec tree of make bench)")
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args(argv)
    columns, rows = map(int, args.size.split("x"))
    bare = measure_bare(columns, rows, args.presses)
    app = measure_app(args.tree, columns, rows, args.presses)
    floor = {"typing": _percentiles(bare["typing"]), "down": _percentiles(bare["down"])}
    print(f"key -> last byte of the answering frame, {args.size}, {args.presses} presses each, "
          f"{os.cpu_count()} cores; cachetui on {args.tree}")
    print("| interaction | cachetui p50 / p90 | bare app p50 / p90 | p90 ratio |")
    print("|---|---|---|---|")
    for name, times in app.items():
        p50, p90 = _percentiles(times)
        base = floor["typing" if name == "typing" else "down"]
        print(f"| {name} | {p50:.0f} / {p90:.0f} ms | {base[0]:.0f} / {base[1]:.0f} ms | {p90 / base[1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
