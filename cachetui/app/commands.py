"""Command palette (ctrl+p): jump to any package, run any action."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from rapidfuzz import fuzz
from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from cachetui.app.actions import action_of, keys_shown
from cachetui.app.screens.browser import BrowserScreen
from cachetui.app.widgets.facet_panel import FACET_TITLES
from cachetui.core.query.resolve import typed_forms
from cachetui.core.query.search import search_packages
from cachetui.core.query.sorting import SORT_COLUMNS
from cachetui.core.spack.tags import is_whole_tag
from cachetui.present.format import counted
from cachetui.present.inert import inert
from cachetui.present.spec_table.table_layout import COLUMNS

MAX_PACKAGE_HITS = 50
# Every provider scores on one scale, so hits from packages, facets and actions sort together.
EXACT = 1.0  # typed text equal to a package name or a facet value: always first
NEAR = 0.95  # every other hit ranks below an exact one
MIN_RELEVANCE = 60.0  # rapidfuzz WRatio, 0-100


def _score(typed: str, text: str, relevance: float) -> float:
    """`relevance` 0-100 -> the palette's score; an exact match outranks every fuzzy one."""
    return EXACT if typed.strip() == text else relevance / 100 * NEAR


def _relevance(typed: str, text: str) -> float:
    return fuzz.WRatio(typed.strip().lower(), text.lower())


def _browser(provider: Provider) -> BrowserScreen | None:
    screens = [s for s in provider.app.screen_stack if isinstance(s, BrowserScreen)]
    return screens[0] if screens else None


def _showing_specs(provider: Provider) -> BrowserScreen | None:
    """The browser, when it shows the specs: packages, facet values and sorts act on the spec table, which
    the coverage view hides (the palette offers only what acts where the user is, as the footer does)."""
    browser = _browser(provider)
    return browser if browser is not None and browser.corpus is not None and not browser.coverage_shown else None


class PackageCommands(Provider):
    """Open a package by (fuzzy) name."""

    async def search(self, query: str) -> Hits:
        browser = _showing_specs(self)
        if browser is None or browser.corpus is None:
            return
        for match in search_packages(query, browser.corpus.packages, limit=MAX_PACKAGE_HITS):
            display = Text(inert(match.name))
            if display.plain == match.name:
                for position in match.positions:
                    display.stylize("bold underline", position, position + 1)
            score = _score(query, match.name, match.score)
            yield Hit(score, display, partial(browser.open_package, match.name), text=match.name, help="open package")


class FacetCommands(Provider):
    """Filter by any facet value in view: type `gcc@13`, `aarch64`, `+mpi`..."""

    async def search(self, query: str) -> Hits:
        browser = _showing_specs(self)
        if browser is None:
            return
        chosen = browser.spec_query.filters
        for facet, counts in browser.facet_counts.items():  # computed with the results, not per keystroke
            for value, count in counts.items():
                if facet == "stack" and is_whole_tag(value):  # the whole tag, not a stack to filter by
                    continue
                forms = typed_forms(facet, value)  # a compiler under its old name too: `oneapi` finds it
                relevance = max(_relevance(query, form) for form in forms)
                if relevance < MIN_RELEVANCE:
                    continue
                score = max(_score(query, form, relevance) for form in forms)
                verb = "remove filter" if value in chosen.get(facet, ()) else "filter"
                display = Text.assemble(f"{verb} {FACET_TITLES[facet].lower()}: ", (inert(value), "bold"))
                toggle = partial(browser.toggle_filter, facet, value)
                yield Hit(score, display, toggle, text=f"{facet}={value}", help=counted(count, "spec"))


def _actions(browser: BrowserScreen) -> list[tuple[str, str, Callable[[], object]]]:
    """The rows of the browser's action table with a palette title that can act now (as the footer offers
    them), each with the keys bound to it now."""
    specs = not browser.coverage_shown  # the table's own commands, only where the table shows
    actions: list[tuple[str, str, Callable[[], object]]] = [
        ("Show all packages", "every spec of the corpus in the table", partial(browser.open_package, None)),
    ] if specs else []
    context = browser.key_context()  # the coverage view's while it shows
    for row in browser.ACTIONS:
        if row.palette is not None and row.acts(context):
            keys = keys_shown(browser.app, row.id, row.keys, joiner=", ")
            actions.append((row.palette, f"{row.palette_help} ({keys})", partial(browser.run_action, action_of(row))))
    for column in (c for c in COLUMNS if c.key in SORT_COLUMNS and specs):  # "change" marks rows: not sortable
        sort = partial(browser.sort_by, column.key)
        actions.append((f"Sort by {column.title}", "sort the spec table; again to reverse", sort))
    return actions


class ActionCommands(Provider):
    """Every action of the browser, by name."""

    async def discover(self) -> Hits:
        browser = _browser(self)
        if browser is None:
            return
        for title, help_text, run in _actions(browser):
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        browser = _browser(self)
        if browser is None:
            return
        matcher = self.matcher(query)
        for title, help_text, run in _actions(browser):
            relevance = _relevance(query, title)
            if relevance >= MIN_RELEVANCE:
                yield Hit(_score(query, title, relevance), matcher.highlight(title), run, help=help_text)
