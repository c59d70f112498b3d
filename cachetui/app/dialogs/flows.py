"""The browser's dialog flows: what each key's dialogs ask, awaited in the screen's workers.

Each dialog's module is imported when its key is first pressed: the first frame shows none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query, facet_counts
from cachetui.present.browse.answer import View
from cachetui.present.inert import inert


def tag_counts(corpus: Corpus, package: str | None) -> dict[str, int]:
    """Specs per tag in the package open now, whatever the filters."""
    return facet_counts(corpus, Query(package), "tag")


async def compare(app: App[Any], corpus: Corpus | None, view: View, package: str | None,
                  prepare: Callable[[View | None], None] = lambda view: None) -> View:
    """`d`: the view comparing the older tag chosen with the newer one; again, the view without comparing.
    `prepare` hears the view the newer tag the cursor is on would make (None once the dialog is gone), so that
    its answer can be worked out while the user looks."""
    if view.compare is not None or corpus is None:
        return replace(view, compare=None)
    tags, counts = corpus.tags, tag_counts(corpus, package)
    from cachetui.app.dialogs.tag_picker import TagPicker

    if len(tags) < 2:
        app.notify("Comparing needs two tags; this corpus has one.", severity="warning", markup=False)
        return view
    old = await app.push_screen_wait(TagPicker(tags, counts, None, title="Compare: the older tag", with_all=False))
    if old is None:
        return view
    new = await app.push_screen_wait(TagPicker([t for t in tags if t != old], counts, None,
                                               title=f"Compare {inert(old)} with: the newer tag", with_all=False,
                                               looking_at=lambda new: prepare(replace(view, compare=(old, new)))))
    if new is None:
        prepare(None)
    # the answer scopes to the two tags; a tag filter set before waits until comparing stops
    return view if new is None else replace(view, compare=(old, new))


async def choose_tag(app: App[Any], corpus: Corpus | None, query: Query) -> Query | None:
    """`t`: `query` with the tag chosen (or every tag), or None when cancelled."""
    if corpus is None:
        return None
    from cachetui.app.dialogs.tag_picker import ALL_TAGS, TagPicker

    chosen = query.filters.get("tag", frozenset())
    current = next(iter(chosen)) if len(chosen) == 1 else None
    tag = await app.push_screen_wait(TagPicker(corpus.tags, tag_counts(corpus, query.package), current))
    if tag is None:
        return None
    return query.with_facet("tag", frozenset() if tag == ALL_TAGS else frozenset({tag}))


async def choose_columns(app: App[Any], hidden: frozenset[str], squeezed: frozenset[str]) -> frozenset[str] | None:
    """`v`: the columns to hide, or None when cancelled."""
    from cachetui.app.dialogs.columns_dialog import ColumnsDialog

    return await app.push_screen_wait(ColumnsDialog(hidden, squeezed))


def show_help(screen: Screen[Any], panes: Sequence[Widget]) -> None:
    """`?`: every key acting now, and where the user is."""
    from cachetui.app.dialogs.help import HelpScreen, help_sections

    screen.app.push_screen(HelpScreen(help_sections(screen, panes)))
