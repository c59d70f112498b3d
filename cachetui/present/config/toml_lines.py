"""Where a key is written in a TOML text, by a simple scan (tomllib reports no lines for valid TOML).

The scan reads one line at a time: a `[table]` (or `[[array]]`) header sets the table the lines below
it are in, and a line starting `key =` (bare, "quoted" or 'literal' parts, dotted) names the key that
table plus those parts make. That is how settings files are written by hand. What it does not follow
(a key inside an inline table, a line inside a multi-line string) falls back to the nearest enclosing
key it found: a bad entry is then said on the line of its table, never on a wrong key's line.
"""

from __future__ import annotations

import re
from functools import cache

from cachetui.present.inert import inert

KeyPath = tuple[str, ...]

_PART = re.compile(r"""[ \t]*(?:([A-Za-z0-9_-]+)|"((?:[^"\\\n]|\\.)*)"|'([^'\n]*)')[ \t]*""")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
# Deeper than any setting (`keymap.browser.help` is three parts): a longer key is found on the line of
# its first DEPTH parts, so a 5,000-part key costs as much to place as an eight-part one.
DEPTH = 8


def key_parts(text: str) -> KeyPath | None:
    """`a."b.c".d` -> ("a", "b.c", "d"); None when `text` is not a key as TOML writes one."""
    parts, end = _key_at(text, 0)
    return parts if end == len(text) else None


def _key_at(text: str, position: int) -> tuple[KeyPath | None, int]:
    """The key written from `position` on, and where it stops (at its first character that is not part of it).

    Each part is one match of `_PART` from where the last one stopped, so a line is read once (a run
    of spaces or an unclosed quote costs its length, never its square).
    """
    parts: list[str] = []
    while True:
        match = _PART.match(text, position)
        if match is None:
            return None, position
        bare, basic, literal = match.groups()
        if len(parts) < DEPTH:
            parts.append(bare if bare is not None else literal if literal is not None else _unescape(basic or ""))
        position = match.end()
        if position == len(text) or text[position] != ".":
            return tuple(parts), position
        position += 1


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "uU":
            code = int(escape[1:], 16)
            return chr(code) if code <= 0x10FFFF else match.group(0)  # not a character: as it is written
        return _ESCAPES.get(escape, escape)

    return re.sub(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)", one, text)


_END_OF_HEADER = re.compile(r"[ \t]*(?:#.*)?$")


def toml_lines(text: str, *, keepends: bool = False) -> list[str]:
    """The lines of a TOML text as TOML counts them (a line ends at LF alone, with or without CR before it).

    Not `str.splitlines`, which also ends a line at a form feed or U+2028 that a TOML string may hold,
    and would put every line after it one off.
    """
    lines = text.split("\n")
    if keepends:
        return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    if not lines[-1]:
        lines.pop()  # the end of the last line, not a line of its own
    return [line.removesuffix("\r") for line in lines]


def key_lines(text: str) -> dict[KeyPath, int]:
    """Every table and key the scan finds, with the line (from 1) it is first written on (up to DEPTH parts)."""
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    for number, line in enumerate(toml_lines(text), 1):
        start = len(line) - len(line.lstrip(" \t"))
        if line.startswith("[", start):
            header = _header(line, start)
            if header is not None:
                table = header[:DEPTH]
                for stop in range(1, len(table) + 1):  # `[a.b]` also makes table `a` there
                    lines.setdefault(table[:stop], number)
                continue
        parts, end = _key_at(line, start)
        if parts is not None and line.startswith("=", end):
            for stop in range(1, len(parts) + 1):  # `a.b = 1` also writes table `a` there
                lines.setdefault((table + parts[:stop])[:DEPTH], number)
    return lines


def _header(line: str, start: int) -> KeyPath | None:
    """The table a `[table]` or `[[array]]` line opens (`()` when its name cannot be read); None: not a header."""
    opening = 2 if line.startswith("[[", start) else 1
    parts, end = _key_at(line, start + opening)
    closing = "]" * opening
    if parts is not None and line.startswith(closing, end) and _END_OF_HEADER.match(line, end + opening):
        return parts
    close = line.find(closing, start + opening)
    return () if close >= 0 and _END_OF_HEADER.match(line, close + opening) else None


_ONE_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_FURTHER = r"[ \t]*+\.[ \t]*+" + _ONE_PART


@cache
def _tokens(limit: int) -> re.Pattern[str]:
    """What a TOML text is made of, for finding its dotted keys: multi-line strings whole (a dot in one is no
    key's), runs of dotted parts (one of more than `limit` parts caught apart), comments, the rest in bulk,
    and a quote that opens no string on its line. Every token is matched without backtracking."""
    return re.compile("|".join([
        r'"""(?:[^"\\]|\\.|"(?!""))*+"""',
        r"'''(?:[^']|'(?!''))*+'''",
        f"{_ONE_PART}(?:{_FURTHER}){{{limit}}}(?P<deep>)",
        f"{_ONE_PART}(?:{_FURTHER})*+",
        r"#[^\n]*+",
        r"""[^"'#A-Za-z0-9_-]++""",
        # A string its line never closes, taken whole to the line's end: one taken a quote at a time would be
        # scanned to that end again from each of its quotes (`"\"\"\"…`, 80 KB of it took 50 s).
        r'"(?:[^"\\\n]|\\.)*+(?=\n|\Z)',
        r"'[^'\n]*+(?=\n|\Z)",
        r".",
    ]), re.DOTALL)


def deep_key(text: str, limit: int) -> int | None:
    """The line of the first key of more than `limit` dotted parts; None when there is none.

    tomllib's work for a dotted key grows with the square of its parts (a 5,000-part key takes a second,
    a megabyte of them hours), so a text holding one is not handed to it. One pass of the tokens finds
    them, in time linear in the text; the dots in a string are not a key's.
    """
    for token in _tokens(limit).finditer(text):
        if token.group("deep") is not None:
            return text.count("\n", 0, token.start()) + 1
    return None


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line `path` is written on, else that of the nearest table around it the scan found."""
    for end in range(min(len(path), DEPTH), 0, -1):
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
