"""The user's own settings, `$XDG_CONFIG_HOME/cachetui/config.toml`: read, checked, never fatal.

Pure Python (tomllib), so `cachetui config` and the browser read the file by one rule. What only the
app knows (its binding ids and their keys, Textual's themes) is passed in as `Known`. A bad entry
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
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from difflib import get_close_matches
from functools import partial
from pathlib import Path

from cachetui.core.model.problems import Problem, Severity
from cachetui.core.spack.words import ECHO_LIMIT, counted, echo
from cachetui.present.inert import inert
from cachetui.present.key_names import key_problem, keys_of
from cachetui.present.key_views import KeyView
from cachetui.present.table_layout import COLUMNS, HIDDEN_AT_FIRST
from cachetui.present.toml_lines import DEPTH, KeyPath, deep_key, dotted, key_lines, line_of, toml_lines, toml_string

SETTINGS = ("theme", "sources", "hidden_columns", "keymap")
# A column is named as `--format csv` heads it (its key) or as the table titles it.
LISTED = "'cachetui config' lists them"
COLUMN_NAMES = {column.key: column.key for column in COLUMNS} | {column.title: column.key for column in COLUMNS}
MAX_BYTES = 1 << 20  # a settings file written by hand is a few hundred bytes
ALL_DEFAULT = "every setting is its default"
MAX_KEY_PARTS = 4  # a setting's key has three at most (`keymap.browser.help`)


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
    key_names: frozenset[str] = frozenset()  # the keys Textual names, beyond a letter or digit (`key_names`)
    character_keys: Mapping[str, str] = field(default_factory=dict)  # "?" -> "question_mark", as Textual names them
    views: tuple[KeyView, ...] = ()  # binding ids whose keys act at the same time (`key_views`)


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
    """The settings in the file at `path`; no file is no settings, an unreadable one a bad entry.

    Never blocks and never reads more than MAX_BYTES + 1: a FIFO or a device is not opened for reading
    at all, and a file larger than the cap is refused whole (half a settings file is not the user's).
    """
    from cachetui.core.load import NotRegular, open_regular  # the one rule for opening a local input

    try:
        handle, info = open_regular(str(path))
    except FileNotFoundError:
        return UserSettings(path, found=False)
    except NotRegular as exc:
        return _unread(path, f"{exc.kind}, not a regular file; {ALL_DEFAULT}")
    except OSError as exc:
        return _unread(path, f"cannot be read: {exc.strerror or exc}; {ALL_DEFAULT}")
    with handle:
        data = handle.read(MAX_BYTES + 1) if info.st_size <= MAX_BYTES else b""
    if info.st_size > MAX_BYTES or len(data) > MAX_BYTES:
        return _unread(path, f"larger than {MAX_BYTES >> 20} MiB; {ALL_DEFAULT}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _unread(path, f"not UTF-8 (byte {exc.start + 1}); {ALL_DEFAULT}")
    return parse_settings(text, path, known)


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
    """Takes each setting the file gives, or says why not."""

    def __init__(self, text: str, known: Known) -> None:
        self._lines = key_lines(text)
        self._known = known
        self.bad: list[BadEntry] = []
        self._unlisted = 0  # bad entries past MAX_LISTED: counted, not worded

    def _refuse(self, path: KeyPath, reason: str | Callable[[], str]) -> None:
        """One bad entry. Its reason (a "did you mean" costs a comparison with every name) is worded, at once,
        only for the first MAX_LISTED, so a file of 100,000 wrong keys costs what reading them costs."""
        if len(self.bad) >= MAX_LISTED:
            self._unlisted += 1
            return
        worded = reason if isinstance(reason, str) else reason()
        self.bad.append(BadEntry(line_of(self._lines, path), echo(dotted(path[:DEPTH])), worded))

    def check(self, path: Path, data: dict[str, object]) -> UserSettings:
        unknown = [name for name in data if name not in SETTINGS]
        for name in unknown:
            self._refuse((name,), partial(_unknown, "not a setting", name, SETTINGS))
        theme = self._theme(data["theme"]) if "theme" in data else None
        sources = self._sources(data["sources"]) if "sources" in data else None
        hidden = self._hidden_columns(data["hidden_columns"]) if "hidden_columns" in data else None
        keymap = self._keymap(data["keymap"]) if "keymap" in data else None
        settings = Settings(keymap=keymap or {}, theme=theme, sources=sources or (),
                            hidden_columns=HIDDEN_AT_FIRST if hidden is None else hidden)
        given = {name for name, value in zip(SETTINGS, (theme, sources, hidden, keymap)) if value is not None}
        bad = sorted(self.bad, key=_in_file_order)
        if self._unlisted:
            bad.append(BadEntry(None, "", f"{counted(self._unlisted, 'more bad entry', 'more bad entries')}, "
                                          "not listed"))
        return UserSettings(path, found=True, settings=settings, bad=tuple(bad), given=frozenset(given),
                            lines=self._lines)

    def _theme(self, value: object) -> str | None:
        if not isinstance(value, str):
            self._refuse(("theme",), f"a theme's name is a string, not {_kind(value)}")
            return None
        if value not in self._known.themes:
            self._refuse(("theme",), partial(_unknown, f"no theme {echo(value, quoted=True)}", value,
                                                     sorted(self._known.themes)))
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
            self._refuse(("hidden_columns",), partial(_unknown, f"no column {echo(unknown[0], quoted=True)}",
                                                              unknown[0], COLUMN_NAMES))
            return None
        return frozenset(COLUMN_NAMES[name] for name in names)

    def _keymap(self, value: object) -> dict[str, str] | None:
        if not isinstance(value, dict):
            self._refuse(("keymap",), f"a table of binding ids and keys, not {_kind(value)}")
            return None
        keymap: dict[str, str] = {}
        paths: dict[str, KeyPath] = {}
        for path, keys in _leaves(("keymap",), value, 1 + max((b.count(".") + 1 for b in self._known.bindings),
                                                              default=1)):
            binding = ".".join(path[1:])  # `browser.help = "f2"` is a nested table: the same id
            if binding not in self._known.bindings and isinstance(keys, dict):  # deeper than any binding id
                self._refuse(path, f"no binding id {echo(binding + '.…', quoted=True)}")
            elif binding not in self._known.bindings:
                self._refuse(path, partial(_unknown, f"no binding id {echo(binding, quoted=True)}", binding,
                                                   self._known.bindings, LISTED))
            elif binding in keymap:
                self._refuse(path, "given twice: as a quoted key and as a dotted one")
            elif not isinstance(keys, str):
                self._refuse(path, f"keys are a string (comma-separated: \"f2,ctrl+h\"), not {_kind(keys)}")
            elif (wrong := self._wrong_keys(keys)) is not None:
                self._refuse(path, wrong)
            else:
                keymap[binding] = keys
                paths[binding] = path
        for dropped, reason in _clashes(keymap, self._known):
            for binding in dropped:
                del keymap[binding]
            first = min((paths[binding] for binding in dropped), key=lambda path: line_of(self._lines, path) or 0)
            self._refuse(first, reason)  # said once, on the first line of the file that makes it
        return keymap

    def _wrong_keys(self, value: str) -> str | None:
        """Why a keymap value binds no key (it names one Textual never sends); None when every key is one."""
        known = self._known
        for part in value.split(","):
            if not part.strip() or " " in part.strip():
                return f"{echo(value, quoted=True)} is not a comma-separated list of keys"
        for key in keys_of(value, known.character_keys):
            problem = key_problem(key, known.key_names, known.character_keys)
            if problem is not None:
                return problem
        return None


MAX_LISTED = 50  # more than a file written by hand holds; past it, the count of the rest


def _clashes(keymap: dict[str, str], known: Known) -> list[tuple[tuple[str, ...], str]]:
    """The file's bindings that share a key with another binding acting in the same view, each clash once:
    (the file's binding ids in it, which keep their default keys, and the line that says so).

    A clash the defaults already have is by design (`q` closes a dialog rather than quitting the app), so
    only a key the file binds can make one. Taking a binding back to its default can make a new clash with
    another of the file's, so this runs until none is left; each round takes at least one binding back.
    """
    defaults = {binding: set(keys_of(keys, known.character_keys)) for binding, keys in known.bindings.items()}
    found: list[tuple[tuple[str, ...], str]] = []
    while (clash := _first_clash(keymap, defaults, known)) is not None:
        key, view, pair = clash
        mine = tuple(binding for binding in pair if binding in keymap)
        keymap = {binding: keys for binding, keys in keymap.items() if binding not in mine}
        whose = "both keep their default keys" if len(mine) == 2 else f"{mine[0]} keeps its default keys"
        found.append((mine, f"{echo(key, quoted=True)} is bound to both {pair[0]} and {pair[1]}, which act "
                            f"together in {view.name}; {whose}"))
    return found


def _first_clash(keymap: Mapping[str, str], defaults: Mapping[str, set[str]],
                 known: Known) -> tuple[str, KeyView, tuple[str, str]] | None:
    bound = {binding: set(keys_of(keymap[binding], known.character_keys)) if binding in keymap else keys
             for binding, keys in defaults.items()}
    for view in known.views:
        by_key: dict[str, list[str]] = {}
        for binding in sorted(bound):
            if view.holds(binding):
                for key in bound[binding]:
                    by_key.setdefault(key, []).append(binding)
        for key, bindings in sorted(by_key.items()):
            for i, first in enumerate(bindings):
                for second in bindings[i + 1:]:
                    by_file = first in keymap or second in keymap
                    if by_file and not (key in defaults[first] and key in defaults[second]):
                        return key, view, (first, second)
    return None


def _in_file_order(entry: BadEntry) -> tuple[bool, int]:
    return entry.line is None, entry.line or 0


def _leaves(path: KeyPath, table: dict[str, object], depth: int) -> list[tuple[KeyPath, object]]:
    """Each value under `table` with its key path; a table `depth` parts down is taken as a value (no binding
    id is that long), so a key of 5,000 dotted parts is one bad entry, read without recursion."""
    leaves: list[tuple[KeyPath, object]] = []
    stack: list[tuple[KeyPath, object]] = [(path + (key,), value) for key, value in reversed(table.items())]
    while stack:
        at, value = stack.pop()
        if isinstance(value, dict) and len(at) < depth:
            stack += [(at + (key,), inner) for key, inner in reversed(value.items())]
        else:
            leaves.append((at, value))
    return leaves


def _kind(value: object) -> str:
    kinds = {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list", dict: "a table"}
    return next((kind for type_, kind in kinds.items() if isinstance(value, type_)), "a date or time")


def _unknown(what: str, wrong: str, choices: Collection[str], listed: str = "") -> str:
    return f"{what} ({_one_of(wrong, choices, listed)})"


def _one_of(wrong: str, choices: Collection[str], listed: str = "") -> str:
    near = get_close_matches(wrong, list(choices), n=1, cutoff=0.6) if len(wrong) <= ECHO_LIMIT else []
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
