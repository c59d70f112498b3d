"""Saving the theme chosen in the palette: only the `theme = ` line changes, the rest stays byte for byte.

The user's file is theirs (comments, order, blank lines): it is never re-serialised. The `theme` line
is rewritten in place, or a new one added where TOML allows a top-level key (before the first table,
or at the end of a file that has none). A rewrite is kept only if tomllib reads it back as the file
it was with just the theme changed; then it replaces the file atomically (a temporary file in the
same folder, `os.replace`), so a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from pathlib import Path

from cachetui.present.config.settings_text import MAX_KEY_PARTS, SettingsUnreadable, settings_text
from cachetui.present.config.toml_lines import deep_key, key_lines, toml_lines, toml_string


class ThemeNotSaved(Exception):
    """The file could not be rewritten safely (not TOML now, or not writable); the message says why."""


_VALUE = re.compile(r"""(\s*[^=]*=\s*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^#\r\n]*?)(\s*(?:#.*)?)(\r?\n)?$""")


def with_theme(text: str, theme: str) -> str:
    """`text` with its top-level `theme` set to `theme`, every other byte as it was."""
    if deep_key(text, MAX_KEY_PARTS) is not None:  # tomllib's time grows with the square of a key's parts
        raise ThemeNotSaved(f"it holds a key of more than {MAX_KEY_PARTS} dotted parts, which is no setting")
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ThemeNotSaved(f"it is not valid TOML now ({exc})") from None
    except RecursionError:
        raise ThemeNotSaved("it nests arrays or tables too deeply to be read") from None
    wanted = before | {"theme": theme}
    for candidate in _candidates(text, toml_string(theme)):
        try:
            if tomllib.loads(candidate) == wanted:
                return candidate
        except tomllib.TOMLDecodeError:
            continue
    raise ThemeNotSaved("its theme line could not be changed alone")


def _candidates(text: str, value: str) -> list[str]:
    lines = toml_lines(text, keepends=True)
    line = key_lines(text).get(("theme",))
    if line is not None:  # the line that sets it: the value changes, the key's spelling and a comment stay
        match = _VALUE.match(lines[line - 1])
        if match is not None:
            lines[line - 1] = match.group(1) + value + match.group(3) + (match.group(4) or "")
            return ["".join(lines)]
        return []
    newline = "\r\n" if "\r\n" in text else "\n"
    added = f"theme = {value}{newline}"
    headers = [i for i, line in enumerate(lines) if line.lstrip().startswith("[")]
    if not headers:
        return [text + ("" if not text or text.endswith(("\n", "\r")) else newline) + added]
    first = headers[0]
    while first > 0 and lines[first - 1].lstrip().startswith("#"):
        first -= 1  # a comment right above the first table is that table's
    return ["".join(lines[:first] + [added] + lines[first:]), added + text]


def save_theme(path: Path, theme: str) -> None:
    """Set `theme` in the settings file at `path` (made if missing), atomically."""
    target = path.resolve()  # a symlinked file (a dotfiles checkout) is rewritten where it lives
    try:
        text = settings_text(target) or ""
    except SettingsUnreadable as exc:
        raise ThemeNotSaved(f"it cannot be read ({exc})") from None
    data = with_theme(text, theme).encode("utf-8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".config.toml.")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            if target.exists():
                os.chmod(temporary, target.stat().st_mode & 0o7777)
            os.replace(temporary, target)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as exc:
        raise ThemeNotSaved(f"it cannot be written ({exc.strerror or exc})") from None
