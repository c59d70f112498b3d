"""Fuzzy-searchable package list: an input above a ranked list with spec counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input

from cachetui.app.widgets.fit import fit
from cachetui.app.widgets.pick_list import PickList
from cachetui.core.search import PackageMatch, search_packages
from cachetui.present.inert import inert


@dataclass
class PackageRows:
    """Row 0 is "All packages"; then the matches, best first (or A-Z for an empty query)."""

    matches: list[PackageMatch]
    counts: Mapping[str, int]
    initial_cursor: int | None

    def __len__(self) -> int:
        return len(self.matches) + 1

    def package(self, row: int) -> str | None:
        return None if row == 0 else self.matches[row - 1].name

    def selectable(self, row: int) -> bool:
        return True

    def text(self, row: int, width: int) -> Text:
        if row == 0:
            return self._line("All packages", sum(self.counts.values()), width, (), "bold")
        match = self.matches[row - 1]
        return self._line(match.name, self.counts.get(match.name, 0), width, match.positions, "")

    @staticmethod
    def _line(name: str, count: int, width: int, positions: tuple[int, ...], style: str) -> Text:
        counted = f" {count}"
        shown = fit(inert(name), max(1, width - len(counted) - 1), pad=True)
        text = Text(shown, style=style)
        if shown.rstrip() == name:  # escapes or a cut would shift the positions
            for position in positions:
                text.stylize("bold underline", position, position + 1)
        text.append(counted + " ", "dim")
        return text


class PackageList(Vertical):
    """Posts `Chosen` with a package name, or None for "all packages"."""

    BINDINGS = [Binding("down", "focus_list", "To list", show=False, id="packages.to-list")]

    names: reactive[tuple[str, ...]] = reactive(())
    counts: reactive[dict[str, int]] = reactive(dict)
    current: reactive[str | None] = reactive(None)

    class Chosen(Message):
        def __init__(self, package: str | None) -> None:
            super().__init__()
            self.package = package

    def compose(self) -> ComposeResult:
        yield Input(placeholder="/ search packages", id="package-search")
        yield PickList(id="package-options")

    @property
    def search(self) -> Input:
        return self.query_one("#package-search", Input)

    @property
    def options(self) -> PickList:
        return self.query_one("#package-options", PickList)

    @property
    def rows(self) -> PackageRows | None:
        return self.options.source  # type: ignore[return-value]

    def watch_names(self) -> None:
        self._refill()

    def watch_counts(self) -> None:
        self._refill(keep_cursor=True)

    @on(Input.Changed, "#package-search")
    def _query_changed(self) -> None:
        self._refill()

    def _refill(self, keep_cursor: bool = False) -> None:
        query = self.search.value
        matches = search_packages(query, self.names)  # the same tuple each time: its spellings are reused
        if keep_cursor and self.rows is not None:
            cursor = self.options.cursor
        elif query.strip() and matches:
            cursor = 1
        else:
            shown = [m.name for m in matches]
            cursor = shown.index(self.current) + 1 if self.current in shown else 0
        self.options.source = PackageRows(matches, self.counts, cursor)

    @on(Input.Submitted, "#package-search")
    def _submitted(self) -> None:
        self._choose(self.options.cursor)

    @on(PickList.Selected, "#package-options")
    def _selected(self, event: PickList.Selected) -> None:
        event.stop()
        self._choose(event.row)

    def _choose(self, row: int) -> None:
        rows = self.rows
        if rows is not None and 0 <= row < len(rows):
            self.post_message(self.Chosen(rows.package(row)))

    def action_focus_list(self) -> None:
        self.screen.set_focus(self.options)
