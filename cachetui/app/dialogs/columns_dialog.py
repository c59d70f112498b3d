"""`v`: choose which table columns show (Space toggles, Escape applies); `[x]` shows, `[ ]` is hidden."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from cachetui.app.actions import bindings_of
from cachetui.app.dialogs.closing import closed_by_opening_key
from cachetui.app.widgets.check_list import CheckList
from cachetui.present.spec_table.table_layout import COLUMNS

DESCRIPTIONS = {
    "change": "change: added, removed or kept (compare mode, d)",
    "package": "package (when rows come from several)",
    "differs": "differs: variants not common to every row",
    "variants": "variants: all of them",
}


class ColumnsDialog(ModalScreen[frozenset[str]]):
    """Dismisses with the set of hidden column keys."""

    BINDINGS = bindings_of("columns")

    async def on_key(self, event: events.Key) -> None:
        await closed_by_opening_key(self, event, "browser.columns", "apply")

    def __init__(self, hidden: frozenset[str], squeezed: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._hidden = hidden
        self._squeezed = squeezed  # chosen, but the table has no room for them now

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            title = "Columns  (space toggles, esc applies)"
            if self._squeezed - self._hidden:
                title += "\n(no room): chosen, but the table is too narrow for it now"
            yield Label(title, classes="dialog-title")
            yield CheckList(
                *((self._label(c.key, c.title), c.key, c.key not in self._hidden) for c in COLUMNS),
                classes="dialog-options",
            )

    def _label(self, key: str, title: str) -> str:
        label = DESCRIPTIONS.get(key, title)
        return label + "  (no room)" if key in self._squeezed and key not in self._hidden else label

    def on_mount(self) -> None:
        self.query_one(CheckList).focus()

    def action_apply(self) -> None:
        shown = set(self.query_one(CheckList).selected)
        self.dismiss(frozenset(c.key for c in COLUMNS if c.key not in shown))

