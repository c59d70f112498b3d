"""Which of the app's binding ids have the keys at the same time: a key bound to two of them does one thing.

At any moment the keys go to the app, the screen shown and the pane with the focus (with what holds
it), and the browser's own rows act only in the view they are for (the spec table's keys do nothing
while the coverage view shows in its place). A view here is one such moment, named as the user sees
it; a binding id is in a view by its group (the part before its dot: `lines.down` is of `lines`, the
keys every scrolling pane inherits) or, for the browser's rows, by whether it can act there. Textual's
own widget bindings (an input's Ctrl+A) have no cachetui id and are no part of a view.

A test drives the app through every screen and pane and holds these views equal to what is bound there.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from itertools import product
from typing import Any

from cachetui.present.browse.browser_actions import ACTIONS, BrowserAction, KeyContext


@dataclass(frozen=True)
class KeyView:
    name: str  # what the user sees: "the spec table", "the copy menu"
    groups: frozenset[str]  # binding ids `group.…` of these groups are here
    rows: frozenset[str] = frozenset()  # and these rows of the browser's action table

    def holds(self, binding_id: str) -> bool:
        return binding_id in self.rows or binding_id.partition(".")[0] in self.groups


def _contexts(coverage: bool, plan: bool) -> list[KeyContext]:
    """Every context the browser can be in with the coverage view shown (or not), the plan view shown (or not):
    each other flag either way, each count none or several."""
    named = [f.name for f in fields(KeyContext) if f.name not in ("coverage", "plan")]
    choices: list[tuple[Any, Any]] = [(0, 2) if type(getattr(KeyContext(), name)) is int else (False, True)
                                      for name in named]
    return [replace(KeyContext(coverage=coverage, plan=plan), **dict(zip(named, values)))
            for values in product(*choices)]


def rows_acting(coverage: bool, actions: tuple[BrowserAction, ...] = ACTIONS, *, plan: bool = False) -> frozenset[str]:
    """The browser's rows that can act while the coverage view shows, or the plan view, or neither (the specs)."""
    contexts = _contexts(coverage, plan)
    return frozenset(row.id for row in actions if any(row.acts(context) for context in contexts))


def _view(name: str, *groups: str, rows: frozenset[str] = frozenset()) -> KeyView:
    return KeyView(name, frozenset(("app", *groups)), rows)  # the app's keys (quit) act everywhere


def views(actions: tuple[BrowserAction, ...] = ACTIONS) -> tuple[KeyView, ...]:
    """The views, with the browser's rows (`actions`) in those where they can act.

    A clash is said in the first view it happens in: the panes before the text boxes, where a letter is typed.
    """
    specs, coverage = rows_acting(False, actions), rows_acting(True, actions)
    plan = rows_acting(False, actions, plan=True)
    return (
        _view("the package list", "lines", "pick", rows=specs),
        _view("the spec table", "lines", "table", rows=specs),
        _view("the details", "lines", "pick", "detail", rows=specs),
        _view("the facets", "facets", "lines", "pick", rows=specs),
        _view("the coverage view", "lines", "pick", rows=coverage),
        _view("the plan view", "lines", "pick", rows=plan),
        _view("the help", "help"),
        _view("the problems screen", "problems"),
        _view("the columns dialog", "columns"),
        _view("a choice (the tag picker)", "dialog", "list"),
        _view("the copy menu", "dialog", "list", "copy"),
        _view("a file name (export)", "name"),
        _view("the query line", "query", "line", "search", rows=specs),
        _view("the facet filter", "facets", "line", "filter", rows=specs),
        _view("the coverage view's find box", "find", rows=coverage),
    )

