"""A list to pick from, rendered line by line from a source that builds row text on demand."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from rich.text import Text
from textual.message import Message
from textual.reactive import reactive

from cachetui.app.actions import bindings_of
from cachetui.app.widgets.line_view import LineView


class ListSource(Protocol):
    """Rows of a PickList. `initial_cursor` says where the cursor goes when the source is shown."""

    initial_cursor: int | None

    def __len__(self) -> int: ...

    def text(self, row: int, width: int) -> Text: ...

    def selectable(self, row: int) -> bool: ...


class PickList(LineView):
    BINDINGS = bindings_of("pick")
    COMPONENT_CLASSES = {"pick-list--cursor", "pick-list--cursor-blurred"}
    CURSOR_CLASSES = ("pick-list--cursor", "pick-list--cursor-blurred")

    source: reactive[ListSource | None] = reactive(None, always_update=True)

    @dataclass
    class Selected(Message):
        pick_list: PickList
        row: int

        @property
        def control(self) -> PickList:
            return self.pick_list

    @property
    def row_count(self) -> int:
        return 0 if self.source is None else len(self.source)

    def row_text(self, row: int, width: int) -> Text:
        assert self.source is not None
        return self.source.text(row, width)

    def selectable(self, row: int) -> bool:
        return self.source is not None and self.source.selectable(row)

    def watch_source(self, source: ListSource | None) -> None:
        self.rows_changed(None if source is None else source.initial_cursor)

    def action_select(self) -> None:
        if self.row_count and self.selectable(self.cursor):
            self.row_chosen(self.cursor)

    def row_chosen(self, row: int) -> None:
        self.post_message(self.Selected(self, row))
