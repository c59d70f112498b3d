"""The user's settings file as the app reads it: what the app knows to check it against, and loading it.

`cachetui.present.config.settings` reads and checks the file without Textual; the binding ids and themes
it is checked against are the app's, gathered here from every screen's and widget's BINDINGS, so a
binding added anywhere in the app can be remapped (and is listed by `cachetui config`) at once.
"""

from __future__ import annotations

import importlib
import pkgutil
import string
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from textual._keyboard_protocol import FUNCTIONAL_KEYS
from textual.binding import Binding
from textual.constants import DEFAULT_THEME
from textual.dom import DOMNode
from textual.keys import KEY_ALIASES, Keys, _character_to_key
from textual.theme import BUILTIN_THEMES

import cachetui.app
from cachetui.present.config.key_views import VIEWS
from cachetui.present.config.settings import Known, UserSettings, config_path, read_settings


@cache
def app_bindings() -> dict[str, Binding]:
    """Every binding of the app that has an id, by id, as its BINDINGS declare it."""
    for module in pkgutil.walk_packages(cachetui.app.__path__, "cachetui.app."):
        importlib.import_module(module.name)  # a screen only ever pushed declares its bindings too
    bindings: dict[str, Binding] = {}
    for node_class in _subclasses(DOMNode):
        if node_class.__module__.startswith("cachetui."):
            for binding in node_class.__dict__.get("BINDINGS", ()):
                if isinstance(binding, Binding) and binding.id is not None:
                    bindings.setdefault(binding.id, binding)
    return bindings


def _subclasses(cls: type[DOMNode]) -> list[type[DOMNode]]:
    found: list[type[DOMNode]] = []
    for subclass in cls.__subclasses__():
        found += [subclass, *_subclasses(subclass)]
    return found


def known() -> Known:
    bindings = app_bindings()
    return Known({id_: b.key for id_, b in bindings.items()}, frozenset(BUILTIN_THEMES), DEFAULT_THEME,
                 {id_: b.description or b.action.replace("_", " ") for id_, b in bindings.items()},
                 key_names(), character_keys(), VIEWS)


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


KNOWN_MODULE = Path(__file__).resolve().parent.parent / "present" / "config" / "app_keys.py"


def known_module_text(found: Known) -> str:
    """`present/config/app_keys.py` for these bindings and themes: what `cachetui config` checks against, without
    Textual."""
    def mapping(values: Mapping[str, str]) -> str:
        return "".join(f"        {key!r}: {value!r},\n" for key, value in sorted(values.items()))

    def names(values: frozenset[str]) -> str:
        return "".join(f"        {value!r},\n" for value in sorted(values))

    return "".join([
        '"""The app\'s binding ids, keys and themes, and Textual\'s names of keys, for `cachetui config` to check '
        'settings\nwithout importing Textual.\n\nWritten by `python -m cachetui.app.user_settings` from the app\'s '
        'BINDINGS and Textual; a test\nfails when they differ.\n"""\n\n'
        'from cachetui.present.config.key_views import VIEWS\nfrom cachetui.present.config.settings import Known\n\n',
        f"KNOWN = Known(\n    bindings={{\n{mapping(found.bindings)}    }},\n",
        f"    themes=frozenset({{\n{names(found.themes)}    }}),\n    default_theme={found.default_theme!r},\n",
        f"    descriptions={{\n{mapping(found.descriptions)}    }},\n",
        f"    key_names=frozenset({{\n{names(found.key_names)}    }}),\n",
        f"    character_keys={{\n{mapping(found.character_keys)}    }},\n",
        "    views=VIEWS,\n)\n",
    ])


if __name__ == "__main__":
    KNOWN_MODULE.write_text(known_module_text(known()))
