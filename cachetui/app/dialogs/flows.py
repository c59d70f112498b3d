"""The browser's dialog flows: what each key's dialogs ask, awaited in the screen's workers."""

from __future__ import annotations

from typing import Any

from textual.app import App

from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.dialogs.tag_picker import ALL_TAGS, TagPicker
from cachetui.present.inert import inert


async def choose_comparison(app: App[Any], tags: list[str], counts: dict[str, int]) -> tuple[str, str] | None:
    """`d`: the older tag, then the newer one among the others (None: cancelled)."""
    old = await app.push_screen_wait(TagPicker(tags, counts, None, title="Compare: the older tag", with_all=False))
    if old is None:
        return None
    new = await app.push_screen_wait(TagPicker([t for t in tags if t != old], counts, None,
                                               title=f"Compare {inert(old)} with: the newer tag", with_all=False))
    return None if new is None else (old, new)


async def choose_tag(app: App[Any], tags: list[str], counts: dict[str, int],
                     chosen: frozenset[str]) -> frozenset[str] | None:
    """`t`: the tag filter to set (empty: every tag), or None when cancelled."""
    current = next(iter(chosen)) if len(chosen) == 1 else None
    tag = await app.push_screen_wait(TagPicker(tags, counts, current))
    return None if tag is None else frozenset() if tag == ALL_TAGS else frozenset({tag})


async def choose_columns(app: App[Any], hidden: frozenset[str], squeezed: frozenset[str]) -> frozenset[str] | None:
    """`v`: the columns to hide, or None when cancelled."""
    return await app.push_screen_wait(ColumnsDialog(hidden, squeezed))
