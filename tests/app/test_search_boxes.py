"""The search boxes: Escape clears what was typed before it leaves, the footer says what Escape and Enter will
do there, Up in the query line brings back the queries entered this session; an empty table says why."""

from __future__ import annotations

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.facet_panel import FacetFilter, FacetPanel
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.core.query.query import Query
from cachetui.core.query.results import results_for
from cachetui.present.browse.answer import RecentAnswers, rows_to_show
from tests.app.helpers import sample_app, wait_for, wait_loaded


def _footer(app) -> str:  # noqa: ANN001
    return app.screen.query_one(KeyFooter).render().plain


async def test_escape_clears_the_query_line_then_leaves_it_and_the_footer_says_which() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        bar = app.screen.query_one(QueryBar)
        await pilot.press("slash")
        assert " esc Back " in _footer(app) and " ⏎ Open " in _footer(app)
        await pilot.press(*"mpi4")
        await pilot.pause()
        assert " esc Clear " in _footer(app) and "esc Back" not in _footer(app)
        await pilot.press("escape")
        await pilot.pause()
        assert bar.text == "" and app.focused is bar.input  # cleared, and still typing there
        assert " esc Back " in _footer(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.screen.query_one(PackageList).options  # where Escape goes from anywhere


async def test_escape_clears_the_facet_filter_then_goes_to_the_facets() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("f")
        app.screen.set_focus(app.screen.query_one(FacetFilter))
        await pilot.press(*"ubu")
        await pilot.pause()
        box = app.screen.query_one(FacetFilter)
        assert " esc Clear " in _footer(app) and " ⏎ To facets " in _footer(app)
        await pilot.press("escape")
        await pilot.pause()
        assert box.value == "" and app.focused is box
        assert " esc To facets " in _footer(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is app.screen.query_one(FacetPanel)


async def test_up_in_the_query_line_brings_back_the_queries_entered_newest_first() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        bar = app.screen.query_one(QueryBar)
        for query in ("py-mpi4py %gcc", "py-safetensors target=zen3"):
            await pilot.press("slash", "ctrl+u", *query, "enter")
            await wait_loaded(pilot)
        await pilot.press("slash", "ctrl+u", *"py-pdm")
        await pilot.press("up")
        assert bar.text == "py-safetensors target=zen3"
        await pilot.press("up")
        assert bar.text == "py-mpi4py %gcc"
        await pilot.press("up")  # the oldest stays
        assert bar.text == "py-mpi4py %gcc"
        await pilot.press("enter")
        await wait_loaded(pilot)
        assert app.focused is app.screen.query_one(SpecTable)  # applied, as if typed
        assert {app.browser.corpus.spec(int(i)).package for i in app.screen.query_one(SpecTable).data.indices} \
            == {"py-mpi4py"}


async def test_an_empty_table_says_why_nothing_loaded(tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "empty").mkdir()
    app = CacheTuiApp([str(tmp_path / "empty")], system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.screen.query_one(SpecTable)
        await wait_for(pilot, lambda: table.data is not None)  # the empty answer, once the load has said so
        said = table.header_text(0, 200).plain
        assert said.startswith("Nothing loaded: p lists what could not be read.")


async def test_an_empty_table_says_which_part_of_the_query_emptied_it() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        corpus = app.browser.corpus
        results = results_for(corpus, Query(filters={"os": frozenset({"sequoia"}), "platform": frozenset({"linux"})}))
        assert not len(results.indices) and results.why_empty  # each value is held, together none
        table = app.screen.query_one(SpecTable)
        table.data = rows_to_show(corpus, results, (None, False), RecentAnswers())
        said = table.header_text(0, 300).plain
        assert said == f"No spec matches: {results.why_empty} (x clears the filters)."
