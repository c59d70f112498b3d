"""Entries never read alike: list entries cut in the middle, and table rows that say what tells them apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.facet_panel import FacetPanel, Kind
from cachetui.app.widgets.package_list import PackageList
from tests.app.helpers import wait_loaded
from tests.conftest import listing, spec_entry

SIZES = [(120, 40), (80, 24), (60, 15)]
# A family of packages, tags and variant values that differ only at their end (as real ones do).
FAMILY = [f"py-torch-geometric-{suffix}" for suffix in ("xyz1", "xyz2", "xyz10", "extension")]
TAGS = ["develop-2025-04-20", "develop-2025-05-04", "develop"]
PATCHES = ["patches=0f4e6c1a2b3c4d5e", "patches=0f4e6c1a2b3c4d5f"]


def write_family(root: Path) -> Path:
    for p, package in enumerate(FAMILY):
        for t, tag in enumerate(TAGS):
            specs = [spec_entry(chr(ord("a") + p) + chr(ord("a") + t) + chr(ord("a") + v) + "a" * 29,
                                variants=["+mpi", patches]) for v, patches in enumerate(PATCHES)]
            path = root / "_cache" / tag / package / "specs.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(listing(package, tag, specs))
    return root


def _lines(view, rows: range) -> list[str]:  # noqa: ANN001 - a PickList
    return [view.row_text(row, view.content_width).plain.strip() for row in rows]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_package_names_and_facet_values_never_read_alike(tmp_path: Path, size: tuple[int, int]) -> None:
    app = CacheTuiApp([str(write_family(tmp_path))], system_clipboard=False, use_cache=False)
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        packages = app.screen.query_one(PackageList).options
        await _on_screen(pilot, packages)
        shown = _lines(packages, range(1, packages.row_count))
        assert len(shown) == len(FAMILY) and len(set(shown)) == len(shown), shown
        assert any("…" in line for line in shown)  # the names are longer than the pane: they are cut
        facets = app.screen.query_one(FacetPanel)
        await _on_screen(pilot, facets)
        lines = _lines(facets, range(len(facets.entries)))
        for facet, values in (("tag", TAGS), ("variant", PATCHES)):
            rows = [row for row, entry in enumerate(facets.entries)
                    if entry.kind is Kind.VALUE and entry.facet == facet and entry.value in values]
            assert len(rows) == len(values)
            chosen = [lines[row] for row in rows]
            assert len(set(chosen)) == len(chosen), chosen


async def _on_screen(pilot, widget) -> None:  # noqa: ANN001
    """`f` until `widget` shows: on a narrow screen the facets and the package list take turns."""
    if not widget.region.width:
        await pilot.press("f")
        await pilot.pause()
    assert widget.region.width > 10
