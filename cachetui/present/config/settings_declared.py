"""Each setting of config.toml, declared once: its name, TOML type, default, check and one line of help.

Everything else iterates over `SETTINGS`: the reader (`settings.parse_settings`) takes what the file gives
through each setting's check, `cachetui config` (`settings.effective_toml`) writes each in effect, and the
table of settings in docs/keys-and-settings.md is `settings.settings_table` (a test holds the page to it). So
a new setting is one declaration here, plus the code that acts on its value; no list of names to keep in step.

A check takes whatever TOML value the file gives (anything tomllib returns) and what the app offers (`Known`),
and returns the part it takes and the reasons for the rest (`Checked`): most settings are taken whole or
refused whole, the keymap binding by binding. The value of a setting the file leaves out, or whose check
takes nothing, is its default.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import cached_property, partial
from types import MappingProxyType
from typing import Any, Generic, Literal, TypeVar, cast

from cachetui.core.spack.words import ECHO_LIMIT, echo
from cachetui.present.config.key_names import key_problem, keys_of
from cachetui.present.config.key_views import KeyView
from cachetui.present.config.toml_lines import KeyPath, toml_string
from cachetui.present.inert import inert
from cachetui.present.spec_table.table_layout import COLUMNS, HIDDEN_AT_FIRST

T = TypeVar("T")

TomlType = Literal["string", "array of strings", "table"]
# A reason costly to word (a "did you mean" compares with every name) is a callable, worded only if listed.
Reason = str | Callable[[], str]
LISTED = "'cachetui config' lists them"


@dataclass(frozen=True)
class Known:
    """What the app offers, for the file to be checked against."""

    bindings: Mapping[str, str]  # binding id -> its keys as BINDINGS give them ("question_mark")
    themes: frozenset[str]
    default_theme: str
    descriptions: Mapping[str, str] = field(default_factory=dict)  # binding id -> what it does
    key_names: frozenset[str] = frozenset()  # the keys Textual names, beyond a letter or digit (`key_names`)
    character_keys: Mapping[str, str] = field(default_factory=dict)  # "?" -> "question_mark", as Textual names them
    # The binding ids whose keys act at the same time (`key_views`): worked out when a keymap is checked for
    # clashes, not at every start (the browser reads the settings before its first frame).
    views_of: Callable[[], tuple[KeyView, ...]] = field(default=tuple, compare=False)

    @cached_property
    def views(self) -> tuple[KeyView, ...]:
        return self.views_of()


@dataclass(frozen=True)
class Refusal:
    """Why a setting's value, or part of it, is not taken."""

    reason: Reason
    # The keys it is about, below the setting's own (`()`: the setting itself); said on the line of the one
    # written first in the file, so a clash of two bindings is one line.
    at: tuple[KeyPath, ...] = ((),)


@dataclass(frozen=True)
class Checked(Generic[T]):
    """What a check takes of the file's value (None: nothing, the setting keeps its default), and why not the rest."""

    value: T | None
    refused: tuple[Refusal, ...] = ()


def refused(reason: Reason) -> Checked[Any]:
    """The whole value refused, for one reason: the setting keeps its default."""
    return Checked(None, (Refusal(reason),))


@dataclass(frozen=True, eq=False)
class Setting(Generic[T]):
    """One setting of config.toml: what the file may give it, what it is without, and how it is written."""

    name: str  # its top-level key
    toml_type: TomlType  # the type of the value the file gives, as the docs name it
    default: T
    check: Callable[[object, Known], Checked[T]]
    # The value as `cachetui config` writes it: a value's TOML, or a table's lines below its `[name]` header.
    written: Callable[[T, Known], str]
    help: str  # one line: the docs' table; a table's header in `cachetui config`
    default_means: str = ""  # what the default is, where its TOML does not say ("the bundled sample")

    @property
    def is_table(self) -> bool:
        return self.toml_type == "table"


# -- the checks ---------------------------------------------------------------------------------------------------

def _theme(value: object, known: Known) -> Checked[str | None]:
    if not isinstance(value, str):
        return refused(f"a theme's name is a string, not {kind_of(value)}")
    if value not in known.themes:
        return refused(partial(not_one_of, f"no theme {echo(value, quoted=True)}", value, sorted(known.themes)))
    return Checked(value)


def _strings(value: object) -> Checked[list[str]]:
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        return refused(f"a list of non-empty strings, not {kind_of(value)}")
    return Checked([str(item) for item in value])


def _sources(value: object, known: Known) -> Checked[tuple[str, ...]]:
    sources = _strings(value)
    if sources.value is None:
        return Checked(None, sources.refused)
    # `~` as a shell expands it on a command line; other sources (URLs, NAME=SOURCE) as they are
    return Checked(tuple(os.path.expanduser(source) if source.startswith("~") else source
                         for source in sources.value))


def column_names() -> dict[str, str]:
    """A column by each name it goes by, `--format csv`'s heading (its key) or the table's title: its key."""
    return {column.key: column.key for column in COLUMNS} | {column.title: column.key for column in COLUMNS}


def _hidden_columns(value: object, known: Known) -> Checked[frozenset[str]]:
    names = _strings(value)
    if names.value is None:
        return Checked(None, names.refused)
    columns = column_names()
    unknown = [name for name in names.value if name not in columns]
    if unknown:
        return refused(partial(not_one_of, f"no column {echo(unknown[0], quoted=True)}", unknown[0], columns))
    return Checked(frozenset(columns[name] for name in names.value))


def _keymap(value: object, known: Known) -> Checked[Mapping[str, str]]:
    if not isinstance(value, dict):
        return refused(f"a table of binding ids and keys, not {kind_of(value)}")
    keymap: dict[str, str] = {}
    paths: dict[str, KeyPath] = {}
    refusals: list[Refusal] = []
    for path, keys in _leaves(value, max((b.count(".") + 1 for b in known.bindings), default=1)):
        binding = ".".join(path)  # `browser.help = "f2"` is a nested table: the same id
        reason: Reason | None = None
        if binding not in known.bindings and isinstance(keys, dict):  # deeper than any binding id
            reason = f"no binding id {echo(binding + '.…', quoted=True)}"
        elif binding not in known.bindings:
            reason = partial(not_one_of, f"no binding id {echo(binding, quoted=True)}", binding, known.bindings,
                             LISTED)
        elif binding in keymap:
            reason = "given twice: as a quoted key and as a dotted one"
        elif not isinstance(keys, str):
            reason = f"keys are a string (comma-separated: \"f2,ctrl+h\"), not {kind_of(keys)}"
        else:
            reason = _wrong_keys(keys, known)
        if reason is not None:
            refusals.append(Refusal(reason, (path,)))
        else:
            keymap[binding] = cast(str, keys)
            paths[binding] = path
    for dropped, reason in _clashes(keymap, known):
        for binding in dropped:
            del keymap[binding]
        refusals.append(Refusal(reason, tuple(paths[binding] for binding in dropped)))  # said once
    return Checked(keymap, tuple(refusals))


def _wrong_keys(value: str, known: Known) -> str | None:
    """Why a keymap value binds no key (it names one Textual never sends); None when every key is one."""
    for part in value.split(","):
        if not part.strip() or " " in part.strip():
            return f"{echo(value, quoted=True)} is not a comma-separated list of keys"
    for key in keys_of(value, known.character_keys):
        problem = key_problem(key, known.key_names, known.character_keys)
        if problem is not None:
            return problem
    return None


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


def _leaves(table: dict[str, object], depth: int) -> list[tuple[KeyPath, object]]:
    """Each value under `table` with its key path; a table `depth` parts down is taken as a value (no binding
    id is that long), so a key of 5,000 dotted parts is one bad entry, read without recursion."""
    leaves: list[tuple[KeyPath, object]] = []
    stack: list[tuple[KeyPath, object]] = [((key,), value) for key, value in reversed(table.items())]
    while stack:
        at, value = stack.pop()
        if isinstance(value, dict) and len(at) < depth:
            stack += [(at + (key,), inner) for key, inner in reversed(value.items())]
        else:
            leaves.append((at, value))
    return leaves


def kind_of(value: object) -> str:
    """What a TOML value is, as a bad entry names it: "a number", "a table"."""
    kinds = {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list", dict: "a table"}
    return next((kind for type_, kind in kinds.items() if isinstance(value, type_)), "a date or time")


def not_one_of(what: str, wrong: str, choices: Collection[str], listed: str = "") -> str:
    """`what`, then the choice `wrong` was likely meant to be, or the choices (or where they are `listed`)."""
    near = get_close_matches(wrong, list(choices), n=1, cutoff=0.6) if len(wrong) <= ECHO_LIMIT else []
    if near:
        return f"{what} (did you mean {near[0]!r}?)"
    return f"{what} ({listed or 'one of: ' + ', '.join(sorted(choices))})"


# -- how each is written by `cachetui config` ------------------------------------------------------------------

def _array(values: Collection[str]) -> str:
    return "[" + ", ".join(toml_string(value) for value in values) + "]"


def _keymap_written(keymap: Mapping[str, str], known: Known) -> str:
    """Every binding of the app with the keys in effect, the default beside those the file changes, and what it
    does."""
    lines = []
    for binding, default in sorted(known.bindings.items()):
        keys = toml_string(keymap.get(binding, default))
        lines.append(toml_line(toml_string(binding), keys, default_note(binding in keymap, keys, toml_string(default)),
                               inert(known.descriptions.get(binding, ""))))
    return "\n".join(lines)


def toml_line(key: str, value: str, *comments: str) -> str:
    """`key = value  # comment; comment`, the empty comments left out."""
    comment = "; ".join(c for c in comments if c)
    return f"{key} = {value}" + (f"  # {comment}" if comment else "")


def default_note(given: bool, shown: str, default: str, meaning: str = "") -> str:
    """`default` (and what it means) for a setting the file leaves out; the default beside one it changes."""
    if not given:
        return f"default: {meaning}" if meaning else "default"
    return f"default: {default}{', ' + meaning if meaning else ''}" if shown != default else ""


# -- the settings ----------------------------------------------------------------------------------------------

THEME: Setting[str | None] = Setting(
    "theme", "string", None, _theme,  # None: Textual's default theme
    lambda theme, known: toml_string(theme or known.default_theme),
    "any of Textual's themes: the command palette lists them (Ctrl+P, \"Theme\") and saves the one chosen")
SOURCES: Setting[tuple[str, ...]] = Setting(
    "sources", "array of strings", (), _sources, lambda sources, known: _array(sources),
    "opened when the command line names no source (`~` is the home folder)", default_means="the bundled sample")
HIDDEN_COLUMNS: Setting[frozenset[str]] = Setting(
    "hidden_columns", "array of strings", HIDDEN_AT_FIRST, _hidden_columns,
    lambda hidden, known: _array([column.key for column in COLUMNS if column.key in hidden]),
    "columns hidden at start, as `--format csv` heads them or the table titles them; `v` changes them")
KEYMAP: Setting[Mapping[str, str]] = Setting(
    "keymap", "table", MappingProxyType({}), _keymap, _keymap_written,  # only the bindings the file changes
    "binding id = keys, comma-separated", default_means="every binding's own keys")


class Declarations:
    """The settings, in the order `cachetui config` and the docs list them and the file's are checked in.

    Read at each use, never copied, so a setting declared or withdrawn later (a test's throwaway one) is in
    the reader, `cachetui config` and the docs' table at once, or in none of them.
    """

    def __init__(self, *settings: Setting[Any]) -> None:
        self._settings: dict[str, Setting[Any]] = {}
        for setting in settings:
            self.declare(setting)

    def __iter__(self) -> Iterator[Setting[Any]]:
        return iter(tuple(self._settings.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._settings

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._settings)

    def declare(self, setting: Setting[Any]) -> None:
        """One more setting (after the others): read, written and documented from now on."""
        if setting.name in self._settings:
            raise ValueError(f"a setting named {setting.name!r} is already declared")
        self._settings[setting.name] = setting

    def withdraw(self, name: str) -> None:
        """No such setting any more: the file's key is an unknown setting again."""
        del self._settings[name]


SETTINGS = Declarations(THEME, SOURCES, HIDDEN_COLUMNS, KEYMAP)


class Settings:
    """The value of each declared setting: the one its check took from the file, else its default.

    Read as `settings[THEME]`, typed by the declaration. Two are equal when every setting's value is.
    """

    def __init__(self, taken: Mapping[str, object] | None = None) -> None:
        self._taken = dict(taken or {})  # setting name -> the value its check took

    def __getitem__(self, setting: Setting[T]) -> T:
        return cast(T, self._taken[setting.name]) if setting.name in self._taken else setting.default

    def _values(self) -> dict[str, object]:
        return {setting.name: self[setting] for setting in SETTINGS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Settings) and self._values() == other._values()

    def __repr__(self) -> str:
        return f"Settings({self._values()!r})"
