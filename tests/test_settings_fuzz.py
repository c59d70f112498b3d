"""Fuzzing config.toml's reader and its keymap: whatever the file holds, it is read, never an internal error.

Bounded in `make test` (the "ci" hypothesis profile); `make fuzz` runs the long profile. What these
would have found (issue 39): deep keys and nested arrays that raised RecursionError, a key echoed
whole, and keymap values that name no key or two bindings of one view on one key, bound as given (each
a failing example); and valid TOML with long runs of blanks, which the key scan read in cubic time:
there the property does not fail, it stalls (its 150 examples took 3.5 minutes on that code, 3 s now).
How long a reading may take is `make bench`'s to say (`benchmarks/settings_bench.py`), never a test's.
"""

from __future__ import annotations

import datetime as dt
import math
import tempfile
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cachetui.present.config.known import known
from cachetui.present.config.key_names import key_problem, keys_of
from cachetui.present.config.settings import UserSettings, parse_settings, read_settings
from cachetui.present.config.settings_declared import KEYMAP, SETTINGS, SOURCES, THEME
from cachetui.present.config.toml_lines import toml_string
from cachetui.present.inert import inert, unsafe

KNOWN = known()  # the app's binding ids and Textual's names, as `cachetui config` checks with

PATH = Path("/home/u/.config/cachetui/config.toml")


def _checked(user: UserSettings) -> None:
    """What every reading holds to: each bad entry is one inert line, and what is kept is well formed."""
    for problem in user.problems():
        line = inert(problem.described())
        assert not any(unsafe(ch) for ch in line)
        assert len(problem.described()) < 2_000  # echoes are cut: a megabyte of key is never a line
    for binding, keys in user.settings[KEYMAP].items():
        assert binding in KNOWN.bindings
        assert all(key_problem(key, KNOWN.key_names, KNOWN.character_keys) is None
                   for key in keys_of(keys, KNOWN.character_keys))
    assert isinstance(user.settings[THEME], str | None) and all(isinstance(s, str) for s in user.settings[SOURCES])


# -- any bytes, any text ---------------------------------------------------------------------------------------

@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2_000))
def test_any_bytes_are_read_without_an_internal_error(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_bytes(data)
        _checked(read_settings(path, KNOWN))


# Runs of what a TOML line is made of: a line of one character repeated thousands of times is where a
# scan that backtracks goes quadratic or worse.
_PIECES = [" ", "\t", ".", "=", "[", "]", "[[", "]]", '"', "'", '"""', "'''", "\\", "\\U", "FFFFFFFF", "a", "keymap",
           "#", "{", "}", ",", "-", "_", "0", "\r", "\u2028", "é", "browser.help"]
_counts = st.one_of(st.integers(1, 8), st.integers(1_000, 3_000))
_starts = st.tuples(st.sampled_from([" ", "\t", "a", "keymap", '"', "'", "["]), _counts)  # how a line opens
_lines = st.tuples(_starts, st.lists(st.tuples(st.sampled_from(_PIECES), _counts), max_size=8)).map(
    lambda runs: "".join(piece * count for piece, count in [runs[0], *runs[1]]))


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_lines, min_size=1, max_size=6))
def test_long_lines_of_toml_pieces_are_read(lines: list[str]) -> None:
    _checked(parse_settings("\n".join(lines) + "\n", PATH, KNOWN))


_space = st.one_of(st.sampled_from(["", " "]), st.text(" \t", min_size=500, max_size=2_000))
_part = st.one_of(st.sampled_from(["keymap", "theme", "browser", "help", "a"]), st.text(max_size=6).map(toml_string))


@st.composite
def _spaced_line(draw: st.DrawFn, number: int) -> str:
    """A valid line with long runs of blanks where TOML allows them: around a key's dots, its `=`, its value,
    before a comment, in a table's brackets, or alone."""
    key = (draw(_space) + "." + draw(_space)).join([f"k{number}", *draw(st.lists(_part, max_size=3))])
    kind = draw(st.sampled_from(["blank", "key", "table"]))
    if kind == "blank":
        return draw(_space)
    if kind == "table":
        return f"{draw(_space)}[{draw(_space)}{key}{draw(_space)}]{draw(_space)}"
    value = draw(st.sampled_from(['"f2"', "'nord'", "1", "[]", '["a", "b"]']))
    return f"{draw(_space)}{key}{draw(_space)}={draw(_space)}{value}{draw(_space)}# {draw(_space)}note"


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(*(_spaced_line(i) for i in range(n)))))
def test_valid_toml_with_long_runs_of_blanks_is_read(lines: tuple[str, ...]) -> None:
    text = "\n".join(lines) + "\n"
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)  # a table opened twice: not the valid TOML this is about
    _checked(parse_settings(text, PATH, KNOWN))


# -- any valid TOML --------------------------------------------------------------------------------------------

def _value(value: object) -> str:
    """A TOML value for what tomllib can return (a writer small enough to trust: read back below)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int | dt.date | dt.time):
        return value.isoformat() if isinstance(value, dt.date | dt.time) else str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{toml_string(key)} = {_value(item)}" for key, item in value.items()) + "}"


_keys = st.one_of(st.sampled_from([*SETTINGS.names, *KNOWN.bindings, "browser", "help"]), st.text(max_size=12))
_scalars = st.one_of(
    st.booleans(), st.integers(), st.floats(), st.text(max_size=30),
    st.sampled_from(sorted(KNOWN.themes)), st.sampled_from(sorted(KNOWN.bindings.values())),
    st.dates(), st.datetimes(), st.times(),
)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4),
                       max_leaves=20)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keys, _values, max_size=6), st.dictionaries(_keys, st.dictionaries(_keys, _values), max_size=3))
def test_any_valid_toml_is_settings_or_bad_entries(top: dict[str, object], tables: dict[str, dict]) -> None:
    lines = [f"{toml_string(key)} = {_value(value)}" for key, value in top.items()]
    for name, table in tables.items():
        lines += [f"[{toml_string(name)}]", *(f"{toml_string(key)} = {_value(value)}" for key, value in table.items())]
    text = "\n".join(lines) + "\n"
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assume(False)  # a key given twice (top level and a table): not the valid TOML this is about
    _checked(parse_settings(text, PATH, KNOWN))


@given(st.integers(1, 6_000), st.sampled_from(["keymap.", "", "[keymap.", "x = ", "x = {a = "]))
def test_deep_keys_and_values_are_one_bad_entry(depth: int, start: str) -> None:
    if start.startswith("["):
        text = start + ".".join(["a"] * depth) + ']\nb = "f2"\n'
    elif start.startswith("x = {"):
        text = "x = " + "{a = " * depth + "1" + "}" * depth + "\n"
    elif start == "x = ":
        text = "x = " + "[" * depth + "]" * depth + "\n"
    else:
        text = start + ".".join(["a"] * depth) + ' = "f2"\n'
    _checked(parse_settings(text, PATH, KNOWN))


# -- the keymap --------------------------------------------------------------------------------------------------

_key_words = st.one_of(
    st.sampled_from(sorted(KNOWN.key_names)), st.sampled_from(list("aAzZ09?/,§ ")), st.text(max_size=8),
    st.sampled_from(["ctrl+", "shift+", "alt+", "ctlr+", "shift+ctrl+", "ctrl+shift+"]).map(lambda m: m + "a"),
)
_keymap_values = st.one_of(st.lists(_key_words, min_size=1, max_size=3).map(",".join), _values)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.one_of(st.sampled_from(sorted(KNOWN.bindings)), st.text(max_size=20)), _keymap_values,
                       max_size=12))
def test_a_keymap_binds_only_keys_that_exist_and_no_new_clash(keymap: dict[str, object]) -> None:
    text = "[keymap]\n" + "".join(f"{toml_string(binding)} = {_value(keys)}\n" for binding, keys in keymap.items())
    user = parse_settings(text, PATH, KNOWN)
    _checked(user)
    for entry in user.bad:  # a clash is one line naming both binding ids, one of them the file's
        if " is bound to both " in entry.reason:
            first, second = entry.reason.split(" is bound to both ")[1].split(", which")[0].split(" and ")
            assert {first, second} <= set(KNOWN.bindings) and (first in keymap or second in keymap)
    bound = {binding: set(keys_of(user.settings[KEYMAP].get(binding, default), KNOWN.character_keys))
             for binding, default in KNOWN.bindings.items()}
    defaults = {binding: set(keys_of(default, KNOWN.character_keys)) for binding, default in KNOWN.bindings.items()}
    for view in KNOWN.views:
        held = sorted(binding for binding in bound if view.holds(binding))
        for i, first in enumerate(held):
            for second in held[i + 1:]:
                if first in user.settings[KEYMAP] or second in user.settings[KEYMAP]:
                    shared = bound[first] & bound[second]
                    assert shared <= defaults[first] & defaults[second], (view.name, first, second, shared)
