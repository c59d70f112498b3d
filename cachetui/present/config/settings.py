"""The user's own settings, `$XDG_CONFIG_HOME/cachetui/config.toml`: read, checked, never fatal.

Pure Python (tomllib), so `cachetui config` and the browser read the file by one rule. Each setting,
with its check, is declared once in `settings_declared`; this reads the file and takes each setting it
gives through that check. What only the app knows (its binding ids and their keys, Textual's themes)
is passed in as `Known`. A bad entry
(malformed TOML, an unknown setting, binding id or column, a value of the wrong type) is a `BadEntry`
naming the line and key; that setting keeps its default and the rest of the file still applies
(malformed TOML: nothing of it applies). Lines come from a scan of the text (`toml_lines`).

The file is the user's, but what it holds is still read as untrusted: only a regular file of at most
MAX_BYTES is read (a FIFO, a device or a huge file is one bad entry, and every setting is its
default), every scan of it is linear, and what it names is echoed short and inert.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from cachetui.core.model.problems import Problem, Severity
from cachetui.core.spack.words import counted, echo
from cachetui.present.config.settings_declared import (
    SETTINGS,
    Known,
    Reason,
    Setting,
    Settings,
    default_note,
    not_one_of,
    toml_line,
)
from cachetui.present.config.settings_text import MAX_KEY_PARTS, SettingsUnreadable, settings_text
from cachetui.present.config.toml_lines import DEPTH, KeyPath, deep_key, dotted, key_lines, line_of, toml_lines
from cachetui.present.inert import inert

ALL_DEFAULT = "every setting is its default"


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "cachetui" / "config.toml"


@dataclass(frozen=True)
class BadEntry:
    line: int | None
    key: str  # as TOML addresses it (`keymap."browser.hlep"`); "" when no key could be named
    reason: str


@dataclass(frozen=True)
class UserSettings:
    path: Path
    found: bool  # False: no file, every setting is its default
    settings: Settings = field(default_factory=Settings)
    bad: tuple[BadEntry, ...] = ()
    given: frozenset[str] = frozenset()  # the settings the file sets (the ids it maps: settings.keymap)
    lines: Mapping[KeyPath, int] = field(default_factory=dict, compare=False)  # where the scan found each key

    def refused(self, path: KeyPath, reason: str) -> UserSettings:
        """These settings with one more bad entry, said on the line `path` is written on (what only a
        command can tell, as a source that does not exist)."""
        entry = BadEntry(line_of(dict(self.lines), path), dotted(path), reason)
        return replace(self, bad=tuple(sorted((*self.bad, entry), key=_in_file_order)))

    def problems(self) -> list[Problem]:
        """Each bad entry as a problem: `Problem.described()` is its one line (file, line, key, reason).

        A warning: the app runs on with that setting's default, and no source failed to load because of it.
        """
        return [Problem(str(self.path), f"{entry.key}: {entry.reason}" if entry.key else entry.reason,
                        Severity.WARNING, entry.line) for entry in self.bad]


def read_settings(path: Path, known: Known) -> UserSettings:
    """The settings in the file at `path`; no file is no settings, an unreadable one a bad entry (see
    `settings_text` for what is read at all)."""
    try:
        text = settings_text(path)
    except SettingsUnreadable as exc:
        return _unread(path, f"{exc}; {ALL_DEFAULT}")
    return UserSettings(path, found=False) if text is None else parse_settings(text, path, known)


def _unread(path: Path, reason: str) -> UserSettings:
    return UserSettings(path, found=True, bad=(BadEntry(None, "", reason),))


_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$|\s*\(at end of document\)$")


def parse_settings(text: str, path: Path, known: Known) -> UserSettings:
    deep = deep_key(text, MAX_KEY_PARTS)
    if deep is not None:
        return UserSettings(path, found=True, bad=(BadEntry(deep, "", f"a key of more than {MAX_KEY_PARTS} dotted "
                                                                    f"parts is no setting; {ALL_DEFAULT}"),))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _AT.search(message)
        line = int(at.group(1)) if at is not None and at.group(1) else len(toml_lines(text)) or None
        reason = f"not valid TOML: {_AT.sub('', message).lower()}"
        if at is not None and at.group(2):
            reason += f" (column {at.group(2)})"
        return UserSettings(path, found=True, bad=(BadEntry(line, "", f"{reason}; {ALL_DEFAULT}"),))
    except RecursionError:  # tomllib reads nested arrays and inline tables by recursion
        return _unread(path, f"nested too deeply to be a setting; {ALL_DEFAULT}")
    except ValueError as exc:  # valid TOML Python will not hold: an integer of more than 4,300 digits
        return _unread(path, f"not read: {str(exc).split(';')[0]}; {ALL_DEFAULT}")
    return _Checker(text, known).check(path, data)


class _Checker:
    """Takes what the file gives each declared setting through its check, and says why not the rest."""

    def __init__(self, text: str, known: Known) -> None:
        self._lines = key_lines(text)
        self._known = known
        self.bad: list[BadEntry] = []
        self._unlisted = 0  # bad entries past MAX_LISTED: counted, not worded

    def _refuse(self, paths: tuple[KeyPath, ...], reason: Reason, under: KeyPath = ()) -> None:
        """One bad entry, said on the line of the first of `paths` (each below `under`) in the file. Its
        reason (a "did you mean" costs a comparison with every name) is worded, at once, only for the first
        MAX_LISTED, so a file of 100,000 wrong keys costs what reading them costs."""
        if len(self.bad) >= MAX_LISTED:
            self._unlisted += 1
            return
        paths = tuple(under + path for path in paths)
        path = min(paths, key=lambda path: line_of(self._lines, path) or 0) if len(paths) > 1 else paths[0]
        worded = reason if isinstance(reason, str) else reason()
        self.bad.append(BadEntry(line_of(self._lines, path), echo(dotted(path[:DEPTH])), worded))

    def check(self, path: Path, data: dict[str, object]) -> UserSettings:
        names = SETTINGS.names
        for name in [name for name in data if name not in names]:
            self._refuse(((name,),), partial(not_one_of, "not a setting", name, names))
        taken: dict[str, object] = {}  # in the order declared, so bad entries past MAX_LISTED are the same ones
        for setting in SETTINGS:
            if setting.name in data and (value := self._taken(setting, data[setting.name])) is not None:
                taken[setting.name] = value
        bad = sorted(self.bad, key=_in_file_order)
        if self._unlisted:
            bad.append(BadEntry(None, "", f"{counted(self._unlisted, 'more bad entry', 'more bad entries')}, "
                                          "not listed"))
        return UserSettings(path, found=True, settings=Settings(taken), bad=tuple(bad), given=frozenset(taken),
                            lines=self._lines)

    def _taken(self, setting: Setting[Any], value: object) -> object | None:
        """What `setting`'s check takes of the file's `value`; each refusal a bad entry."""
        checked = setting.check(value, self._known)
        for refusal in checked.refused:
            self._refuse(refusal.at, refusal.reason, (setting.name,))
        return checked.value


MAX_LISTED = 50  # more than a file written by hand holds; past it, the count of the rest


def _in_file_order(entry: BadEntry) -> tuple[bool, int]:
    return entry.line is None, entry.line or 0


def effective_toml(user: UserSettings, known: Known) -> str:
    """The settings in effect, as the TOML that sets them; `# default` marks each the file does not set."""
    state = "" if user.found else ": not found, every setting is its default"
    lines = [f"# {inert(str(user.path))}{state}",
             "# The settings in effect; '# default' marks each the file does not set."]
    for setting in SETTINGS:  # a value's line, then the tables (TOML gives a table every line below its header)
        if not setting.is_table:
            shown = setting.written(user.settings[setting], known)
            lines.append(toml_line(setting.name, shown, default_note(setting.name in user.given, shown,
                                                                     setting.written(setting.default, known),
                                                                     setting.default_means)))
    for setting in SETTINGS:
        if setting.is_table:
            written = setting.written(user.settings[setting], known)
            lines += ["", f"[{setting.name}]  # {setting.help}", *([written] if written else [])]
    return "\n".join(lines) + "\n"


def settings_table(known: Known) -> str:
    """The table of settings in docs/keys-and-settings.md (Markdown; `scripts/settings_table.py` writes it there):
    each setting with its TOML type, default and what it sets."""
    rows = ["| setting | TOML | default | what it sets |", "|---|---|---|---|"]
    for setting in SETTINGS:
        default = "" if setting.is_table else f"`{setting.written(setting.default, known)}`"
        means = f"{': ' if default else ''}{setting.default_means}" if setting.default_means else ""
        rows.append(f"| `{setting.name}` | {setting.toml_type} | {default}{means} | {setting.help} |")
    return "\n".join(rows) + "\n"
