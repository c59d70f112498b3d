"""Entries never read alike: list entries cut in the middle, and table rows that say what tells them apart."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.facet_panel import FacetPanel, Kind
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import sample_app, wait_loaded
from tests.conftest import listing, spec_entry
from tests.mirrors import v3_mirror

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
    app = CacheTuiApp([str(write_family(tmp_path))], system_clipboard=False)
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


# -- the table: rows of one package tell each other apart ------------------------------------------------


def _cells(table: SpecTable, row: int) -> dict[str, str]:
    """A row as the table draws it, cut into its cells at the column widths."""
    line, cells, left = table.row_text(row, table.content_width).plain, {}, 0
    for key, width in table.column_widths:
        cells[key] = line[left:left + width].rstrip()
        left += width + 1
    return cells


def siblings_alike(app: CacheTuiApp) -> list[tuple[str, str]]:
    """Pairs of rows of one package (by hash) that differ in something their documents record, yet every cell
    shown but the hash reads the same, and no cut (…) marks a cell where they differ."""
    table, corpus = app.screen.query_one(SpecTable), app.browser.corpus
    drawn: dict[tuple[str, ...], list[int]] = {}
    for row in range(table.row_count):
        cells = _cells(table, row)
        spec = corpus.spec(table.source.spec_at(row))
        drawn.setdefault((spec.package, *(text for key, text in cells.items() if key != "hash")), []).append(row)
    found = []
    for rows in drawn.values():
        for a, b in combinations(rows, 2):
            spec_a, spec_b = (corpus.spec(table.source.spec_at(r)) for r in (a, b))
            recorded = [k for k in RECORDED if getattr(spec_a, k) != getattr(spec_b, k)]
            if not recorded:
                continue  # alike in all but the hash, which shows
            cells_a, cells_b = _cells(table, a), _cells(table, b)
            if any("…" in cells_a[key] or "…" in cells_b[key] for key in cells_a if key != "hash"):
                continue  # some cell is cut: the reader knows there is more (the details say it)
            found.append((spec_a.hash[:7], spec_b.hash[:7]))
    return found


RECORDED = ("version", "compiler", "platform", "os", "target", "tag", "stacks", "raw_variants")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_all_packages_view_tells_each_row_from_its_siblings(size: tuple[int, int]) -> None:
    app = sample_app()  # the site documents bundled: binaries told apart by their target and stacks alone
    async with app.run_test(size=size) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        assert table.data.package is None and table.row_count == 362
        assert "differs" in table.shown_columns
        assert siblings_alike(app) == []


async def test_the_differs_cell_of_all_packages_leaves_out_what_the_rows_package_shares(tmp_path: Path) -> None:
    zlib = [spec_entry(c * 32, variants=["+pic"], target=target) for c, target in (("a", "zen3"), ("b", "zen4"))]
    hdf5 = [spec_entry(c * 32, variants=[mpi, "+fortran"]) for c, mpi in (("c", "+mpi"), ("d", "~mpi"))]
    for package, specs in (("zlib", zlib), ("hdf5", hdf5)):
        path = tmp_path / "_cache" / "develop" / package / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(package, "develop", specs))
    app = CacheTuiApp([str(tmp_path)], system_clipboard=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        differs = {app.browser.corpus.spec(table.source.spec_at(row)).hash[0]: _cells(table, row)["differs"]
                   for row in range(table.row_count)}
        # every zlib binary is +pic and every hdf5 +fortran: only +mpi/~mpi tells hdf5's two apart
        assert differs == {"a": "", "b": "", "c": "+mpi", "d": "~mpi"}


async def test_a_cut_differs_cell_keeps_its_end_where_siblings_differ() -> None:
    # Siblings often differ at the end of their differs cell (stacks=…-x86_64-cpu, …-x86_64-cuda): cut in the
    # middle, as package names are, the end shows.
    app = sample_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        width = dict(table.column_widths)["differs"]
        cut = 0
        for row in range(table.row_count):
            whole, drawn = table.source.cell("differs", table.source.spec_at(row)), _cells(table, row)["differs"]
            if len(whole) > width:
                cut += 1
                assert "…" in drawn and drawn.endswith(whole[-2:]) and drawn.startswith(whole[:3]), (whole, drawn)
        assert cut  # at 80x24 the sample's differs cells are cut


async def test_at_60x15_a_tag_that_varies_keeps_its_column() -> None:
    app = sample_app()  # py-ml-dtypes is listed in two tags
    async with app.run_test(size=(60, 15)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        corpus = app.browser.corpus
        shown = {corpus.spec(table.source.spec_at(row)).tag: _cells(table, row) for row in range(table.row_count)}
        assert len(shown) == 2
        said = ["tag" in cells and cells["tag"] or cells.get("differs", "") for cells in shown.values()]
        assert len(set(said)) == 2 and all(said), said


def _node(name: str, hash_: str, version: str, deps: list[tuple[str, str]]) -> dict:
    node = {"name": name, "version": version, "namespace": "builtin", "hash": hash_,
            "arch": {"platform": "linux", "platform_os": "ubuntu22.04", "target": {"name": "x86_64_v3"}},
            "parameters": {"shared": True, "cflags": []}}
    if deps:
        node["dependencies"] = [{"name": dep, "hash": dep_hash, "parameters": {"deptypes": ["build", "link"],
                                                                             "virtuals": []}}
                                for dep, dep_hash in deps]
    return {"spec": node, "ref_count": 1, "in_buildcache": True}


@pytest.mark.parametrize("opened", ["app", None])
async def test_rows_that_differ_only_in_a_dependency_say_which(tmp_path: Path, opened: str | None) -> None:
    # Two builds of app alike in every field a table shows, one linking zlib 1.3, one zlib 1.3.1;
    # and two of tool whose zlib is the same version, two binaries of it.
    zlibs = {"zlib13" + "a" * 26: "1.3", "zlib131" + "a" * 25: "1.3.1", "zlibtwin" + "a" * 24: "1.3.1"}
    installs = {h: _node("zlib", h, v, []) for h, v in zlibs.items()}
    installs |= {h: _node("app", h, "1.0", [("zlib", z)]) for h, z in
                 (("appold" + "a" * 26, "zlib13" + "a" * 26), ("appnew" + "a" * 26, "zlib131" + "a" * 25))}
    installs |= {h: _node("tool", h, "2.0", [("zlib", z)]) for h, z in
                 (("toolone" + "a" * 25, "zlib131" + "a" * 25), ("tooltwo" + "a" * 25, "zlibtwin" + "a" * 24))}
    v3_mirror(tmp_path / "develop", json.dumps({"database": {"version": "8", "installs": installs}}).encode())
    app = CacheTuiApp([str(tmp_path / "develop")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        if opened:
            await pilot.press("slash", *opened, "enter")
            await wait_loaded(pilot)
        table, corpus = app.screen.query_one(SpecTable), app.browser.corpus
        differs = {corpus.spec(table.source.spec_at(row)).hash[:7]: _cells(table, row).get("differs", "")
                   for row in range(table.row_count)}
        assert differs["appolda"] == "^zlib@1.3/zlib13a"
        assert differs["appnewa"] == "^zlib@1.3.1/zlib131"
        if not opened:
            assert differs["toolone"] == "^zlib@1.3.1/zlib131" and differs["tooltwo"] == "^zlib@1.3.1/zlibtwi"
            assert differs["zlib13a"] == ""  # told apart by its version column
            # two builds of zlib 1.3.1 alike in every recorded value: each says which other it reads as
            assert (differs["zlib131"], differs["zlibtwi"]) == ("same as /zlibtwi", "same as /zlib131")
