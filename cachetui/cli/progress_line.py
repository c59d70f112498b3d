"""One line of progress on stderr while loading, only when stderr is a terminal (never in a pipe or log)."""

from __future__ import annotations

import time
from types import TracebackType
from typing import TextIO

from cachetui.present.format import loading_text

MIN_INTERVAL_S = 0.1


class ProgressLine:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.active = stream.isatty()
        self.shown = False
        self._last = 0.0

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")  # leave the terminal as it was
            self.stream.flush()

    def update(self, done: int, total: int | None, what: str) -> None:
        now = time.monotonic()
        if not self.active or (now - self._last < MIN_INTERVAL_S and done != total):
            return
        self._last = now
        self.stream.write("\r\x1b[K" + "cachetui: " + loading_text(done, total, what))
        self.stream.flush()
        self.shown = True
