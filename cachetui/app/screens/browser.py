"""The main screen: the query line over the body (package list, spec table, details, facets).

It routes between plain parts: the action table (`present/browse/browser_actions.py`: keys, words, when each acts,
the part that acts), the browsing state (`present/browse/browsing.py`: where the user is, pure transitions), the
body (`widgets/browser_body.py`: the panes' widths, focus and details) and, when `--want` names something, the
coverage view (`widgets/coverage_view.py`), and when `--plan` names an environment the plan view
(`widgets/plan_view.py`), which a `ContentSwitcher` bound to the screen's `view` shows in the specs' place. Its
keys are bound here, the one node every pane of every view reaches, and each is handed to the part its row names
(`action_route`); the screen acts itself on what spans the parts: which view shows, the question asked, the
dialogs it awaits. Events go into transitions; their effects and each answer flow down, one frozen state per
widget; messages come up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Input
from textual.worker import Worker, WorkerState

from cachetui.app.actions import ActionKeys, bindings, keys_shown
from cachetui.app.answers import Answers, Arrived
from cachetui.app.dialogs.flows import choose_columns, choose_tag, compare, show_help
from cachetui.app.requests import ExportRequested, ReloadRequested
from cachetui.app.screens.panes import WIDE_FROM
from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.facet_panel import FacetPanel
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.loading import Loading
from cachetui.app.widgets.package_list import PackageList
from cachetui.app.widgets.query_bar import QueryBar, QueryLine
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine, status_of
from cachetui.app.worker_failure import report_failure
from cachetui.core.load import Provenance
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query
from cachetui.core.spack.specquery import looks_like_spec
from cachetui.core.spack.targets import host
from cachetui.present.browse import browsing as go
from cachetui.present.browse.answer import Answer, View, compare_text, file_safe, rows_to_show
from cachetui.present.browse.browser_actions import ACTIONS, BODY, COVERAGE, PLAN, KeyContext
from cachetui.present.browse.browsing import Browsing, Effects
from cachetui.present.browse.glance import checking, glance_status
from cachetui.present.inert import inert
from cachetui.present.spec_table.table_layout import HIDDEN_AT_FIRST

if TYPE_CHECKING:  # the view, and coverage itself, load only when `--want` names something
    from cachetui.app.screens.glance import Handover
    from cachetui.app.widgets.coverage_view import CoverageView
    from cachetui.app.widgets.plan_view import PlanView
    from cachetui.core.load.glance import Glance
    from cachetui.core.model.wanted import WantedDag
    from cachetui.core.query.plan import RootPlan
    from cachetui.present.browse.plan_browsing import PlanAsked

SPEC_VIEW, COVERAGE_VIEW, PLAN_VIEW = "spec-view", "coverage", "plan"  # the views the switcher shows one of


class BrowserScreen(Screen[None]):
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]
    ACTIONS = ACTIONS
    BINDINGS = bindings(ACTIONS)

    # Every corpus set is a new load's (a reload's may read alike): never compared, which would compare its arrays.
    corpus: reactive[Corpus | None] = reactive(None, always_update=True)
    browsing: var[Browsing] = var(Browsing)
    hidden_columns: reactive[frozenset[str]] = reactive(HIDDEN_AT_FIRST)
    view: var[str] = var(SPEC_VIEW)  # which of the switcher's views shows (bound to it)

    def __init__(self) -> None:
        super().__init__()
        self._answers = Answers(self, lambda *delivered: self._deliver(*delivered))  # looked up at each delivery
        self._keys = ActionKeys(self.ACTIONS)
        self.provenance: Provenance | None = None  # of the corpus: set by the app with it
        self.wanted: WantedDag | None = None  # what `--want` named: the coverage view, in place of the specs
        self._to_coverage: tuple[tuple[go.Jumped, ...], bool] | None = None  # Backspace's way back from `n`
        self.planned: PlanAsked | None = None  # what `--plan` named: the plan view, in place of the specs
        self._to_plan: tuple[Browsing, int] | None = None  # Backspace's way back from the plan's `n`: where from
        self.news: str | None = None  # what the status line says of the sources' freshness (set by the app)
        self._reloaded = False  # the corpus on its way is a reload's: the question is kept
        self._keep: tuple[str, str] | None = None  # the binary (hash, tag) the cursor stays on after a reload
        self._first_answer = False  # the corpus's first answer is on its way: its package list is drawn first
        self.taking_over: tuple[Glance, Handover] | None = None  # set by the app before it mounts in a glance's place
        # Until the corpus is there after a glance: the glance's list shows, the status line says so and what the
        # check is at, and the package chosen last (on the glance or here) opens with the corpus (False: none).
        self._glanced: Glance | None = None
        self._checking: str | None = None
        self._opening: str | None | bool = False

    def want(self, wanted: WantedDag) -> None:
        """Before the screen is shown: what `--want` named, which it opens on (what the user asked about)."""
        self.wanted = wanted
        self.view = COVERAGE_VIEW

    def plan_for(self, asked: PlanAsked) -> None:
        """Before the screen is shown: what `--plan` named, which it opens on."""
        self.planned = asked
        self.view = PLAN_VIEW

    @property
    def coverage_shown(self) -> bool:
        return self.view == COVERAGE_VIEW

    @property
    def plan_shown(self) -> bool:
        return self.view == PLAN_VIEW

    @property
    def spec_query(self) -> Query:
        """The question asked (`applied_query` is the one the widgets show until its answer arrives)."""
        return self.browsing.query

    @property
    def applied_query(self) -> Query:
        return self.browsing.applied

    @property
    def facet_counts(self) -> dict[str, dict[str, int]]:
        """The facets' counts for the answer shown (the palette offers their values)."""
        return self.query_one(BrowserBody).facet_counts

    def compose(self) -> ComposeResult:
        yield Loading(id="loading")  # over either view while the corpus loads
        with ContentSwitcher(initial=self.view).data_bind(current=BrowserScreen.view):
            with Vertical(id=SPEC_VIEW):
                yield StatusLine(id="status")
                yield QueryBar(id="query")
                yield BrowserBody(id="body")
            if self.wanted is not None:
                from cachetui.app.widgets.coverage_view import CoverageView

                yield CoverageView(self.wanted, id=COVERAGE_VIEW)
            if self.planned is not None:
                from cachetui.app.widgets.plan_view import PlanView

                yield PlanView(self.planned, id=PLAN_VIEW)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.set_focus(self.query_one(PackageList).options)  # not the search box: a first `q` or `?` must act
        # A package search follows each key within its frame (QueryBar.Typed arrives a frame later).
        self.watch(self.query_one(QueryBar).input, "value", self._search_now, init=False)
        self.query_one(BrowserBody).search_line = self.query_one(QueryBar).input  # where `/` searches packages
        if self.wanted is not None:
            self.set_focus(self._coverage().tree_list)  # the wanted tree: what the user asked about
        if self.planned is not None:
            self.set_focus(self._plan().roots_list)  # the roots: what the user asked about
        if self.taking_over is not None:
            self.take_over(*self.taking_over)

    def take_over(self, glance: Glance, handover: Handover) -> None:
        """In the glance's place, before the corpus: the last reading's package list and count, said to be that,
        what was typed on the glance (the corpus's first answer answers it), the focus and the list's cursor where
        they were; a package chosen there opens once the corpus is here (`handed_over`)."""
        self._glanced, self._checking, self._opening = glance, handover.checking, handover.chosen
        self.query_one(BrowserBody).show_glance(glance)
        self._say_glance()
        self.query_one(Loading).display = False  # the status line says what the check is at: the rows stay put
        line = self.query_one(QueryBar).input
        line.value = handover.typed
        line.cursor_position = len(handover.typed)
        if handover.searching:
            # Typing goes on where it was: focused as Textual focuses a line, its text would be selected, and the
            # next key would replace it.
            line.select_on_focus = False
            self.set_focus(line)
            line.call_after_refresh(setattr, line, "select_on_focus", True)
        elif handover.at is not None:
            self.query_one(PackageList).point_at(handover.at)

    def _say_glance(self) -> None:
        if self._glanced is not None:
            status = self.query_one(StatusLine)
            status.status = replace(status.status, glance=glance_status(self._glanced, self._checking, self._opening))

    def handed_over(self) -> None:
        """The corpus is here: the package chosen last while it was read opens, if the corpus has it."""
        opening, self._opening, self._glanced = self._opening, False, None
        corpus = self.corpus
        if opening is False or corpus is None or not corpus.n_specs:  # nothing loaded: the failure is said
            return
        if opening is None or opening in corpus.package_index:
            self.open_package(opening if isinstance(opening, str) else None)
        else:
            self.notify(f"{inert(str(opening))} is not in the sources now.", severity="warning", markup=False)

    def _coverage(self) -> CoverageView:
        from cachetui.app.widgets.coverage_view import CoverageView  # imported by compose: a lookup

        return self.query_one(CoverageView)

    def _plan(self) -> PlanView:
        from cachetui.app.widgets.plan_view import PlanView  # imported by compose: a lookup

        return self.query_one(PlanView)

    def _part(self, target: str) -> Screen[None] | Widget:
        """The part a row names (`browser_actions.TARGETS`)."""
        if target == BODY:
            return self.query_one(BrowserBody)
        if target == PLAN:
            return self._plan()
        return self._coverage() if target == COVERAGE else self

    async def action_route(self, binding_id: str) -> None:
        """A key of the action table: the part its row names acts on it."""
        row = self._keys.row(binding_id)
        await self._part(row.target).run_action(row.action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide keys that cannot act now, so the footer only offers what works."""
        if not self.is_mounted:
            # Asked before it is composed: Textual checks a `screen.` key (Ctrl+C's copy) against the top screen,
            # which this is from the moment it is pushed, for keys still on their way to the screen it replaces.
            return False
        return self._keys.check(action, parameters, self.key_context(), typing=isinstance(self.focused, Input))

    def key_context(self) -> KeyContext:
        """What decides which keys act: the coverage view's node while it shows, else the specs' (the body's)."""
        if self.coverage_shown:
            return self._coverage().key_context()
        if self.plan_shown:
            return self._plan().key_context()
        return replace(self.query_one(BrowserBody).key_context(self.browsing), wanted=self.wanted is not None,
                       planned=self.planned is not None)

    def _refresh_keys(self) -> None:
        """Refresh the footer when what a key can do has changed (it recomposes every key)."""
        if self._keys.changed(self.key_context(), self.browsing.view.find):  # and whether the table's `s` sorts
            self.refresh_bindings()

    def _go(self, step: tuple[Browsing, Effects]) -> None:
        state, effects = step
        self.query_one(QueryBar).take(effects)
        self.query_one(BrowserBody).list_follows(state.line)
        self.browsing = state
        if effects.ask:
            self._push_facets()  # the value chosen shows at once; its counts come with the answer
            self._refresh_results()
        if effects.select is not None:
            self.query_one(SpecTable).select_spec(effects.select)
        if effects.focus_table:
            self.set_focus(self.query_one(SpecTable))
        if effects.notify is not None:
            self.notify(effects.notify, severity="warning" if effects.warning else "information", markup=False)

    def _use_text(self, text: str) -> bool:
        """The query line changed: a package search, or a spec query (False when it cannot be used)."""
        self._go(go.typed(self.browsing, text, self.corpus))
        return self.query_one(QueryBar).problem is None and (self.corpus is not None or not looks_like_spec(text))

    def _search_now(self, text: str) -> None:
        """A package search follows each key within its frame (QueryBar.Typed does again, a no-op)."""
        if not self.query_one(QueryBar).showing and not looks_like_spec(text):
            self._use_text(text)

    @on(QueryBar.Typed)
    def _query_typed(self, event: QueryBar.Typed) -> None:
        self._use_text(event.text)

    @on(QueryBar.Submitted)
    def _query_submitted(self, event: QueryBar.Submitted) -> None:
        if not looks_like_spec(event.text):
            self.query_one(PackageList).choose_highlighted()
        elif self._use_text(event.text):
            self._go(go.submitted(self.browsing, event.text))

    @on(QueryLine.Back)
    async def _query_back(self) -> None:
        await self.action_route("browser.back")  # where Escape goes from anywhere else

    @on(QueryBar.Left)
    def _query_left(self, event: QueryBar.Left) -> None:
        to_table = looks_like_spec(event.text)
        self.set_focus(self.query_one(SpecTable) if to_table else self.query_one(PackageList).options)

    @on(PackageList.Chosen)
    def _package_chosen(self, event: PackageList.Chosen) -> None:
        if self.corpus is None and self._glanced is not None:  # the glance's list: opened once the corpus is here
            self._opening = event.package
            self._say_glance()
            return
        self.open_package(event.package)

    def open_package(self, package: str | None) -> None:
        self._go(go.package_opened(self.browsing, package))

    @on(DetailPane.Jump)
    def _jump(self, event: DetailPane.Jump) -> None:
        """A binary shown from the details, or from the coverage view (`n`: to the specs, on it); Backspace goes
        back to where it came from (from `n`: the coverage view, on the same node, the table as it was)."""
        from_coverage, before = self.coverage_shown, self.browsing.jumps
        if from_coverage:
            self.action_coverage()
        if self.corpus is not None:
            self._go(go.jumped(self.browsing, self.corpus, event.spec, self.query_one(SpecTable).current_spec,
                               self.query_one(QueryBar).text, self.query_one(PackageList).lists))
        if from_coverage:  # the jumps as `n` left them, and whether it added one
            self._to_coverage = (self.browsing.jumps, self.browsing.jumps != before)

    def action_jump_back(self) -> None:
        """Backspace: back to the spec a jump came from, or to the coverage view once back to where `n` left; from
        a plan root's candidates, to the plan view on that root, the table as it was before."""
        if self._to_plan is not None and self._to_plan_here():
            (before, position), self._to_plan = self._to_plan, None
            self._go(go.among_left(self.browsing, before))
            self.action_plan()
            self._plan().show_root(position)
            return
        if self._to_coverage is not None and self._to_coverage[0] == self.browsing.jumps:
            added, self._to_coverage = self._to_coverage[1], None
            if added:
                self._go(go.jumped_back(self.browsing))
            self.action_coverage()
            return
        self._go(go.jumped_back(self.browsing))

    def _to_plan_here(self) -> bool:
        """Whether the table shows the candidates the plan's `n` opened, no jump made from them."""
        return self._to_plan is not None and self.browsing.view.among is not None and \
            self.browsing.jumps == self._to_plan[0].jumps

    def on_plan_view_candidates(self, event: PlanView.Candidates) -> None:  # by name: imported only when used
        """The plan's `n`: exactly the root's candidates in the spec table, the chosen binary under the cursor;
        Backspace comes back to the plan on the same root."""
        root = event.root
        before = self._to_plan[0] if self._to_plan is not None and self._to_plan_here() else self.browsing
        self._to_plan = (before, event.position)
        self.action_plan()
        self._go(go.among_shown(self.browsing, (candidates_label(root), root.candidate_indices), root.package,
                                root.binary.index if root.binary is not None else None))

    def toggle_filter(self, facet: str, value: str) -> None:
        self._go(go.facet_toggled(self.browsing, facet, value))

    @on(FacetPanel.Toggled)
    def _facet_toggled(self, event: FacetPanel.Toggled) -> None:
        self.toggle_filter(event.facet, event.value)

    def action_problems(self) -> None:
        from cachetui.app.dialogs.problems import ProblemsScreen  # the dialogs load when first asked for

        if self.corpus is not None:
            self.app.push_screen(ProblemsScreen(self.corpus.report, self.query_one(QueryBar).problem))

    def action_clear_filters(self) -> None:
        self._go(go.narrowed(self.browsing, self.spec_query.cleared()))

    def action_toggle_runs_on(self) -> None:
        self._go(go.runs_on_toggled(self.browsing, host))

    def action_toggle_find_view(self) -> None:
        self._go(go.viewed(self.browsing, replace(self.browsing.view, find=not self.browsing.view.find)))

    def action_export(self) -> None:
        """The table as shown now: its rows are taken at the key, so a later answer cannot swap them."""
        data = self.query_one(SpecTable).data
        if data is None or self.query_one(StatusLine).status.busy:
            self.notify("The table is being updated; export once it shows the answer.", markup=False)
            return
        self.post_message(ExportRequested(f"cachetui-{file_safe(self.spec_query.package or 'all')}.csv", data))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_compare(self) -> None:
        def prepare(view: View | None) -> None:
            question = None if view is None else go.viewed(self.browsing, view)[0]
            self._answers.prepare(self.corpus, question, self.query_one(SpecTable).hidden)

        self._go(go.viewed(self.browsing, await compare(self.app, self.corpus, self.browsing.view,
                                                        self.spec_query.package, prepare)))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_choose_tag(self) -> None:
        if (query := await choose_tag(self.app, self.corpus, self.spec_query)) is not None:
            self._go(go.narrowed(self.browsing, query))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_choose_columns(self) -> None:
        hidden = await choose_columns(self.app, self.hidden_columns, self.query_one(SpecTable).squeezed)
        if hidden is not None:
            self.hidden_columns = hidden

    def action_help(self) -> None:
        show_help(self, self._panes())

    def _panes(self) -> Sequence[Widget]:
        """The panes of the view that shows, as the help lists them."""
        if self.plan_shown:
            return self._plan().panes
        return self._coverage().panes if self.coverage_shown else self.query_one(BrowserBody).panes

    def action_coverage(self) -> None:
        """`w`: the coverage of what `--want` named, or back to the specs."""
        self.view = SPEC_VIEW if self.coverage_shown else COVERAGE_VIEW
        self.set_focus(self._coverage().tree_list if self.coverage_shown else self.query_one(SpecTable))
        self.refresh_bindings()  # every key: the view that shows changed, not only what one can do

    def action_plan(self) -> None:
        """The plan of what `--plan` named, or back to the specs."""
        self.view = SPEC_VIEW if self.plan_shown else PLAN_VIEW
        self.set_focus(self._plan().roots_list if self.plan_shown else self.query_one(SpecTable))
        self.refresh_bindings()  # every key: the view that shows changed, not only what one can do

    def show_progress(self, done: int, total: int | None, what: str) -> None:
        if self._glanced is not None and self.corpus is None:  # the status line says it, over the glance's list
            self._checking = checking(done, total, what)
            self._say_glance()
            return
        self.query_one(Loading).show(done, total, what)

    def action_reload(self) -> None:
        """ctrl+r: the sources read again, shown in place (the app reads them), the cursor kept on its binary."""
        corpus, spec = self.corpus, self.query_one(SpecTable).current_spec
        keep = None
        if corpus is not None and spec is not None:
            keep = (corpus.hashes[spec], corpus.value("tag", int(corpus.single["tag"][spec])))
        self.post_message(ReloadRequested(keep))

    def say_news(self, news: str | None, fresh: bool = False) -> None:
        """What the status line says of the sources' freshness, from now on; `fresh`: the corpus's `new` facet has
        just been worked out, so the question is answered again (its counts then say what is new)."""
        self.news = news
        if fresh:
            self._answers.forget()
            self._refresh_results()
        status = self.query_one(StatusLine).status
        if not status.loading:  # the answer shown says it from now on; one on its way will say it too
            self.query_one(StatusLine).status = replace(status, news=news)

    def corpus_reloaded(self, corpus: Corpus, keep: tuple[str, str] | None) -> None:
        """The sources read again: the same question over `corpus`, the cursor on `keep`'s binary if still there."""
        self._reloaded, self._keep = True, keep
        self.corpus = corpus

    def watch_corpus(self, corpus: Corpus | None) -> None:
        if corpus is None:
            return
        self.add_class("-loaded")
        self._first_answer = not self._reloaded  # a reload keeps the table it has until its answer is whole
        self._prepare_lookups(corpus)
        self.query_one(BrowserBody).corpus_arrived(corpus)
        self.query_one(BrowserBody).provenance_follower.provenance_arrived_for(self.provenance)
        self._answers.forget()  # what answers over another corpus computed
        if self._reloaded:
            keep, self._reloaded, self._keep = self._keep, False, None
            self._to_coverage = self._to_plan = None  # both name the old corpus's specs
            spec = corpus.spec_with_hash(*keep) if keep is not None else None
            self._go(go.reloaded(self.browsing, corpus, spec))
        else:
            state, effects = go.corpus_arrived(replace(self.browsing, line=self.query_one(QueryBar).text), corpus)
            if state.query == Query():  # every spec: the list's counts are the packages' sizes, known now
                self.query_one(BrowserBody).show_sizes(corpus)
                self._push_status(corpus, state.query, corpus.n_specs, busy=True)
            self._go((state, effects))
        if self.wanted is not None:
            self._coverage().corpus_arrived(corpus)
        if self.planned is not None:
            self._plan().corpus_arrived(corpus)

    @work(thread=True, group="lookups", exclusive=True, name="prepare lookups", exit_on_error=False)
    def _prepare_lookups(self, corpus: Corpus) -> None:
        """The indexes a spec's details use, built beside the first frame (numpy's sorts leave the screen's thread
        free), not in the first details' own frame."""
        corpus.prepare_lookups()

    def watch_hidden_columns(self, hidden: frozenset[str]) -> None:
        self.query_one(SpecTable).hidden = hidden

    def _refresh_results(self) -> None:
        if self.corpus is not None and not self._answers.ask(self.corpus, self.browsing,
                                                             self.query_one(SpecTable).hidden):
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=True)

    def _deliver(self, query: Query, sort: tuple[str | None, bool], view: View, found: Answer) -> None:
        corpus = self.corpus
        if corpus is None or (query, sort, view) != (self.spec_query, self.browsing.sort, self.browsing.view):
            return  # a newer question is on its way
        if found.problem is not None or found.results is None:
            # Cannot be answered (a name not in the corpus): said where it was typed; the last answer stays.
            self._go(go.refused(self.browsing, found.problem or ""))
            self._push_question(corpus, self.applied_query)
            return
        if self._first_answer:  # a corpus's first answer: its package list and counts first, the rest a frame on
            self._first_answer = False
            rows = rows_to_show(corpus, found.results, sort, self._answers.recent)
            self.query_one(BrowserBody).show_counts(found.results, found.package_counts or {}, rows)
            self._push_status(corpus, query, len(rows.indices), busy=True)
            self.call_after_refresh(self._deliver, query, sort, view, found)
            return
        bar = self.query_one(QueryBar)
        bar.note = found.results.note
        state, effects = go.answered(self.browsing, query, bar.text, self.focused is bar.input)
        with self.app.batch_update():  # the widgets change together: never paint a half-updated screen
            rows = rows_to_show(corpus, found.results, sort, self._answers.recent)
            self.query_one(BrowserBody).show_answer(found.results, found.package_counts or {}, rows)
            self._go((state, effects))  # the line's problem, the cursor, the focus
            self._push_question(corpus, query)
            self._spec_highlighted()  # details and keys now, not a frame later with the table's message

    @on(Arrived)
    def _arrived(self, event: Arrived) -> None:
        if event.corpus is self.corpus:  # an answer over the corpus before a reload names other specs
            self._deliver(event.query, event.sort, event.view, event.found)

    def _push_question(self, corpus: Corpus, query: Query) -> None:
        """The status line and the facets say what the table shows: the specs answering `query`."""
        rows = self.query_one(SpecTable).data
        self._push_status(corpus, query, 0 if rows is None else len(rows.indices))
        self._push_facets()

    def _push_status(self, corpus: Corpus, query: Query, shown: int, busy: bool = False) -> None:
        """The status line: `shown` specs answering `query` (`busy`: the table is still being filled)."""
        problems_key = keys_shown(self.app, "browser.problems")
        compare = compare_text(corpus, self.browsing.view.compare)
        among = self.browsing.view.among
        status = status_of(corpus, query, shown, compare, problems_key, among[0] if among is not None else None,
                           self.news)
        self.query_one(StatusLine).status = replace(status, busy=True) if busy else status

    def _push_facets(self) -> None:
        comparing = self.browsing.view.compare is not None
        self.query_one(BrowserBody).show_facets(self.spec_query.active(), comparing=comparing)

    @on(SpecTable.Highlighted)
    def _spec_highlighted(self) -> None:
        self.query_one(BrowserBody).follow_cursor()  # where the cursor is now: keys held down queue older messages
        self._refresh_keys()

    def on_coverage_view_detail_shown(self) -> None:  # by name: the coverage view is imported only when used
        self._refresh_keys()

    def on_plan_view_detail_shown(self) -> None:  # by name: the plan view is imported only when used
        self._refresh_keys()

    @on(SpecTable.SortRequested)
    def _sort_requested(self, event: SpecTable.SortRequested) -> None:
        self._go(go.sorted_by(self.browsing, event.column, event.descending))

    def sort_by(self, column: str) -> None:
        """Sort by `column`; asking again for the same column reverses it."""
        self._go(go.sorted_by(self.browsing, column))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A worker of this screen failed: say so (its state changes do not reach the app)."""
        if event.state is not WorkerState.ERROR:
            return
        report_failure(self, event.worker)
        if event.worker.group == "results":  # never leave "updating…" up for an answer that will not come
            self.query_one(StatusLine).status = replace(self.query_one(StatusLine).status, busy=False)


def candidates_label(root: RootPlan) -> str:
    """The status line's words for a plan root's candidates: `candidates for py-mpi4py (plan)`."""
    return f"candidates for {root.spec} (plan)"
