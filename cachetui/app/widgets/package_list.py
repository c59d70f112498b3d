"""Fuzzy-searchable package list: an input above a ranked list with spec counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive

from cachetui.app.widgets.pick_list import PickList
from cachetui.core.query.search import PackageMatch, search_packages
from cachetui.present.apart import apart
from cachetui.present.fit import fit
from cachetui.present.inert import inert


@dataclass
class PackageRows:
    """Row 0 is "All packages"; then the matches, best first (or A-Z for an empty query)."""

    matches: list[PackageMatch]
    counts: Mapping[str, int]
    initial_cursor: int | None
    changes: Mapping[str, tuple[int, int]] | None = None  # compare mode: package -> (added, removed)
    _shown: dict[int, tuple[int, list[str]]] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.matches) + 1

    def package(self, row: int) -> str | None:
        return None if row == 0 else self.matches[row - 1].name

    def selectable(self, row: int) -> bool:
        return True

    def text(self, row: int, width: int) -> Text:
        if row == 0:
            counted = self._counted(None)
            text = Text(fit("All packages", max(1, width - len(counted) - 1), pad=True), style="bold")
            text.append(counted + " ", "dim")  # bold too: the Text's own style covers what is appended
            return text
        match = self.matches[row - 1]
        counted = self._counted(match.name)
        if self.changes is not None:
            style = "" if any(self.changes.get(match.name, (0, 0))) else "dim"
        else:
            style = "" if self.counts.get(match.name, 0) else "dim"
        name_width, names = self._names(width)
        shown = fit(names[row - 1], name_width, pad=True)
        text = Text(shown, style=style)
        if shown.rstrip() == match.name:  # escapes or a cut would shift the positions
            for position in match.positions:
                text.stylize("bold underline", position, position + 1)
        text.append(counted.rjust(width - name_width - 1) + " ", "dim")
        return text

    def _counted(self, name: str | None) -> str:
        """What follows a name: its count, or in compare mode what was added and removed (None: all packages)."""
        if self.changes is not None:
            added, removed = (map(sum, zip((0, 0), *self.changes.values())) if name is None
                              else self.changes.get(name, (0, 0)))
            return f" +{added} −{removed}"
        return f" {sum(self.counts.values()) if name is None else self.counts.get(name, 0)}"

    def _names(self, width: int) -> tuple[int, list[str]]:
        """The cells every name has at `width` (its count beside it, aligned), and each name cut to them so
        no two read alike: cut in the middle, where names of one family differ (`py-torch-…-xyz1`)."""
        if width not in self._shown:
            counted = max((len(self._counted(m.name)) for m in self.matches), default=0)
            name_width = max(1, width - counted - 1)
            self._shown.clear()  # one width at a time: a resize lays the list out anew
            self._shown[width] = name_width, apart([inert(m.name) for m in self.matches], name_width)
        return self._shown[width]


@dataclass(frozen=True)
class PackageListState:
    """Everything the list shows, pushed down whole once per answer (one refill, not one per field)."""

    names: tuple[str, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    current: str | None = None  # the package open now: the cursor starts on it
    search: str = ""  # what the query line holds while it searches packages
    only_matching: bool = False  # a spec query is active: just the packages with matching specs, A-Z
    # Facet filters or "runs on" narrow the answer: just the packages with matches (and the one open), as
    # for a spec query, so one question lists the same packages however it was asked; a package search
    # still finds every package.
    filtered: bool = False
    changes: Mapping[str, tuple[int, int]] | None = None  # compare mode: package -> (added, removed)


class PackageList(Vertical):
    """Posts `Chosen` with a package name, or None for "all packages"."""

    state: reactive[PackageListState] = reactive(PackageListState)

    @dataclass
    class Chosen(Message):
        package: str | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._narrowed: tuple[object, tuple[str, ...]] = (None, ())

    def compose(self) -> ComposeResult:
        yield PickList(id="package-options")

    @property
    def options(self) -> PickList:
        return self.query_one("#package-options", PickList)

    @property
    def rows(self) -> PackageRows | None:
        source = self.options.source
        return source if isinstance(source, PackageRows) else None

    def watch_state(self, old: PackageListState, new: PackageListState) -> None:
        if (old.names, old.search, old.only_matching, old.filtered) != (
                new.names, new.search, new.only_matching, new.filtered):
            self._refill(new, keep_cursor=False)
        elif old.counts != new.counts:  # the same list with new counts: stay put, unless it is the matches'
            self._refill(new, keep_cursor=not new.only_matching)
        elif old.changes != new.changes:
            self._refill(new, keep_cursor=True)
        if old.current != new.current:  # a package opened elsewhere (a jump, the palette): the cursor follows
            self.point_at(new.current)

    def lists(self, package: str | None) -> bool:
        """Whether the list shows `package` (None: the "All packages" row, always there)."""
        return self._row_of(package) is not None

    def _row_of(self, package: str | None) -> int | None:
        rows = self.rows
        if rows is None:
            return None
        return next((row for row in range(len(rows)) if rows.package(row) == package), None)

    def point_at(self, package: str | None) -> None:
        """The cursor on `package`, when the list shows it."""
        row = self._row_of(package)
        if row is not None:
            self.options.cursor = row

    def _refill(self, state: PackageListState, keep_cursor: bool) -> None:
        query = "" if state.only_matching else state.search
        names = self._names(state)
        matches = search_packages(query, names)  # the same tuple each time: its spellings are reused
        kept = self.rows.package(self.options.cursor) if keep_cursor and self.rows is not None else ""
        shown = [m.name for m in matches]
        if kept is None or kept in shown:  # the same package as before (or "All packages")
            cursor = 0 if kept is None else shown.index(kept) + 1
        elif query.strip() and matches:
            cursor = 1
        else:
            cursor = shown.index(state.current) + 1 if state.current in shown else 0
        self.options.source = PackageRows(matches, state.counts, cursor, state.changes)

    def _names(self, state: PackageListState) -> tuple[str, ...]:
        """The names the list holds: those with matches and the one open when the answer is narrowed, unless
        a package search names one (it looks among every package: a name typed is found, its count 0)."""
        if not (state.only_matching or state.filtered and not state.search.strip()):
            return state.names
        key = (state.names, state.counts, state.current)
        if self._narrowed[0] != key:
            self._narrowed = (key, tuple(n for n in state.names if state.counts.get(n) or n == state.current))
        return self._narrowed[1]

    def choose_highlighted(self) -> None:
        """Open what the cursor is on (after a search, the best match)."""
        self._choose(self.options.cursor)

    @on(PickList.Selected, "#package-options")
    def _selected(self, event: PickList.Selected) -> None:
        event.stop()
        self._choose(event.row)

    def _choose(self, row: int) -> None:
        rows = self.rows
        if rows is not None and 0 <= row < len(rows):
            self.post_message(self.Chosen(rows.package(row)))
