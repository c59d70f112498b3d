"""The user's settings file as the app reads it: what the app knows to check it against, and loading it.

`cachetui.present.settings` reads and checks the file without Textual; the binding ids and themes
it is checked against are the app's, gathered here from every screen's and widget's BINDINGS, so a
binding added anywhere in the app can be remapped (and is listed by `cachetui config`) at once.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from textual.binding import Binding
from textual.constants import DEFAULT_THEME
from textual.dom import DOMNode
from textual.theme import BUILTIN_THEMES

import cachetui.app
from cachetui.present.settings import Known, UserSettings, config_path, read_settings


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
                 {id_: b.description or b.action.replace("_", " ") for id_, b in bindings.items()})


def load_user_settings() -> UserSettings:
    """`$XDG_CONFIG_HOME/cachetui/config.toml`, checked; never raises (what is wrong is in `.bad`)."""
    return read_settings(config_path(), known())


KNOWN_MODULE = Path(__file__).resolve().parent.parent / "present" / "app_keys.py"


def known_module_text(found: Known) -> str:
    """`present/app_keys.py` for these bindings and themes: what `cachetui config` checks against without Textual."""
    def mapping(values: Mapping[str, str]) -> str:
        return "".join(f"        {key!r}: {value!r},\n" for key, value in sorted(values.items()))

    themes = "".join(f"        {theme!r},\n" for theme in sorted(found.themes))
    return "".join([
        '"""The app\'s binding ids, keys and themes, for `cachetui config` to check settings without importing '
        'Textual.\n\nWritten by `python -m cachetui.app.user_settings` from the app\'s BINDINGS and Textual\'s '
        'themes; a test\nfails when they differ.\n"""\n\nfrom cachetui.present.settings import Known\n\n',
        f"KNOWN = Known(\n    bindings={{\n{mapping(found.bindings)}    }},\n",
        f"    themes=frozenset({{\n{themes}    }}),\n    default_theme={found.default_theme!r},\n",
        f"    descriptions={{\n{mapping(found.descriptions)}    }},\n)\n",
    ])


if __name__ == "__main__":
    KNOWN_MODULE.write_text(known_module_text(known()))
