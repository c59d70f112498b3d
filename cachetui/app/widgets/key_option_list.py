"""An OptionList that also moves with j/k, for people who live on the home row."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import OptionList


class KeyOptionList(OptionList):
    BINDINGS = [
        Binding("k", "cursor_up", "Up", show=False, id="list.up"),
        Binding("j", "cursor_down", "Down", show=False, id="list.down"),
    ]
