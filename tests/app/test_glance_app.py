"""A warm start draws the last reading's package list first (the glance), says that is what it shows, and hands
what the user did on it to the browser that takes its place: nothing typed or chosen is lost, and once the sources
are checked, what shows is what they hold now."""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest
from textual import events, work
from textual.command import CommandPalette
from textual.pilot import Pilot

import cachetui.core.load as load_module
from cachetui.app.app import CacheTuiApp, PlaceBrowser
from cachetui.app.screens import glance as glance_module
from cachetui.app.screens.browser import BrowserScreen
from cachetui.app.screens.glance import GlanceScreen
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar
from cachetui.app.widgets.status_line import StatusLine, render_status
from cachetui.core.load import DOCUMENTS, LoadOptions, Progress, load_corpus, sample_path
from tests.app.helpers import wait_for, wait_loaded

CACHED = LoadOptions(use_cache=True)


class Gates:
    """Holds the load and the browser's import until the test lets each go."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, chatty: bool = False) -> None:
        self.load, self.browser = threading.Event(), threading.Event()
        self.loading = threading.Event()
        real = load_module.load_dating_later
        gates = self

        def held_load(*args: object, progress: Progress | None = None, **kwargs: object) -> object:
            gates.loading.set()
            # `chatty`: the load says how far it is all the while it is held, as a long check does.
            while chatty and progress is not None and not gates.load.wait(0.001):
                progress(1, 10, DOCUMENTS)
            assert gates.load.wait(timeout=30)
            return real(*args, progress=progress, **kwargs)  # type: ignore[arg-type]

        @work(thread=True, group="browser import", exit_on_error=False)
        def held_import(app: CacheTuiApp) -> None:
            assert gates.browser.wait(timeout=30)
            import cachetui.app.screens.browser  # noqa: F401

            app.post_message(PlaceBrowser())

        monkeypatch.setattr(load_module, "load_dating_later", held_load)
        monkeypatch.setattr(CacheTuiApp, "_import_browser", held_import)


def _warm_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Gates, CacheTuiApp]:
    """The browser on sources read before (their glance kept), its load and its browser's import held."""
    source = _source(tmp_path)
    load_corpus([str(source)], CACHED)
    return Gates(monkeypatch), CacheTuiApp([str(source)], CACHED, system_clipboard=False)


async def _read_then_open(pilot: Pilot, gates: Gates, package: str | None) -> None:
    """The browser's import and the load let go: once the corpus is read, `package` is the one open."""
    gates.browser.set()
    gates.load.set()
    await wait_loaded(pilot)
    app = pilot.app
    assert isinstance(app, CacheTuiApp) and app.browser.spec_query.package == package


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
    gates, app = _warm_start(monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("down", "down", "enter")  # "All packages", then the second package A-Z
        await pilot.pause()
        assert "opening py-mpi4py once read" in str(app.screen.query_one("#status").render())
        await _read_then_open(pilot, gates, "py-mpi4py")


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


async def test_the_check_reporting_all_through_the_handover_costs_nothing(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    source = _source(tmp_path)
    corpus = load_corpus([str(source)], CACHED)
    gates = Gates(monkeypatch, chatty=True)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, gates.loading.is_set)
        gates.browser.set()  # the browser is composed while the check says how far it is, again and again
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.is_mounted)
        await pilot.pause()
        said = render_status(app.browser.query_one(StatusLine).status).plain
        assert "as last read" in said and "checking the sources: Reading" in said
        gates.load.set()
        await wait_loaded(pilot)
        assert app.browser.corpus is not None and app.browser.corpus.n_specs == corpus.n_specs


async def test_a_package_chosen_that_is_gone_once_read_is_said_not_opened(monkeypatch: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    source = _source(tmp_path)
    before = load_corpus([str(source)], CACHED)
    gates = Gates(monkeypatch)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("slash", *"safet", "enter")
        await pilot.pause()
        assert "opening py-safetensors once read" in str(app.screen.query_one("#status").render())
        for document in source.glob("*.txt"):  # py-safetensors is removed before the check reads the sources
            if "py-safetensors" in document.read_text():
                document.unlink()
        gates.browser.set()
        gates.load.set()
        await wait_loaded(pilot)
        corpus = app.browser.corpus
        assert corpus is not None and "py-safetensors" not in corpus.packages and corpus.n_specs < before.n_specs
        assert app.browser.spec_query.package is None  # all packages, as before the choice
        assert any("py-safetensors is not in the sources now" in str(n.message) for n in app._notifications)


async def test_the_palette_open_on_the_glance_is_closed_for_the_browser(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    gates, app = _warm_start(monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("slash", *"mpi", "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        gates.browser.set()
        gates.load.set()
        await wait_loaded(pilot)
        assert [type(screen) for screen in app.screen_stack][1:] == [BrowserScreen]
        assert app.browser.query_one(QueryBar).input.value == "mpi"


async def test_keys_typed_through_the_handover_are_all_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gates, app = _warm_start(monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("slash", *"py")
        gates.browser.set()
        await pilot.press(*"-mpi4")  # without a pause: some reach the glance, some the browser as it mounts
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.is_mounted)
        await pilot.press("p", "y")
        gates.load.set()
        await wait_loaded(pilot)
        assert app.browser.query_one(QueryBar).input.value == "py-mpi4py"


async def test_keys_the_glance_has_not_handled_yet_are_handed_over(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """Keys forwarded to the glance just before the browser is put in its place wait in the glance's line; the
    handover waits for them, and for what Enter set off there (the choice, seven queues on)."""
    gates, app = _warm_start(monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("slash")
        for key in [*"mpi4", "enter"]:  # in the app's queue, ahead of the browser: all go to the glance
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        app.post_message(PlaceBrowser())
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.is_mounted)
        await pilot.pause()
        assert app.browser.query_one(QueryBar).input.value == "mpi4"
        assert "opening py-mpi4py once read" in render_status(app.browser.query_one(StatusLine).status).plain
        await _read_then_open(pilot, gates, "py-mpi4py")


async def test_a_browser_being_pushed_hides_its_keys_until_composed(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """Textual asks the app's top screen about a `screen.` key (Ctrl+C's copy) for each key the glance handles,
    and the browser is that screen before it is composed: nothing of it acts, and nothing fails."""
    gates, app = _warm_start(monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        assert BrowserScreen().check_action("copy_text", ()) is False
        gates.browser.set()
        gates.load.set()
        await wait_loaded(pilot)
        assert app.browser.check_action("copy_text", ()) is True


async def test_the_last_package_chosen_while_reading_opens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gates, app = _warm_start(monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("slash", *"mpi", "enter")  # chosen on the glance...
        gates.browser.set()
        await wait_for(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.is_mounted)
        await pilot.pause()
        await pilot.press("ctrl+u", *"safet", "enter")  # ...then another on the browser, before the corpus
        await pilot.pause()
        said = render_status(app.browser.query_one(StatusLine).status).plain
        assert "opening py-safetensors once read" in said
        gates.load.set()
        await wait_loaded(pilot)
        assert app.browser.spec_query.package == "py-safetensors"


async def test_a_slash_is_typed_in_the_glance_query_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    source = _source(tmp_path)
    load_corpus([str(source)], CACHED)
    Gates(monkeypatch)
    app = CacheTuiApp([str(source)], CACHED, system_clipboard=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        await pilot.press("slash", *"py /abc")
        await pilot.pause()
        assert app.screen.query_one("#query-line").value == "py /abc"


async def test_a_glance_widget_that_never_handles_its_queue_does_not_hold_the_browser_back(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The handover waits for what the glance was sent, but not for ever: a widget whose queue is never handled
    costs one bounded wait, and then the glance hands over what it has."""
    gates, app = _warm_start(monkeypatch, tmp_path)
    monkeypatch.setattr(glance_module, "SETTLE_ROUND_S", 0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, GlanceScreen))
        glance = app.screen
        assert isinstance(glance, GlanceScreen)
        await pilot.press("slash", *"mpi")
        with monkeypatch.context() as stalled:
            stalled.setattr(glance.query_one(PackageList), "call_later", lambda *args, **kwargs: True)  # never run
            await asyncio.wait_for(glance.settle(), timeout=30)  # unbounded, it would wait for ever
        assert glance.handover().typed == "mpi"
        await _read_then_open(pilot, gates, None)
