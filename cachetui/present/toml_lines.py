"""Where a key is written in a TOML text, by a simple scan (tomllib reports no lines for valid TOML).

The scan reads one line at a time: a `[table]` (or `[[array]]`) header sets the table the lines below
it are in, and a line starting `key =` (bare, "quoted" or 'literal' parts, dotted) names the key that
table plus those parts make. That is how settings files are written by hand. What it does not follow
(a key inside an inline table, a line inside a multi-line string) falls back to the nearest enclosing
key it found: a bad entry is then said on the line of its table, never on a wrong key's line.
"""

from __future__ import annotations

import re

from cachetui.present.inert import inert

KeyPath = tuple[str, ...]

_PART = re.compile(r"""\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*""")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def key_parts(text: str) -> KeyPath | None:
    """`a."b.c".d` -> ("a", "b.c", "d"); None when `text` is not a key as TOML writes one."""
    parts: list[str] = []
    position = 0
    while True:
        match = _PART.match(text, position)
        if match is None:
            return None
        bare, basic, literal = match.groups()
        parts.append(bare if bare is not None else literal if literal is not None else _unescape(basic or ""))
        position = match.end()
        if position == len(text):
            return tuple(parts)
        if text[position] != ".":
            return None
        position += 1


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "uU":
            return chr(int(escape[1:], 16))
        return _ESCAPES.get(escape, escape)

    return re.sub(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", one, text)


_HEADER = re.compile(r"\s*\[\[?([^\]]*)\]\]?\s*(#.*)?$")
_ASSIGNMENT = re.compile(r"""\s*((?:[A-Za-z0-9_.\s-]|"(?:[^"\\]|\\.)*"|'[^']*')+?)\s*=""")


def key_lines(text: str) -> dict[KeyPath, int]:
    """Every table and key the scan finds, with the line (from 1) it is first written on."""
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header is not None:
            table = key_parts(header.group(1)) or ()
            lines.setdefault(table, number)
            continue
        assignment = _ASSIGNMENT.match(line)
        parts = key_parts(assignment.group(1)) if assignment is not None else None
        if parts is not None:
            for end in range(1, len(parts) + 1):  # `a.b = 1` also writes table `a` there
                lines.setdefault(table + parts[:end], number)
    return lines


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line `path` is written on, else that of the nearest table around it the scan found."""
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def dotted(path: KeyPath) -> str:
    """A key path as TOML addresses it: bare parts as they are, others quoted (`keymap."browser.help"`)."""
    return ".".join(part if _BARE.fullmatch(part) else toml_string(part) for part in path)


def toml_string(value: str) -> str:
    """A TOML basic string for `value`, with what `inert` would escape written as TOML escapes.

    Printed on a terminal, it can neither move the cursor nor set a title; read back by tomllib,
    it is `value` again.
    """
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif inert(ch) != ch:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
