"""The user's settings file as the app reads it, and Textual's names of keys and themes written down for
the check without Textual (`present/config/textual_names.py`).

`cachetui.present.config.settings` reads and checks the file without Textual; the binding ids it is checked
against are the app's key rows (`present/config/known.py`), the key names and themes Textual's, which only
this module (where Textual may be imported) can read: `python -m cachetui.app.user_settings` writes them, and
a test fails when they differ from the installed Textual's.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Mapping
from pathlib import Path

from textual._keyboard_protocol import FUNCTIONAL_KEYS
from textual.constants import DEFAULT_THEME
from textual.keys import KEY_ALIASES, Keys, _character_to_key
from textual.theme import BUILTIN_THEMES

from cachetui.present.config.known import known
from cachetui.present.config.settings import UserSettings, config_path, read_settings


def character_keys() -> dict[str, str]:
    """How Textual names each printable ASCII character that is not a letter or digit (`?`: question_mark)."""
    return {ch: _character_to_key(ch) for ch in string.punctuation + " "}


def key_names() -> frozenset[str]:
    """The names of the keys Textual reads from a terminal, other than a letter or digit: its `Keys` (whole,
    `ctrl+@`, and what follows their modifiers, `pagedown`), its aliases, the keys of the kitty keyboard
    protocol, and its names of ASCII characters."""
    named = {key.value for key in Keys} | set(KEY_ALIASES) | {a for aliases in KEY_ALIASES.values() for a in aliases}
    named |= set(FUNCTIONAL_KEYS.values()) | set(character_keys().values())
    names = named | {key.rpartition("+")[2] for key in named}
    return frozenset(name for name in names if len(name) > 1 and not name.startswith("<"))


def load_user_settings() -> UserSettings:
    """`$XDG_CONFIG_HOME/cachetui/config.toml`, checked; never raises (what is wrong is in `.bad`)."""
    return read_settings(config_path(), known())


TEXTUAL_NAMES = Path(__file__).resolve().parent.parent / "present" / "config" / "textual_names.py"


def textual_names_text() -> str:
    """`present/config/textual_names.py` for the installed Textual."""
    def mapping(values: Mapping[str, str]) -> str:
        return "".join(f"    {key!r}: {value!r},\n" for key, value in sorted(values.items()))

    def names(values: Iterable[str]) -> str:
        return "".join(f"    {value!r},\n" for value in sorted(values))

    return "".join([
        '"""Textual\'s names of keys and its themes, for `cachetui config` to check settings without importing '
        'Textual.\n\nWritten by `python -m cachetui.app.user_settings` from the installed Textual; a test fails '
        'when they differ.\n"""\n\n',
        f"THEMES = frozenset({{\n{names(BUILTIN_THEMES)}}})\n",
        f"DEFAULT_THEME = {DEFAULT_THEME!r}\n",
        "# the keys Textual names, beyond a letter or digit\n",
        f"KEY_NAMES = frozenset({{\n{names(key_names())}}})\n",
        "# each printable ASCII character that is not a letter or digit, as Textual names it\n",
        f"CHARACTER_KEYS = {{\n{mapping(character_keys())}}}\n",
    ])


if __name__ == "__main__":
    TEXTUAL_NAMES.write_text(textual_names_text())
