"""The package list and the facets give way to the table (`pane_widths`), as far as it is short and no further."""

from __future__ import annotations

from cachetui.app.screens.panes import (
    FACETS_LEAST,
    FACETS_WIDTH,
    PACKAGES_LEAST,
    PACKAGES_LEAST_BROWSING,
    PACKAGES_NARROW,
    PACKAGES_WIDTH,
    pane_widths,
)


def test_panes_keep_their_width_while_the_table_has_room() -> None:
    assert pane_widths(200, facets_toggled=False, table_wants=80, opened=True) == (PACKAGES_WIDTH, FACETS_WIDTH)


def test_the_package_list_gives_way_first_then_the_facets() -> None:
    room = 120 - 2 - PACKAGES_WIDTH - FACETS_WIDTH  # wide: two borders
    assert pane_widths(120, facets_toggled=False, table_wants=room + 5, opened=True) == (PACKAGES_WIDTH - 5,
                                                                                          FACETS_WIDTH)
    packages, facets = pane_widths(120, facets_toggled=False, table_wants=room + 20, opened=True)
    assert packages == PACKAGES_LEAST and facets == FACETS_WIDTH - (20 - (PACKAGES_WIDTH - PACKAGES_LEAST))
    assert pane_widths(120, facets_toggled=False, table_wants=500, opened=True) == (PACKAGES_LEAST, FACETS_LEAST)


def test_browsing_all_packages_keeps_the_list_readable() -> None:
    assert pane_widths(120, facets_toggled=False, table_wants=500, opened=False)[0] == PACKAGES_LEAST_BROWSING


def test_narrow_with_facets_toggled_only_the_facets_give_way() -> None:
    # Below the wide breakpoint `f` swaps the list for the facets: the list's width is not counted.
    packages, facets = pane_widths(80, facets_toggled=True, table_wants=80 - 1 - FACETS_WIDTH + 3, opened=True)
    assert (packages, facets) == (PACKAGES_NARROW, FACETS_WIDTH - 3)
