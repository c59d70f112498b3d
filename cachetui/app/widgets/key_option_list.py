"""An OptionList that also moves with j/k, for people who live on the home row."""

from __future__ import annotations

from textual.widgets import OptionList

from cachetui.app.actions import bindings_of


class KeyOptionList(OptionList):
    BINDINGS = bindings_of("list")
