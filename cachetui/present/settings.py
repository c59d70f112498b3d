"""The user's own settings, `$XDG_CONFIG_HOME/cachetui/config.toml`: read, checked, never fatal.

Pure Python (tomllib), so `cachetui config` and the browser read the file by one rule. What only the
app knows (its binding ids and their keys, Textual's themes) is passed in as `Known`. A bad entry
(malformed TOML, an unknown setting, binding id or column, a value of the wrong type) is a `BadEntry`
naming the line and key; that setting keeps its default and the rest of the file still applies
(malformed TOML: nothing of it applies). Lines come from a scan of the text (`toml_lines`).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path

from cachetui.core.model.problems import Problem, Severity
from cachetui.present.inert import inert
from cachetui.present.table_layout import COLUMNS, HIDDEN_AT_FIRST
from cachetui.present.toml_lines import KeyPath, dotted, key_lines, line_of, toml_string

SETTINGS = ("theme", "sources", "hidden_columns", "keymap")
# A column is named as `--format csv` heads it (its key) or as the table titles it.
LISTED = "'cachetui config' lists them"
COLUMN_NAMES = {column.key: column.key for column in COLUMNS} | {column.title: column.key for column in COLUMNS}


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "cachetui" / "config.toml"


@dataclass(frozen=True)
class Known:
    """What the app offers, for the file to be checked against."""

    bindings: Mapping[str, str]  # binding id -> its keys as BINDINGS give them ("question_mark")
    themes: frozenset[str]
    default_theme: str
    descriptions: Mapping[str, str] = field(default_factory=dict)  # binding id -> what it does


@dataclass(frozen=True)
class Settings:
    keymap: Mapping[str, str] = field(default_factory=dict)  # binding id -> keys, comma-separated
    theme: str | None = None  # None: Textual's default
    sources: tuple[str, ...] = ()  # () : the bundled sample
    hidden_columns: frozenset[str] = HIDDEN_AT_FIRST


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

    def problems(self) -> list[Problem]:
        """Each bad entry as a problem: `Problem.described()` is its one line (file, line, key, reason).

        A warning: the app runs on with that setting's default, and no source failed to load because of it.
        """
        return [Problem(str(self.path), f"{entry.key}: {entry.reason}" if entry.key else entry.reason,
                        Severity.WARNING, entry.line) for entry in self.bad]


def read_settings(path: Path, known: Known) -> UserSettings:
    """The settings in the file at `path`; no file is no settings, an unreadable one a bad entry."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return UserSettings(path, found=False)
    except OSError as exc:
        return UserSettings(path, found=True, bad=(BadEntry(None, "", f"cannot be read: {exc.strerror or exc}"),))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return UserSettings(path, found=True, bad=(BadEntry(None, "", f"not UTF-8 (byte {exc.start + 1})"),))
    return parse_settings(text, path, known)


_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$|\s*\(at end of document\)$")


def parse_settings(text: str, path: Path, known: Known) -> UserSettings:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _AT.search(message)
        line = int(at.group(1)) if at is not None and at.group(1) else len(text.splitlines()) or None
        reason = f"not valid TOML: {_AT.sub('', message).lower()}"
        if at is not None and at.group(2):
            reason += f" (column {at.group(2)})"
        return UserSettings(path, found=True, bad=(BadEntry(line, "", reason + "; every setting is its default"),))
    return _Checker(text, known).check(path, data)


class _Checker:
    """Takes each setting the file gives, or says why not."""

    def __init__(self, text: str, known: Known) -> None:
        self._lines = key_lines(text)
        self._known = known
        self.bad: list[BadEntry] = []

    def _refuse(self, path: KeyPath, reason: str) -> None:
        self.bad.append(BadEntry(line_of(self._lines, path), dotted(path), reason))

    def check(self, path: Path, data: dict[str, object]) -> UserSettings:
        unknown = [name for name in data if name not in SETTINGS]
        for name in unknown:
            self._refuse((name,), f"not a setting ({_one_of(name, SETTINGS)})")
        theme = self._theme(data["theme"]) if "theme" in data else None
        sources = self._sources(data["sources"]) if "sources" in data else None
        hidden = self._hidden_columns(data["hidden_columns"]) if "hidden_columns" in data else None
        keymap = self._keymap(data["keymap"]) if "keymap" in data else None
        settings = Settings(keymap=keymap or {}, theme=theme, sources=sources or (),
                            hidden_columns=HIDDEN_AT_FIRST if hidden is None else hidden)
        given = {name for name, value in zip(SETTINGS, (theme, sources, hidden, keymap)) if value is not None}
        return UserSettings(path, found=True, settings=settings, bad=tuple(sorted(self.bad, key=_in_file_order)),
                            given=frozenset(given))

    def _theme(self, value: object) -> str | None:
        if not isinstance(value, str):
            self._refuse(("theme",), f"a theme's name is a string, not {_kind(value)}")
            return None
        if value not in self._known.themes:
            self._refuse(("theme",), f"no theme {value!r} ({_one_of(value, sorted(self._known.themes))})")
            return None
        return value

    def _strings(self, name: str, value: object) -> list[str] | None:
        if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
            self._refuse((name,), f"a list of non-empty strings, not {_kind(value)}")
            return None
        return [str(item) for item in value]

    def _sources(self, value: object) -> tuple[str, ...] | None:
        sources = self._strings("sources", value)
        if sources is None:
            return None
        # `~` as a shell expands it on a command line; other sources (URLs, NAME=SOURCE) as they are
        return tuple(os.path.expanduser(source) if source.startswith("~") else source for source in sources)

    def _hidden_columns(self, value: object) -> frozenset[str] | None:
        names = self._strings("hidden_columns", value)
        if names is None:
            return None
        unknown = [name for name in names if name not in COLUMN_NAMES]
        if unknown:
            self._refuse(("hidden_columns",), f"no column {unknown[0]!r} ({_one_of(unknown[0], COLUMN_NAMES)})")
            return None
        return frozenset(COLUMN_NAMES[name] for name in names)

    def _keymap(self, value: object) -> dict[str, str] | None:
        if not isinstance(value, dict):
            self._refuse(("keymap",), f"a table of binding ids and keys, not {_kind(value)}")
            return None
        keymap: dict[str, str] = {}
        for path, keys in _leaves(("keymap",), value):
            binding = ".".join(path[1:])  # `browser.help = "f2"` is a nested table: the same id
            if binding not in self._known.bindings:
                self._refuse(path, f"no binding id {binding!r} ({_one_of(binding, self._known.bindings, LISTED)})")
            elif binding in keymap:
                self._refuse(path, "given twice: as a quoted key and as a dotted one")
            elif not isinstance(keys, str):
                self._refuse(path, f"keys are a string (comma-separated: \"f2,ctrl+h\"), not {_kind(keys)}")
            elif not all(part.strip() and " " not in part.strip() for part in keys.split(",")):
                self._refuse(path, f"{keys!r} is not a comma-separated list of keys")
            else:
                keymap[binding] = keys
        return keymap


def _in_file_order(entry: BadEntry) -> tuple[bool, int]:
    return entry.line is None, entry.line or 0


def _leaves(path: KeyPath, table: dict[str, object]) -> list[tuple[KeyPath, object]]:
    leaves: list[tuple[KeyPath, object]] = []
    for key, value in table.items():
        if isinstance(value, dict):
            leaves += _leaves(path + (key,), value)
        else:
            leaves.append((path + (key,), value))
    return leaves


def _kind(value: object) -> str:
    kinds = {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list", dict: "a table"}
    return next((kind for type_, kind in kinds.items() if isinstance(value, type_)), "a date or time")


def _one_of(wrong: str, choices: Collection[str], listed: str = "") -> str:
    near = get_close_matches(wrong, list(choices), n=1, cutoff=0.6)
    if near:
        return f"did you mean {near[0]!r}?"
    return listed or "one of: " + ", ".join(sorted(choices))


def effective_toml(user: UserSettings, known: Known) -> str:
    """The settings in effect, as the TOML that sets them; `# default` marks each the file does not set."""
    settings, given = user.settings, user.given
    state = "" if user.found else ": not found, every setting is its default"
    theme = toml_string(settings.theme or known.default_theme)
    sources = _array(settings.sources)
    hidden = _array(c.key for c in COLUMNS if c.key in settings.hidden_columns)
    lines = [f"# {inert(str(user.path))}{state}",
             "# The settings in effect; '# default' marks each the file does not set.",
             _line("theme", theme, _note("theme" in given, theme, toml_string(known.default_theme))),
             _line("sources", sources, _note("sources" in given, sources, "[]", "the bundled sample")),
             _line("hidden_columns", hidden, _note("hidden_columns" in given, hidden, _array(sorted(HIDDEN_AT_FIRST)))),
             "",
             "[keymap]  # binding id = keys, comma-separated",
             ]
    for binding, default in sorted(known.bindings.items()):
        keys = toml_string(settings.keymap.get(binding, default))
        note = _note(binding in settings.keymap, keys, toml_string(default))
        lines.append(_line(toml_string(binding), keys, note, inert(known.descriptions.get(binding, ""))))
    return "\n".join(lines) + "\n"


def _line(key: str, value: str, *comments: str) -> str:
    comment = "; ".join(c for c in comments if c)
    return f"{key} = {value}" + (f"  # {comment}" if comment else "")


def _note(given: bool, shown: str, default: str, meaning: str = "") -> str:
    """`default` (and what it means) for a setting the file leaves out; the default beside one it changes."""
    if not given:
        return f"default: {meaning}" if meaning else "default"
    return f"default: {default}{', ' + meaning if meaning else ''}" if shown != default else ""


def _array(values: Iterable[str]) -> str:
    return "[" + ", ".join(toml_string(value) for value in values) + "]"
