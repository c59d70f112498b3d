"""When each binary of a mirror was pushed: the dates its storage keeps of the binaries' record files.

A local (or `file://`) mirror is walked once per root (`record_walk`: `os.scandir` over its records,
each file's modification time from the walk's own entry); a mirror the user named by its `s3://`
location is listed instead (`bucket_listing`). Anything else (HTTP, OCI, a mirror reached through an
index of indexes, an offline copy) is not looked at: its binaries' dates stay unknown.

The lookup starts before the index is read and is joined once its documents are merged. A walk
runs in a process of its own (`python -I -S record_walk.py`), waited on by a thread: in a thread of
this process the walk's 100,000 `stat` calls would each wait for the GIL the decoding holds, and
its Python work would be added to the load's; in a process of its own it runs on another core and
this process only reads its answer (40 bytes a binary). A small mirror's walk (an index under
APART_BYTES) costs less than starting a process, and runs in the thread, as does any walk where no
process can be started. A binary whose record file is absent stays unknown.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat

from cachetui.core.load.sources import record_walk
from cachetui.core.load.sources.record_walk import V2_RECORDS, V3_RECORDS, Walked, decode, walk
from cachetui.core.load.sources.redact import redact
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.records import UNKNOWN_PUSHED, ParsedDocument
from cachetui.core.spack.words import counted

MAX_ENTRIES = 1_000_000  # directory entries one walk looks at: the largest public tag holds a few hundred thousand
APART_BYTES = 16 << 20  # an index this large (some 8,000 records) is walked in a process of its own


@dataclass(frozen=True)
class RecordStore:
    """Where a mirror's record files are dated: a local directory (walked) or a named `s3://` location (listed)."""

    location: str  # a file-system path, or the s3:// location the user named
    layout: str  # v3 or v2
    listed: bool = False  # True: an s3:// location, listed through the bucket's API
    index_bytes: int | None = None  # how large the mirror's index is (None: not known): whether to walk apart


@dataclass
class PushDates:
    """Per binary hash, when its record was pushed (seconds since the epoch, UTC), and what kept others unknown."""

    dates: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    passing: bool = False  # some dates are unknown for a reason that may pass: what was read is not kept as it is

    def merge(self, dates: dict[str, int], problems: list[Problem], passing: bool = False) -> None:
        """Another store's dates where these say none (these are from the store named first), and its problems."""
        self.passing = self.passing or passing
        if not self.dates:
            self.dates = dates
        else:
            for hash_, when in dates.items():
                self.dates.setdefault(hash_, when)
        self.problems.extend(problems)


class PendingDates:
    """The push dates of some record stores, looked up in a thread started at once; `result()` waits for them."""

    def __init__(self, stores: list[RecordStore], timeout: float) -> None:
        self._stores = stores
        self._timeout = timeout
        self._found = PushDates()
        self._stop = threading.Event()  # set: the dates are no longer wanted, and a walk under way is ended
        self._thread: threading.Thread | None = None
        if stores:
            self._thread = threading.Thread(target=self._run, name="push-dates", daemon=True)
            self._thread.start()

    def result(self) -> PushDates:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        return self._found

    def result_unless(self, cancelled: Callable[[], bool]) -> PushDates | None:
        """`result`, or None as soon as `cancelled()` says the caller no longer wants it (asked every tenth of a
        second). The walk is then ended too: its process killed (`walked_apart`), or, for a walk in a thread (a
        small mirror's, a few thousand entries), left to end on its own."""
        while self._thread is not None and self._thread.is_alive():
            if cancelled():
                self._stop.set()
                self._thread.join(0.5)  # the walk's process is killed within a twentieth of a second
                return None
            self._thread.join(0.1)
        return self.result()

    def _run(self) -> None:
        for store in self._stores:
            try:
                if self._stop.is_set():
                    return
                self._found.merge(*_dates_of(store, self._timeout, self._stop))
            except Exception as exc:  # noqa: BLE001 - a bug here must cost the dates, never the index
                self._found.passing = True
                self._found.problems.append(Problem(redact(store.location), f"push dates unknown: internal error "
                                                    f"{type(exc).__name__} (a bug in cachetui; please report it)",
                                                    Severity.WARNING))


def _dates_of(store: RecordStore, timeout: float, stop: threading.Event | None = None
              ) -> tuple[dict[str, int], list[Problem], bool]:
    if store.listed:
        from cachetui.core.load.sources.bucket_listing import listed_dates  # only for a named s3:// mirror

        return listed_dates(store.location, store.layout, timeout)
    if store.index_bytes is not None and store.index_bytes < APART_BYTES:
        walked = walk(store.location, store.layout, MAX_ENTRIES)
    else:
        walked = walked_apart(store.location, store.layout, timeout, MAX_ENTRIES, stop)
    return walked.dates, _said(store, walked, MAX_ENTRIES), walked.error is not None or walked.unread > 0


def walked_apart(root: str, layout: str, timeout: float, max_entries: int,
                 stop: threading.Event | None = None) -> Walked:
    """`record_walk.walk` of `root`, in a process of its own; in this one when none can be started or it fails.
    `stop` set while it runs: the process is killed, and the walk says it was given up."""
    import subprocess  # only when a large mirror is walked: a warm start never is
    import time

    limit = max(timeout, 60.0)  # a walk of a million entries takes seconds: longer is a file system that hangs
    # -I: nothing of the user's environment, working directory or site-packages; -S: no site at all (faster)
    command = [sys.executable, "-I", "-S", record_walk.__file__, root, layout, str(max_entries)]
    try:
        if not sys.executable:
            raise OSError("no Python to run")
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:  # argv alone
            deadline = time.monotonic() + limit
            while True:
                try:
                    out, err = process.communicate(timeout=0.05)
                    break
                except subprocess.TimeoutExpired:
                    given_up = stop is not None and stop.is_set()
                    if given_up or time.monotonic() > deadline:
                        process.kill()
                        process.communicate()
                        return Walked(error="the walk was given up" if given_up else
                                      f"the walk took longer than {limit:g} s")
        if process.returncode != 0:
            raise subprocess.CalledProcessError(process.returncode, command)
        status = json.loads(err.decode("utf-8", "replace").strip().rpartition("\n")[2])
        error = status["error"]
        if error is not None and not isinstance(error, str):
            raise ValueError("not a walk's status")
        return Walked(decode(out), bool(status["cut"]), int(status["unread"]), error)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
        return walk(root, layout, max_entries)  # a sandbox without processes, or no Python to run: slower, same


def _said(store: RecordStore, walked: Walked, max_entries: int) -> list[Problem]:
    """What kept some of a walk's dates unknown, in one warning."""
    top = redact(os.path.join(store.location, V3_RECORDS if store.layout == "v3" else V2_RECORDS))
    if walked.error is not None:
        return [Problem(top, f"push dates unknown: {walked.error}", Severity.WARNING)]
    if walked.cut:
        return [Problem(top, f"push dates: the walk stopped after {max_entries:,} entries; the dates of the "
                             f"binaries it did not reach are unknown", Severity.WARNING)]
    if walked.unread:
        said = counted(walked.unread, "directory", "directories")
        return [Problem(top, f"push dates: {said} of records could not be read; their binaries' dates are unknown",
                        Severity.WARNING)]
    return []


def fill(documents: Iterable[ParsedDocument], found: PushDates) -> None:
    """Each document's push-date column from `found`: UNKNOWN_PUSHED for a binary no record file dates."""
    if not found.dates:
        return  # nothing dated: the column stays None, every binary unknown
    dated = found.dates.get
    for document in documents:  # map over a C method: this runs once per binary of the load
        hashes = document.columns.hashes
        document.columns.pushed = list(map(dated, hashes, repeat(UNKNOWN_PUSHED, len(hashes))))
