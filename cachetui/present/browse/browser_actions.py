"""The browser's actions, one row each: its binding id, default keys, words, when it can act and the part that acts.

The screen's BINDINGS, `check_action`, the footer's refresh, the help, the command palette, `cachetui config`
and the keymap's check all read this table, so an action is added (or its words changed, or removed) in one
place. Each row names its target, the part that acts on it (`TARGETS`): its keys are bound on the screen,
the one node every pane of both views reaches (the focus may be in the query line, the body or the coverage
view), which hands the key to that part. The rows know nothing of Textual: when an action can act is a
predicate over `KeyContext`, a plain snapshot of the screen. Binding ids never change: users' config.toml
`[keymap]` names them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class KeyContext:
    """What decides which keys can act: read off the screen each time they are checked."""

    loaded: bool = False
    spec_selected: bool = False
    narrowed: bool = False  # a filter or "runs here" is set: `x` has something to clear
    comparing: bool = False
    tags: int = 0
    rows: int = 0
    wanted: bool = False  # `--want` named what the user wants: the coverage view can show
    coverage: bool = False  # the coverage view shows (in place of the package list, table and facets)
    nearest: bool = False  # the wanted node under the cursor has a binary to show: held, or the nearest
    planned: bool = False  # `--plan` named an environment: the plan view can show
    plan: bool = False  # the plan view shows (in place of the package list, table and facets)
    candidates: bool = False  # the plan's root under the cursor has binaries that can serve it (a chosen one)


def always(_: KeyContext) -> bool:
    return True


# The parts a row's keys can be handed to: the screen (what spans its views: which one shows, the question
# asked, the dialogs it awaits), the body (the package list, table, details and facets: the focus among them,
# the spec under the cursor), the coverage view (`--want`: the wanted node under its cursor), the plan view
# (`--plan`: the root under its cursor) and the app.
SCREEN, BODY, COVERAGE, PLAN, APP = "screen", "body", "coverage", "plan", "app"
TARGETS = (SCREEN, BODY, COVERAGE, PLAN, APP)


@dataclass(frozen=True)
class BrowserAction:
    id: str  # the binding id a keymap names ("browser.help")
    action: str  # the target's `action_…` it runs
    keys: str  # the default keys, as Textual names them, comma-separated
    footer: str  # the footer's word for it, and the help's
    group: str  # what it is for: a group's rows sit together, in the footer's order
    palette: str | None = None  # its title in the command palette (None: not offered there)
    palette_help: str = ""  # the palette's line under the title; the keys bound now are added to it
    acts: Callable[[KeyContext], bool] = always
    # Acts as it arrives, so keys typed right after reach the new focus; never while a text box has
    # the focus (there it is a letter).
    priority: bool = False
    show: bool = True  # in the footer
    target: str = SCREEN  # the part that acts on it (`TARGETS`)


def _spec_selected(context: KeyContext) -> bool:
    return context.spec_selected


def _loaded(context: KeyContext) -> bool:
    return context.loaded


def _table(acts: Callable[[KeyContext], bool]) -> Callable[[KeyContext], bool]:
    """A key of the spec table and its panes: it does nothing while the coverage or plan view shows in their place."""
    return lambda context: not context.coverage and not context.plan and acts(context)


def _plan_root(context: KeyContext) -> bool:
    """The plan view shows, its root under the cursor with binaries that can serve it."""
    return context.plan and context.candidates


# The footer's order, what is used most first, so a narrow footer cuts the rest. `/` and `f` move
# the focus, so they are priority bindings; help and quit come early, so a footer cut at 80 columns
# still offers them.
ACTIONS: tuple[BrowserAction, ...] = (
    BrowserAction("browser.search", "focus_search", "slash", "Search", "focus", "Search packages",
                  "focus the package search", _table(always), priority=True, target=BODY),
    BrowserAction("browser.coverage-find", "find", "slash", "Find", "focus", "Find a wanted node",
                  "move to a wanted node by name (Enter: the next match)", lambda c: c.coverage, priority=True,
                  target=COVERAGE),
    BrowserAction("browser.facets", "toggle_facets", "f", "Facets", "focus", "Toggle facets",
                  "show or hide the facets pane", _table(always), priority=True, target=BODY),
    BrowserAction("browser.help", "help", "question_mark", "Help", "help", "Help",
                  "keys and how to use cachetui"),
    BrowserAction("browser.quit", "quit", "q", "Quit", "help", target=APP),
    BrowserAction("browser.copy-hash", "copy_hash", "y", "Copy hash", "copy", "Copy hash",
                  "copy the selected spec's full hash", _table(_spec_selected), target=BODY),
    BrowserAction("browser.copy-menu", "copy_menu", "c", "Copy…", "copy", "Copy…",
                  "hash, /short hash, install or mirror command", _table(_spec_selected), target=BODY),
    BrowserAction("browser.coverage-copy", "copy_menu", "c", "Copy…", "copy", "Copy…",
                  "the wanted hash, the install line of its binary and the spec selecting it",
                  lambda c: c.coverage and c.spec_selected, target=COVERAGE),
    BrowserAction("browser.plan-copy", "copy_menu", "c", "Copy…", "copy", "Copy…",
                  "the plan root's pinned spec (name@version/hash) and the install line of its binary",
                  _plan_root, target=PLAN),
    BrowserAction("browser.coverage", "coverage", "w", "Coverage", "wanted", "Coverage of what you want",
                  "the wanted DAG (--want) against the caches, or back to the specs", lambda c: c.wanted),
    BrowserAction("browser.nearest", "nearest", "n", "Nearest", "wanted", "Show the nearest binary",
                  "the wanted node's binary (held, or the nearest) in the spec table",
                  lambda c: c.coverage and c.nearest, target=COVERAGE),
    BrowserAction("browser.plan", "plan", "o", "Plan", "wanted", "Plan of the environment",
                  "the roots of the environment (--plan) and the binaries that can serve them, or back to the specs",
                  lambda c: c.planned),
    BrowserAction("browser.plan-candidates", "candidates", "n", "Candidates", "wanted", "Show the root's candidates",
                  "every binary that can serve the plan's root, in the spec table (the chosen one selected)",
                  _plan_root, target=PLAN),
    BrowserAction("browser.clear", "clear_filters", "x", "Clear", "narrowing", "Clear all filters",
                  "remove every facet filter", lambda c: c.narrowed),
    # comparing, the two tags compared are the scope
    BrowserAction("browser.tag", "choose_tag", "t", "Tag", "narrowing", "Choose tag",
                  "show one cache tag, or all", _table(lambda c: c.loaded and not c.comparing)),
    BrowserAction("browser.runs-on", "toggle_runs_on", "r", "Runs here", "narrowing", "Runs here",
                  "only binaries that run on this machine", _table(_loaded)),
    BrowserAction("browser.columns", "choose_columns", "v", "Columns", "view", "Choose columns",
                  "show or hide the table's columns", _table(always)),
    BrowserAction("browser.find-view", "toggle_find_view", "l", "spack find", "view", "spack find view",
                  "group the table as spack find -lv prints it", _table(_loaded)),
    BrowserAction("browser.compare", "compare", "d", "Compare", "view", "Compare two tags",
                  "mark binaries added, removed or kept between two tags", _table(lambda c: c.loaded and c.tags > 1)),
    BrowserAction("browser.export", "export", "e", "Export", "view", "Export table",
                  "write the table as shown to a CSV or JSON file", lambda c: c.rows > 0),
    BrowserAction("browser.problems", "problems", "p", "Problems", "view", "Show problems",
                  "files that could not be loaded, and warnings", _loaded),
    BrowserAction("browser.reload", "reload", "ctrl+r", "Reload", "view", "Reload the sources",
                  "read the sources again (what is unchanged comes from the warm cache) and say what changed",
                  _loaded, show=False),
    BrowserAction("browser.back", "back", "escape", "Back", "view", acts=_table(always), show=False, target=BODY),
)


def by_id(actions: tuple[BrowserAction, ...] = ACTIONS) -> dict[str, BrowserAction]:
    """Binding id -> its row (the screen routes a key by its row's id)."""
    return {row.id: row for row in actions}


def can_act(actions: tuple[BrowserAction, ...], context: KeyContext) -> tuple[bool, ...]:
    """Whether each row can act now: the footer is redrawn only when this changes."""
    return tuple(row.acts(context) for row in actions)
