"""How the browser's panes share the width, and where the focus goes as they show and hide.

The package list and the facets give way when the table needs the room (`pane_widths`, pure
arithmetic in panes.py); `/`, `f` and Escape move the focus, never onto a pane that is hidden.
"""

from __future__ import annotations

from textual import on

from cachetui.app.screens.browser_keys import BrowserKeys
from cachetui.app.screens.panes import displayed, pane_widths
from cachetui.app.widgets.facet_panel import FacetsPane
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable


class BrowserPanes(BrowserKeys):
    """The panes' widths and the focus among them."""

    def __init__(self) -> None:
        super().__init__()
        self._table_wants = 0  # cells the table asked for to show every column that tells rows apart

    # -- focus and panes ------------------------------------------------------------------

    def action_focus_search(self) -> None:
        """`/` searches where you are: the facets pane filters facets, anywhere else searches packages."""
        facets = self.query_one(FacetsPane)
        if facets.has_focus_within:
            self.set_focus(facets.filter)
            return
        if self.has_class("-narrow") and self.has_class("-facets-toggled"):
            self.remove_class("-facets-toggled")  # the package list takes its place back: never type unseen
        # Focus now (Screen.set_focus), not later (Widget.focus): keys typed right after `/` land in the box.
        self.set_focus(self.query_one(QueryBar).input)

    def action_toggle_facets(self) -> None:
        self.toggle_class("-facets-toggled")  # styles update at once, so `display` below is current
        self._fit_panes()
        self._keep_focus_visible()

    # -- panes give way to the table -----------------------------------------------------

    @on(SpecTable.WidthWanted)
    def _table_width_wanted(self, event: SpecTable.WidthWanted) -> None:
        self._table_wants = event.width
        self._fit_panes()

    def on_resize(self) -> None:
        self._fit_panes()

    def _fit_panes(self) -> None:
        """Narrow the package list, then the facets, as far as the table needs to tell its rows apart.

        Both stay on screen, so Tab, `/` and `f` reach them as before.
        """
        if not self.size.width:
            return
        query = self.spec_query
        widths = pane_widths(self.size.width, facets_toggled=self.has_class("-facets-toggled"),
                             table_wants=self._table_wants, opened=query.package is not None or query.spec is not None)
        for selector, cells in zip(("#packages", "#facets"), widths):
            pane = self.query_one(selector)
            if pane.styles.width is None or pane.styles.width.value != cells:
                pane.styles.width = cells

    def _keep_focus_visible(self) -> None:
        """Nothing hidden may keep the focus: move it to the pane that took the hidden one's place."""
        focused = self.focused
        if focused is None or displayed(focused):
            return
        facets = self.query_one(FacetsPane)
        self.set_focus(facets.panel if displayed(facets) else self.query_one(SpecTable))

    def action_back(self) -> None:
        packages = self.query_one(PackageList)
        # On a narrow screen with facets shown, the package list is hidden: fall back to the table.
        self.set_focus(packages.options if displayed(packages) else self.query_one(SpecTable))
