"""Fuzzy-searchable package list: an input above a ranked list with spec counts."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from cachetui.app.widgets.fit import fit
from cachetui.app.widgets.key_option_list import KeyOptionList
from cachetui.core.search import PackageMatch, search_packages
from cachetui.present.inert import inert

QUERY_LIMIT = 300  # a typed query shows its best matches; an empty one lists everything


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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Input(placeholder="/ search packages", id="package-search")
        yield KeyOptionList(id="package-options")

    @property
    def search(self) -> Input:
        return self.query_one("#package-search", Input)

    @property
    def options(self) -> OptionList:
        return self.query_one("#package-options", OptionList)

    def watch_names(self) -> None:
        self._refill()

    def watch_counts(self) -> None:
        self._refill()

    @on(Input.Changed, "#package-search")
    def _query_changed(self) -> None:
        self._refill()

    def _refill(self) -> None:
        query = self.search.value
        matches = search_packages(query, list(self.names), limit=QUERY_LIMIT if query.strip() else None)
        total = sum(self.counts.values())
        self._shown = [None] + [m.name for m in matches]
        prompts = [Text.assemble(("All packages", "bold"), "  ", (str(total), "dim"))]
        prompts += [self._prompt(m) for m in matches]
        options = self.options
        options.set_options(Option(p) for p in prompts)
        if query.strip() and matches:
            options.highlighted = 1
        elif self.current in self._shown:
            options.highlighted = self._shown.index(self.current)
        else:
            options.highlighted = 0

    def _prompt(self, match: PackageMatch) -> Text:
        count = f"  {self.counts.get(match.name, 0)}"
        room = max(4, self.options.scrollable_content_region.width - len(count) - 1)
        shown = fit(inert(match.name), room)  # one line per package: OptionList would wrap it
        text = Text(shown)
        if shown == match.name:  # escapes or a cut would shift the positions
            for position in match.positions:
                text.stylize("bold underline", position, position + 1)
        text.append(count, "dim")
        return text

    def on_resize(self) -> None:
        self._refill()

    @on(Input.Submitted, "#package-search")
    def _submitted(self) -> None:
        index = self.options.highlighted
        self._choose(index if index is not None else 0)

    @on(OptionList.OptionSelected, "#package-options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option_index)

    def _choose(self, index: int) -> None:
        if 0 <= index < len(self._shown):
            self.post_message(self.Chosen(self._shown[index]))

    def action_focus_list(self) -> None:
        self.options.focus()
