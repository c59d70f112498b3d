"""How a message words a count, and what the user typed: one rule for every command and the browser.

Messages are built in every layer (the resolver, the spec parser, the loaders), so their words
live at the bottom of the core, where each of them can use the same ones.
"""

from __future__ import annotations

ECHO_LIMIT = 80  # longer than any name or value a cache holds (a 64-hex patch checksum with its `patches=`)
ECHO_START = 40  # what is kept of a longer one


def counted(n: int, one: str, many: str | None = None) -> str:
    """`1 tag`, `2 tags`: a count with its noun in the right number."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def echo(typed: str, *, quoted: bool = False) -> str:
    """What a message says of something typed: as it is (or quoted as `repr` quotes it), unless it is long.

    A long one is cut to its start, `…` and its length (`'aaaa…' (102400 characters)`), so a
    100 KB token never fills a terminal, a log line or the browser's query line.
    """
    if len(typed) <= ECHO_LIMIT:
        return repr(typed) if quoted else typed
    start = typed[:ECHO_START] + "…"
    return f"{repr(start) if quoted else start} ({counted(len(typed), 'character')})"


def echo_at(text: str, position: int) -> tuple[str, int]:
    """`text` around `position`, for a caret under the fault: (the line to show, the caret's column in it).

    A long text keeps ECHO_START characters either side of the fault, marks what it left out
    with `…`, and ends with its length.
    """
    if len(text) <= ECHO_LIMIT:
        return text, position
    start, stop = max(0, position - ECHO_START), min(len(text), position + ECHO_START)
    before = "…" if start else ""
    after = "…" if stop < len(text) else ""
    return f"{before}{text[start:stop]}{after} ({counted(len(text), 'character')})", position - start + len(before)


def one_line(text: str) -> str:
    """A message on one line: any run of whitespace (newlines too) as one space."""
    return " ".join(text.split())


def newer_format(what: str, version: object, newest: int) -> str | None:
    """For a file whose version (an integer, or its decimal text) is above the newest its reader knows:
    `lockfile version 99 is newer than this reader knows (the newest it knows is 8); read as far as it is
    recognisable`, the version cut as any echo is (a JSON integer may hold 4,300 digits); else None."""
    if isinstance(version, int) and not isinstance(version, bool):
        version = str(version)
    if not isinstance(version, str) or not version.isdecimal() or (len(version) < 10 and int(version) <= newest):
        return None
    return (f"{what} version {echo(version)} is newer than this reader knows (the newest it knows is "
            f"{newest}); read as far as it is recognisable")
