"""The cachetui Textual application: loads a corpus in a worker and hosts the browser."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from cachetui.app.actions import bindings_of, normalized
from cachetui.app.clipboard import copy_to_local_clipboard
from cachetui.app.requests import CopyMenuRequested, CopyRequested, ExportRequested, ReloadRequested
from cachetui.app.styles import stylesheet
from cachetui.app.worker_failure import report_failure
from cachetui.core.load.cache_names import default_cache_dir
from cachetui.core.load.glance import Glance, glance_name, read_glance
from cachetui.core.load.options import LoadOptions
from cachetui.present.inert import inert

# What the first frame does not draw is imported when first needed: on a warm start the glance is drawn first
# (`screens/glance.py`), and the browser, the loader and numpy are imported by the load's worker after it.
if TYPE_CHECKING:
    from textual.command import Provider

    from cachetui.app.screens.browser import BrowserScreen
    from cachetui.app.screens.glance import GlanceScreen
    from cachetui.core.load import CyclicGcPause, Looks, Provenance
    from cachetui.core.load.later_dates import Dated, LaterDates
    from cachetui.core.model.corpus import Corpus, Document, SpecView
    from cachetui.core.model.records import MirrorOrigin
    from cachetui.core.model.wanted import WantedDag
    from cachetui.present.browse.plan_browsing import PlanAsked
    from cachetui.present.config.settings import UserSettings
    from cachetui.present.spec_table.table_cells import SpecRows


class PlaceBrowser(Message):
    """The browser is imported (or the load is done first): it takes the glance's place, from the app's queue."""


def _package_commands() -> type[Provider]:
    from cachetui.app.commands import PackageCommands

    return PackageCommands


def _facet_commands() -> type[Provider]:
    from cachetui.app.commands import FacetCommands

    return FacetCommands


def _action_commands() -> type[Provider]:
    from cachetui.app.commands import ActionCommands

    return ActionCommands


class CacheTuiApp(App[None]):
    TITLE = "cachetui"
    CSS_PATH = [stylesheet("app.tcss")]
    BINDINGS = bindings_of("app")
    COMMANDS = App.COMMANDS | {_package_commands, _facet_commands, _action_commands}  # imported when opened

    def __init__(
        self,
        paths: Sequence[str | os.PathLike[str]],
        load: LoadOptions = LoadOptions(),  # noqa: B008 -- frozen: one shared default is safe
        *,
        system_clipboard: bool = True,
        settings: UserSettings | None = None,
        wanted: WantedDag | None = None,
        planned: PlanAsked | None = None,
        gc_pause: CyclicGcPause | None = None,
    ) -> None:
        super().__init__()
        self._gc_pause = gc_pause  # the cyclic collector's pause since the start: ended once the first frame is out
        self.paths = list(paths)
        self.load_options = load
        self.system_clipboard = system_clipboard
        self.wanted = wanted  # what `--want` named: the browser opens on its coverage
        self.planned = planned  # what `--plan` named: the browser opens on its plan
        self._browser: BrowserScreen | None = None  # made at start, or once the corpus is there after a glance
        # A warm start of the plain browser draws the last reading first, while the sources are checked.
        self._glance = self._glance_kept() if wanted is None and planned is None else None
        self._glance_screen: GlanceScreen | None = None  # drawn first, until the browser takes its place
        self.trusted_keys: frozenset[str] | None = None  # the keys the user's Spack trusts; None: cannot tell
        self._keys_asked = False
        self._browser_placed = asyncio.Event()  # the browser is mounted (at start, or in the glance's place)
        self._progress: tuple[int, int | None, str] | None = None  # what the load said last: said again once placed
        self._looks: Looks | None = None  # this session's looks at the sources (what is new since the last one)
        self._reloading = False
        self.settings = settings  # the user's config.toml; None: Textual's and cachetui's defaults, nothing saved
        self.keymap: Mapping[str, str] = {}  # what it set: Textual keeps its own copy private (`actions.keymap`)
        if settings is not None:
            from cachetui.present.config.settings_declared import KEYMAP  # read by the CLI already: a lookup

            keymap = settings.settings[KEYMAP]
            self.set_keymap(dict(keymap))

    @property
    def browser(self) -> BrowserScreen:
        """The browser screen: there from the start, or once the corpus is read after a glance."""
        if self._browser is None:
            raise LookupError("the browser is not there yet: the glance is shown while the sources are checked")
        return self._browser

    def _glance_kept(self) -> Glance | None:
        """What the last load of these sources kept for the first frame (`glance`), when a warm start may use it:
        only this user's own session (a served visitor's sources are labelled, and shared) with the warm cache."""
        if not self.load_options.use_cache or self.served:
            return None
        return read_glance(default_cache_dir(), glance_name([str(p) for p in self.paths],
                                                            self.load_options.max_file_bytes))

    def _new_browser(self) -> BrowserScreen:
        from cachetui.app.screens.browser import BrowserScreen

        browser = BrowserScreen()
        if self.wanted is not None:
            browser.want(self.wanted)
        if self.planned is not None:
            browser.plan_for(self.planned)
        self._browser = browser
        return browser

    def set_keymap(self, keymap: Mapping[str, str]) -> None:
        super().set_keymap(keymap)
        self.keymap = normalized(keymap)

    def update_keymap(self, keymap: Mapping[str, str]) -> None:
        super().update_keymap(keymap)
        self.keymap = {**self.keymap, **normalized(keymap)}

    async def on_mount(self) -> None:
        settings = self.settings
        if settings is not None:
            from cachetui.present.config.settings_declared import THEME

            theme = settings.settings[THEME]
            if theme is not None:
                self.theme = theme
        self.watch(self, "theme", self._save_theme, init=False)  # only what is chosen from now on is saved
        if self._glance is not None:
            from cachetui.app.screens.glance import GlanceScreen

            self._glance_screen = GlanceScreen(self._glance)
            await self.push_screen(self._glance_screen)
            # After the glance's frame (they would hold the GIL it is drawn with): the load, and beside it the browser's
            # import (the load's stats wait on the disk, not the GIL); the browser is composed as the load goes on.
            self.call_after_refresh(self.load_documents)
            self.call_after_refresh(self._import_browser)
        else:
            mounted = self.push_screen(self._new_browser())
            self.load_documents()  # reading starts now; what it reads is shown once the screen is there
            await mounted
            self._placed()
        if self._gc_pause is not None:
            self.call_after_refresh(self._gc_pause.end)
        if settings is not None and settings.bad:
            lines = "\n".join(inert(p.described()) for p in settings.problems()[:3])
            self.notify(f"{lines}\n\nThe defaults are used instead; the problems screen lists them.",
                        title="Bad entries in your settings", severity="warning", markup=False, timeout=15)

    def _placed(self) -> None:
        """The browser is mounted: the settings' columns go to its table, corpora and progress to it from now on
        (what the load said last is said again)."""
        if self.settings is not None:
            from cachetui.present.config.settings_declared import HIDDEN_COLUMNS

            self.browser.hidden_columns = self.settings.settings[HIDDEN_COLUMNS]
        self._browser_placed.set()
        if self._progress is not None and self.browser.corpus is None:
            self.browser.show_progress(*self._progress)

    @on(PlaceBrowser)
    async def _place_browser_asked(self) -> None:
        if self._browser is None:
            await self._place_browser()

    async def _place_browser(self) -> None:
        """After a glance, the browser in its place, with the last reading's list and what the user did on it.

        Run by the app's own queue only (`PlaceBrowser`): keys typed meanwhile wait there, and reach the browser
        once it is mounted; none is handed to a glance that is going away.
        """
        glance, self._glance_screen = self._glance_screen, None
        assert glance is not None  # the browser is made at start unless a glance is drawn first
        browser = self._new_browser()
        while self.screen_stack[-1] is not glance:  # the palette opened on it: closed
            await self.pop_screen()
        await glance.settle()
        # Taken over as the browser mounts: no frame of it shows without the glance's list.
        browser.taking_over = (glance.glance, glance.handover())
        await self.switch_screen(browser)
        self._placed()

    async def _browser_wanted(self) -> bool:
        """For the load's worker: the browser mounted, placed by the app's queue if the import has not placed it.
        False: the app has closed, and there is nothing to show the corpus in (`on_unmount` ends the wait)."""
        if not self._browser_placed.is_set():
            self.post_message(PlaceBrowser())
        await self._browser_placed.wait()
        return self.is_running

    def on_unmount(self) -> None:
        # A load still reading when the app closed waits for the browser on this loop, which will never place it;
        # the process, which waits for its threads, would never leave.
        self._browser_placed.set()

    def get_key_display(self, binding: Binding) -> str:
        """A key as the footer, the help and the palette show it, inert: a key's name can come from the user's
        keymap, and Textual shows a name it does not know as it is written."""
        return inert(super().get_key_display(binding))

    def _save_theme(self, theme: str) -> None:
        """A theme chosen in the palette is kept in config.toml: only its `theme` line changes."""
        if self.settings is None:
            return
        from cachetui.present.config.settings_file import ThemeNotSaved, save_theme

        try:
            save_theme(self.settings.path, theme)
        except ThemeNotSaved as exc:
            self.notify(inert(f"Not saved in {self.settings.path}: {exc}"), title=inert(f"Theme {theme}"),
                        severity="warning", markup=False)
        else:
            self.notify(inert(f"Saved in {self.settings.path}"), title=inert(f"Theme {theme}"), markup=False)

    @work(thread=True, exclusive=True, group="load", name="load documents", exit_on_error=False)
    def load_documents(self, keep: tuple[str, str] | None = None, *, again: bool = False) -> Corpus:
        """Read the sources (`again`: a reload, shown in place with the cursor on `keep`'s binary if still there)."""
        def progress(done: int, total: int | None, what: str) -> None:
            if not again:  # a reload keeps the sources shown: the status line says it reads them
                self.call_from_thread(self._show_progress, done, total, what)

        from cachetui.core.load import load_corpus, load_dating_later
        from cachetui.present.browse.news import dating

        before = self.browser.corpus if again else None
        if self.served:  # visitors share the cache: a load writes it whole, with its dates, as the CLI's does
            corpus, later = load_corpus(self.paths, self.load_options, progress=progress), None
        else:  # a mirror read now is dated after the first frame, not beside its reading (`later_dates`)
            corpus, later = load_dating_later(self.paths, self.load_options, progress=progress)
        corpus = self.presented(self._with_settings_problems(corpus))
        news, fresh = self._news(corpus, before) if again else (None, False)
        # The browser, once mounted (a source read before it is, an empty or tiny one, waits for it); after a glance,
        # put in its place now if its import has not done so. Awaited on the screen's thread (Textual awaits a
        # coroutine's result; mypy cannot pick its type variable).
        if not self.call_from_thread(self._browser_wanted):  # type: ignore[arg-type]
            return corpus  # the app has closed
        self.call_from_thread(self._show_corpus, corpus, dating(news) if later else news, keep, again)
        if not again:  # what is new is looked up after the first frame is on its way: it does not wait for it
            news, fresh = self._news(corpus, None)
            self.call_from_thread(self._news_arrived, corpus, dating(news) if later else news, fresh)
        if later is not None:
            self._date_later(corpus, later, news)
        return corpus

    @work(thread=True, exclusive=True, group="browser import", name="import the browser", exit_on_error=False)
    def _import_browser(self) -> None:
        import cachetui.app.screens.browser  # noqa: F401

        self.post_message(PlaceBrowser())

    def _show_progress(self, done: int, total: int | None, what: str) -> None:
        """To the browser once it is mounted (it may be composing in the glance's place), else to the glance."""
        self._progress = (done, total, what)
        if self._browser_placed.is_set():
            self.browser.show_progress(done, total, what)
        elif self._glance_screen is not None:
            self._glance_screen.show_progress(done, total, what)

    def _date_later(self, corpus: Corpus, later: LaterDates, news: str | None) -> None:
        """The push dates the load left (read in this worker: a large mirror's walk in a process of its own), put
        in on the screen's thread, then the warm cache file written again with them. A newer load (a reload), or
        quitting, cancels this one (and its walk): a reload's corpus has its own."""
        worker = get_current_worker()
        dated = later.read(corpus, lambda: worker.is_cancelled)
        if dated is None or worker.is_cancelled or not self.call_from_thread(self._dates_arrived, corpus, later,
                                                                             dated, news):
            return
        later.store(corpus, dated)

    def _dates_arrived(self, corpus: Corpus, later: LaterDates, dated: Dated, news: str | None) -> bool:
        if self.browser.corpus is not corpus:
            return False
        later.apply(corpus, dated)
        self.browser.say_news(news, fresh=True)  # the question asked again: the Pushed facet's counts are in
        return True

    def _news(self, corpus: Corpus, before: Corpus | None) -> tuple[str | None, bool]:
        """What is new since the last look (a look is taken now: the corpus's `new` facet says it), what a reload
        changed, and whether anything is new. Nothing is called new without the warm cache (where looks are kept)
        or in a served session (its visitors share one cache)."""
        from cachetui.core.load import Looks, binaries_changed
        from cachetui.present.browse.news import news_text

        new = None
        if self.load_options.use_cache and not self.served:
            if self._looks is None:
                self._looks = Looks(default_cache_dir())
            new = self._looks.take(corpus, time.time())
        changed = binaries_changed(before, corpus) if before is not None else None
        return news_text(new, changed), new is not None and new.binaries > 0

    def _news_arrived(self, corpus: Corpus, news: str | None, fresh: bool) -> None:
        if self.browser.corpus is corpus:
            self.browser.say_news(news, fresh)

    def _show_corpus(self, corpus: Corpus, news: str | None = None, keep: tuple[str, str] | None = None,
                     again: bool = False) -> None:
        self.browser.provenance = self.provenance_of(corpus)  # first: the details fetch through it
        self.browser.news = news
        if again:
            self.browser.corpus_reloaded(corpus, keep)
            self._reloading = False  # after: a failure showing it is the reload's, said as such (`_worker_failed`)
        else:
            self.browser.corpus = corpus
            self.browser.handed_over()  # what the glance's user chose, now that the corpus is there
        if not self.served and not self._keys_asked:  # a visitor's Spack is not the server's: not told
            self._keys_asked = True  # after the first frame: gpg's run competes with nothing on screen
            self._read_trusted_keys()

    @on(ReloadRequested)
    def _reload_requested(self, event: ReloadRequested) -> None:
        if self._browser is None or self._browser.corpus is None:
            return
        if self._reloading:
            self.notify("Already reading the sources again.", markup=False)
            return
        from cachetui.present.browse.news import RELOADING

        self._reloading = True
        self.browser.say_news(RELOADING)
        self.load_documents(event.keep, again=True)

    @work(thread=True, exclusive=True, group="trusted-keys", name="trusted keys", exit_on_error=False)
    def _read_trusted_keys(self) -> None:
        """Once per run (it runs gpg, on a private copy of Spack's GnuPG home): the copy menu asks it."""
        from cachetui.core.load import trusted_fingerprints

        trusted = trusted_fingerprints()
        self.call_from_thread(setattr, self, "trusted_keys", trusted)

    @on(Worker.StateChanged)
    async def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        message = report_failure(self, event.worker)
        if event.worker.group == "load" and self._reloading:  # the sources shown stay; the failure is said
            self._reloading = False
            self.browser.say_news("reload failed")
        if event.worker.group == "load" and (self._browser is None or self._browser.corpus is None):
            # Never leave "Loading…" (or the glance) up forever: an empty corpus whose report says what went wrong.
            from cachetui.core.model.build import build_corpus
            from cachetui.core.model.problems import LoadReport, Problem

            report = LoadReport(problems=[Problem("(loading)", message)])
            if self._browser is None:
                await self._place_browser()
            self._show_corpus(self.presented(self._with_settings_problems(build_corpus([], report))))

    def _with_settings_problems(self, corpus: Corpus) -> Corpus:
        """The settings file's bad entries, then WANTED's warnings, first among the problems (the status line
        counts them, `p` lists them)."""
        ours = self.settings.problems() if self.settings is not None else []
        ours += self.wanted.problems if self.wanted is not None else []
        if not ours:
            return corpus
        from cachetui.core.model.problems import LoadReport

        report = corpus.report
        problems = ours + report.problems
        return replace(corpus, report=LoadReport(report.files_seen, report.indexes_read, problems))

    # -- what screens ask for -----------------------------------------------------------------------------

    @on(CopyRequested)
    def _copy_requested(self, event: CopyRequested) -> None:
        self.copy_text(event.text, event.what)

    @on(CopyMenuRequested)
    def _copy_menu_requested(self, event: CopyMenuRequested) -> None:
        from cachetui.present.details.provenance_pane import signer_trusted

        self._copy_menu(event.spec, event.corpus, signer_trusted(event.signature, self.trusted_keys))

    @work(group="copy-menu", exclusive=True, exit_on_error=False)
    async def _copy_menu(self, spec: SpecView, corpus: Corpus, keys_trusted: bool) -> None:
        from cachetui.app.dialogs.copy_menu import CopyMenu, spec_copy_choices

        document = corpus.documents[corpus.document_of[spec.index]]
        choices = spec_copy_choices(spec, self.mirror_origin(document, corpus), keys_trusted)
        choice = await self.push_screen_wait(CopyMenu(choices))
        if choice is not None:
            what, text = choice
            self.copy_text(text, what)

    @on(ExportRequested)
    def _export_requested(self, event: ExportRequested) -> None:
        self.export_rows(event.suggested, event.rows)

    # -- hooks a served session (`cachetui.app.served`) overrides ------------------------------------------

    served = False  # True: a web visitor's session; export downloads in the browser, nothing is written here

    def presented(self, corpus: Corpus) -> Corpus:
        """The corpus as this app's user may see it (all of it, in a terminal)."""
        return corpus

    def provenance_of(self, corpus: Corpus) -> Provenance:
        """Where the details read who signed each binary of `corpus`."""
        from cachetui.core.load import Provenance

        return Provenance(corpus)

    def mirror_origin(self, document: Document, corpus: Corpus) -> MirrorOrigin | None:
        """The mirror the copy menu names for a binary of `document`."""
        from cachetui.core.query.spack_commands import mirror_of

        return mirror_of(document, corpus.origins)

    def export_rows(self, suggested: str, rows: SpecRows) -> None:
        """`e`: ask for a path beside the inputs (never into them) and write the rows there."""
        self._export(suggested, rows)

    @work(group="export-dialog", exclusive=True, exit_on_error=False)
    async def _export(self, suggested: str, rows: SpecRows) -> None:
        from cachetui.app.export_flow import export_flow
        from cachetui.core.load import local_input

        roots = [root for root in (local_input(os.fspath(path)) for path in self.paths) if root is not None]
        await export_flow(self, suggested, rows, roots)

    def copy_text(self, text: str, what: str) -> None:
        """Copy through OSC 52 at once (and the local clipboard, off the UI thread); say what was copied."""
        self.copy_to_clipboard(text)
        self.notify(inert(text), title=inert(f"Copied {what}"), markup=False)
        if self.system_clipboard:
            self._copy_locally(text)

    @work(thread=True, group="clipboard", name="local clipboard", exit_on_error=False)
    def _copy_locally(self, text: str) -> None:
        copy_to_local_clipboard(text)
