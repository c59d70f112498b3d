"""Which keys a keymap value can name: the names Textual gives the keys it reads from a terminal.

Textual names a key `[modifiers+]key`: the modifiers in alphabetical order (`ctrl+shift+left`), the
key by its name (`f2`, `escape`, `question_mark`) or, for a letter or digit, by itself (`a`, `G`).
A keymap value naming anything else binds a key that never arrives, so the action it moved is left
without one. What Textual calls its keys is Textual's; this module has no Textual, so the names it
checks against come from the app (`Known.key_names`, `Known.character_keys`), and a test holds them
equal to Textual's. The rule that reads a value with them is here alone: `cachetui config` and the
browser check a keymap by it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Mapping
from difflib import get_close_matches

from cachetui.core.spack.words import ECHO_LIMIT, echo

# As Textual's terminal parser adds them to a key's name, sorted.
MODIFIERS = ("alt", "ctrl", "hyper", "meta", "shift", "super")


def key_of(typed: str, character_keys: Mapping[str, str]) -> str:
    """One key as Textual reads it from a keymap: stripped, and a single character by its name (`?` is
    `question_mark`) unless it is a letter or digit."""
    key = typed.strip()
    if len(key) != 1 or key.isalnum():
        return key
    return character_keys.get(key) or _character_name(key) or key


def keys_of(value: str, character_keys: Mapping[str, str]) -> list[str]:
    """A keymap value (comma-separated) as the keys Textual binds."""
    return [key_of(part, character_keys) for part in value.split(",")]


def _character_name(ch: str) -> str | None:
    """A character other than a letter or digit, named as Textual names it (its Unicode name, in lower case
    with underscores); None for one without a name (a control character)."""
    name = unicodedata.name(ch, "")
    return name.lower().replace("-", "_").replace(" ", "_") or None


def key_problem(key: str, key_names: Collection[str], character_keys: Mapping[str, str]) -> str | None:
    """Why `key` (as `key_of` made it) names no key Textual sends; None when it names one."""
    if key in key_names:
        return None
    modifiers, _, base = key.rpartition("+")
    given = modifiers.split("+") if modifiers else []
    unknown = [modifier for modifier in given if modifier not in MODIFIERS]
    if unknown:
        near = get_close_matches(unknown[0], MODIFIERS, n=1) if len(unknown[0]) <= ECHO_LIMIT else []
        if near:
            meant = "+".join([near[0] if modifier == unknown[0] else modifier for modifier in given] + [base])
            return f"{echo(unknown[0], quoted=True)} is not a modifier (did you mean {meant!r}?)"
        return f"{echo(unknown[0], quoted=True)} is not a modifier (one of: {', '.join(MODIFIERS)})"
    if given != sorted(set(given)):
        return f"{echo(key, quoted=True)} is not a key: write {'+'.join([*sorted(set(given)), base])!r}"
    if base in key_names or (len(base) == 1 and base.isalnum()) or _names_a_character(base):
        return None
    if len(base) == 1 and base.isprintable():  # `ctrl+?`: after a modifier a character is named
        named = character_keys.get(base) or _character_name(base)
        return f"{echo(key, quoted=True)} is not a key: write {'+'.join([*given, named or base])!r}"
    near = get_close_matches(base, list(key_names), n=1) if len(base) <= ECHO_LIMIT else []
    hint = f"did you mean {'+'.join([*given, near[0]])!r}?" if near else "keys are named as Textual names them"
    return f"{echo(key, quoted=True)} is not a key ({hint})"


def _names_a_character(name: str) -> bool:
    """Whether `name` is how Textual names a printable character other than a letter or digit (`section_sign`)."""
    if len(name) > ECHO_LIMIT or not name.replace("_", "").isalnum() or not name.islower():
        return False
    try:
        ch = unicodedata.lookup(name.replace("_", " "))
    except KeyError:
        return False
    return ch.isprintable() and not ch.isalnum() and _character_name(ch) == name
