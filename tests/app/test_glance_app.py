"""A warm start draws the last reading's package list first (the glance), says that is what it shows, and hands
what the user did on it to the browser that takes its place: nothing typed or chosen is lost, and once the sources
are checked, what shows is what they hold now."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest
from textual import work

import cachetui.core.load as load_module
from cachetui.app.app import BrowserImported, CacheTuiApp
from cachetui.app.screens.browser import BrowserScreen
from cachetui.app.screens.glance import GlanceScreen
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.status_line import StatusLine, render_status
from cachetui.core.load import LoadOptions, load_corpus, sample_path
from tests.app.helpers import wait_for, wait_loaded

CACHED = LoadOptions(use_cache=True)


class Gates:
    """Holds the load and the browser's import until the test lets each go."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.load, self.browser = threading.Event(), threading.Event()
        self.loading = threading.Event()
        real = load_module.load_dating_later
        gates = self

        def held_load(*args: object, **kwargs: object) -> object:
            gates.loading.set()
            assert gates.load.wait(timeout=30)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        @work(thread=True, group="browser import", exit_on_error=False)
        def held_import(app: CacheTuiApp) -> None:
            assert gates.browser.wait(timeout=30)
            import cachetui.app.screens.browser  # noqa: F401

            app.post_message(BrowserImported())

        monkeypatch.setattr(load_module, "load_dating_later", held_load)
        monkeypatch.setattr(CacheTuiApp, "_import_browser", held_import)


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "docs"
    shutil.copytree(sample_path(), source, ignore=shutil.ignore_patterns("__*"))
    return source


async def test_the_glance_comes_first_and_the_browser_takes_what_was_typed(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    source = _source(tmp_path)
    corpus = load_corpus([str(source)], CACHED)  # the last reading, kept
    gates = Gates(monkeypatch)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        glance = app.screen
        packages = glance.query_one(PackageList)
        assert packages.state.counts == corpus.package_sizes()
        assert f"{corpus.n_specs} specs as last read" in str(glance.query_one("#status").render())
        await pilot.press("slash", "m", "p", "i")  # typed on the glance: its list is searched at once
        await pilot.pause()
        assert [m.name for m in packages.rows.matches][:1] == ["py-mpi4py"]
        gates.browser.set()  # the browser takes the glance's place before the sources are checked
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.is_mounted)
        await pilot.pause()
        browser = app.browser
        assert browser.corpus is None
        line = browser.query_one(QueryBar).input
        assert (line.value, app.focused) == ("mpi", line)
        assert "specs as last read" in render_status(browser.query_one(StatusLine).status).plain
        assert browser.query_one(PackageList).state.counts == corpus.package_sizes()
        await pilot.press("4")  # typed on the browser while the sources are checked
        gates.load.set()
        await wait_loaded(pilot)
        assert browser.corpus is not None and browser.corpus.cache_status == "hit"
        assert line.value == "mpi4"
        assert [m.name for m in browser.query_one(PackageList).rows.matches][:1] == ["py-mpi4py"]
        assert "as last read" not in render_status(browser.query_one(StatusLine).status).plain


async def test_a_package_chosen_on_the_glance_opens_once_the_corpus_is_there(monkeypatch: pytest.MonkeyPatch,
                                                                            tmp_path: Path) -> None:
    source = _source(tmp_path)
    load_corpus([str(source)], CACHED)
    gates = Gates(monkeypatch)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("down", "down", "enter")  # "All packages", then the second package A-Z
        await pilot.pause()
        assert "opening py-mpi4py" in str(app.screen.query_one("#specs").render())
        gates.browser.set()
        gates.load.set()
        await wait_loaded(pilot)
        assert app.browser.spec_query.package == "py-mpi4py"


async def test_what_changed_since_the_glance_is_what_shows_once_checked(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    source = _source(tmp_path)
    before = load_corpus([str(source)], CACHED)
    gone = next(p for p in sorted(source.iterdir()) if p.suffix == ".txt")
    gone.unlink()  # after the last reading: the glance still lists its package
    gates = Gates(monkeypatch)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        assert app.screen.query_one(PackageList).state.counts == before.package_sizes()
        gates.browser.set()
        gates.load.set()
        await wait_loaded(pilot)
        now = app.browser.corpus
        assert now is not None and now.n_specs < before.n_specs
        packages = app.browser.query_one(PackageList)
        assert packages.state.counts == now.package_sizes() and set(packages.state.names) == set(now.packages)
        status = render_status(app.browser.query_one(StatusLine).status).plain
        assert f"{now.n_specs} of {now.n_specs} specs" in status and "as last read" not in status


async def test_a_load_that_fails_after_the_glance_is_said_on_the_browser(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    source = _source(tmp_path)
    load_corpus([str(source)], CACHED)

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(load_module, "load_dating_later", broken)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.browser.corpus is not None)
        corpus = app.browser.corpus
        assert corpus is not None and corpus.n_specs == 0
        assert any("disk on fire" in p.reason for p in corpus.report.problems)


@pytest.mark.parametrize("options", [LoadOptions(use_cache=False), CACHED], ids=["no-cache", "no-glance-kept"])
async def test_without_a_glance_the_browser_comes_first(options: LoadOptions, tmp_path: Path) -> None:
    source = _source(tmp_path)
    load_corpus([str(source)], LoadOptions(use_cache=False))  # read, but nothing kept
    app = CacheTuiApp([str(source)], options, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert isinstance(app.screen, BrowserScreen)
        await wait_loaded(pilot)
        assert app.browser.corpus is not None
