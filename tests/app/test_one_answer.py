"""The browser gives the answers the core and the CLI give: one compiler in the palette, and `^` said unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.commands import EXACT, FacetCommands
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.query.query import Query, match
from cachetui.core.spack.specquery import parse_spec_query
from tests import dag_mirror
from tests.app.helpers import run_palette, type_query, wait_loaded
from tests.cli_answers import query
from tests.spec_tree import write_tree
from tests.test_compiler_names import write_sources


async def test_the_palette_offers_a_compiler_once_under_either_name_with_the_query_s_count(tmp_path: Path) -> None:
    app = CacheTuiApp(write_sources(tmp_path), system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        corpus = app.browser.corpus
        asked = len(match(corpus, Query(spec=parse_spec_query("%oneapi"))))
        hits = [hit async for hit in FacetCommands(app.screen).search("oneapi")]
        names = [hit for hit in hits if (hit.text or "").startswith("compiler_name=")]
        assert [(hit.text, hit.help, hit.score) for hit in names] == [
            ("compiler_name=intel-oneapi-compilers", f"{asked} specs", EXACT)]
        await run_palette(pilot, "oneapi", "intel-oneapi-compilers")
        assert app.browser.spec_query.filters.get("compiler_name") == frozenset({"intel-oneapi-compilers"})
        assert len(app.screen.query_one(SpecTable).data.indices) == asked == 3


async def test_a_dependency_query_beside_a_mirror_says_what_it_cannot_tell_as_the_cli_does(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sources = [str(write_tree(tmp_path / "site")), str(dag_mirror.write_mirror(tmp_path / "mirror"))]
    _, rows, err = query(capsys, *sources, "--spec", "^curl")
    app = CacheTuiApp(sources, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await type_query(pilot, "^curl")
        bar = app.screen.query_one(QueryBar)
        assert bar.problem is None and len(app.screen.query_one(SpecTable).data.indices) == len(rows) > 0
        assert bar.note is not None and "come from listing documents, which record no dependencies" in bar.note
        assert err == f"cachetui: {bar.note}\n"
        said = app.screen.query_one("#query-problem").render().plain
        assert said.startswith("⚠ ") and "listing" in said  # beside the rows, not an empty answer's ∅
