"""Every key of the app outside the browser screen's action table, one row each: its binding id, default keys,
words, and the part whose BINDINGS hold it (the widget or dialog that acts on it).

A widget's BINDINGS are `bindings_of` its part (`app/actions.py`), so a key is added, remapped or removed
in its row alone; with the browser's rows (`browser_actions.py`) these are every binding id of the app,
which `cachetui config` and the keymap's check read without Textual. Binding ids never change: users'
config.toml `[keymap]` names them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    id: str  # the binding id a keymap names ("lines.down")
    action: str  # the part's `action_…` it runs (or `app.…`, `screen.…`, as Textual names them)
    keys: str  # the default keys, as Textual names them, comma-separated
    description: str | None  # the help's words for it (None: none, the action names it)
    part: str  # whose BINDINGS hold it: the group of its binding id (the parts are named below)
    show: bool = False  # in the footer
    priority: bool = False  # acts before the focused widget sees the key


# The parts that hold keys, named as a binding id's group: the widget or dialog each is.
# app: the app · lines: a scrolling list (LineView) · pick: a list to choose from (PickList) · table: the spec
# table · detail: the details · facets: the facets pane · query: the query line · line: a text box (TextLine) ·
# search: the query line's box · filter: the facet filter's box · list: a j/k option list ·
# help, problems, columns: those screens · dialog: a choice (ChoiceDialog) · copy: the copy menu ·
# name: a file name (NameDialog) · find: the coverage view's find box (FindLine).
KEYS: tuple[Key, ...] = (
    Key("app.quit", "quit", "q", "Quit", "app", show=True),
    Key("app.quit-ctrl-c", "quit", "ctrl+c", "Quit", "app", priority=True),
    Key("lines.up", "cursor_up", "up,k", "Up", "lines"),
    Key("lines.down", "cursor_down", "down,j", "Down", "lines"),
    Key("lines.page-up", "page_up", "pageup", "Page up", "lines"),
    Key("lines.page-down", "page_down", "pagedown", "Page down", "lines"),
    Key("lines.first", "first", "home,g", "First", "lines"),
    Key("lines.last", "last", "end,G", "Last", "lines"),
    Key("pick.select", "select", "enter", "Choose", "pick"),
    Key("table.select", "select", "enter", "Details", "table"),
    Key("table.sort", "sort_next", "s", "Sort", "table", show=True),
    Key("table.sort-reverse", "sort_reverse", "S", "Reverse sort", "table"),
    Key("table.left", "scroll_sideways(-1)", "left", "Scroll the common line / find view left", "table"),
    Key("table.right", "scroll_sideways(1)", "right", "Scroll the common line / find view right", "table"),
    Key("table.jump-back", "screen.jump_back", "backspace", "Back from a jump", "table"),
    Key("detail.build-deps", "toggle_build", "b", "Build deps", "detail", show=True),
    Key("detail.jump-back", "screen.jump_back", "backspace", "Back to the previous spec", "detail"),
    Key("facets.leave-filter", "leave_filter", "escape", "To facets", "facets", show=True),
    Key("query.leave", "leave", "down", "To results", "query"),
    Key("find.next", "next_match", "enter", "Next match", "find", show=True),
    Key("find.down", "next_match", "down", "Next match", "find"),
    Key("find.previous", "previous_match", "up", "Previous match", "find"),
    Key("find.leave", "leave", "escape", "To the tree", "find", show=True),
    Key("line.clear", "clear_text", "escape", "Clear", "line", show=True),
    Key("search.open", "submit", "enter", "Open", "search", show=True),
    Key("search.back", "back", "escape", "Back", "search", show=True),
    Key("search.recall", "recall", "up", "Earlier query", "search"),
    Key("filter.done", "submit", "enter", "To facets", "filter", show=True),
    Key("list.up", "cursor_up", "k", "Up", "list"),
    Key("list.down", "cursor_down", "j", "Down", "list"),
    Key("help.close", "app.pop_screen", "escape,question_mark,q", "Close", "help", show=True),
    Key("problems.back", "app.pop_screen", "escape,p,q", "Back", "problems", show=True),
    Key("columns.apply", "apply", "escape,v,q", "Apply", "columns", show=True),
    Key("dialog.cancel", "cancel", "escape,q", "Cancel", "dialog", show=True),
    *(Key(f"copy.{n}", f"pick({n - 1})", str(n), None, "copy") for n in range(1, 6)),
    Key("name.cancel", "cancel", "escape", "Cancel", "name", show=True),
)


def keys_of(part: str) -> tuple[Key, ...]:
    """The rows of one part, in the table's order; KeyError for a part no row names (a misspelt part)."""
    rows = tuple(row for row in KEYS if row.part == part)
    if not rows:
        raise KeyError(part)
    return rows
