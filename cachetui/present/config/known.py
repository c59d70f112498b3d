"""What a user's keymap and theme are checked against, without Textual: every binding id of the app with its
default keys, words and view, read from the rows that declare them (`present/browse/browser_actions.py`, the
browser screen's; `present/browse/keys.py`, every other part's), and Textual's names of keys and themes
(`textual_names.py`, written from Textual itself).

The tables are read when asked, so a row added or removed is at once a key `cachetui config` lists and the
keymap may name, or is no longer.
"""

from __future__ import annotations

from functools import partial

from cachetui.present.browse import browser_actions, keys
from cachetui.present.config import textual_names
from cachetui.present.config.key_views import views
from cachetui.present.config.settings import Known


def known() -> Known:
    rows: list[tuple[str, str, str | None, str]] = [(row.id, row.keys, row.footer, row.action)
                                                   for row in browser_actions.ACTIONS]
    rows += [(row.id, row.keys, row.description, row.action) for row in keys.KEYS]
    rows.sort()  # by binding id: the order the file's problems and `cachetui config` name them in
    return Known({id_: keys_ for id_, keys_, _, _ in rows}, textual_names.THEMES, textual_names.DEFAULT_THEME,
                 {id_: words or action.replace("_", " ") for id_, _, words, action in rows},
                 textual_names.KEY_NAMES, textual_names.CHARACTER_KEYS, partial(views, browser_actions.ACTIONS))
