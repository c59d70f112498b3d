"""How wide the package list and the facets are: they give way when the table needs the room.

Pure arithmetic on cells, so it is tested without a screen; the browser applies the widths inline
(no class on a container, which would restyle its whole subtree).
"""

from __future__ import annotations

from textual.widget import Widget

# Pane widths (wide, narrow) and how far each gives way when the table needs the room.
PACKAGES_WIDTH, PACKAGES_NARROW = 28, 24
PACKAGES_LEAST, PACKAGES_LEAST_BROWSING = 16, 20  # a package or query open (the list shows its name), or not
FACETS_WIDTH, FACETS_LEAST = 30, 22
WIDE_FROM = 110  # the browser's -wide breakpoint
# Each titled pane's border title, lit with its border when focused (the glance draws the first two before the
# browser is imported).
PANE_TITLES = {"#packages": "Packages", "#specs": "Specs", "#detail": "Details", "#facets": "Facets"}
# The query line's placeholder, `<id>` standing for the keys bound to that binding id now (`actions.keys_named`).
QUERY_PLACEHOLDER = ("<browser.search> search packages, or a spec: "
                     "hdf5@1.14: +mpi target=x86_64_v3: %gcc@13 ^zlib /abc1234")


def pane_widths(width: int, *, facets_toggled: bool, table_wants: int, opened: bool) -> tuple[int, int]:
    """(package list, facets) widths: the list narrows first, then the facets, as far as the table is short.

    `facets_toggled`: `f` was pressed (narrow: facets replace the list; wide: facets hidden);
    `opened`: a package or query is open, so the list shows one name and can be narrower.
    """
    narrow = width < WIDE_FROM
    packages_shown = not (narrow and facets_toggled)
    facets_shown = facets_toggled if narrow else not facets_toggled
    packages = PACKAGES_NARROW if narrow else PACKAGES_WIDTH
    facets = FACETS_WIDTH
    borders = 1 if narrow else 2 - facets_toggled
    short = table_wants - (width - borders - packages * packages_shown - facets * facets_shown)
    least = PACKAGES_LEAST if opened else PACKAGES_LEAST_BROWSING
    if short > 0 and packages_shown:
        given = max(0, min(short, packages - least))
        packages, short = packages - given, short - given
    if short > 0 and facets_shown:
        facets -= min(short, facets - FACETS_LEAST)
    return packages, facets


def displayed(widget: Widget) -> bool:
    """Shown on screen: neither it nor any container above it has `display: none`."""
    return all(node.display for node in widget.ancestors_with_self if isinstance(node, Widget))
