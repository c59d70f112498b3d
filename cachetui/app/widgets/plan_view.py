"""`--plan ENV`: the environment's roots, each with the binary that can serve it, the status facet, and the details.

One frozen `PlanBrowsing` (present/browse/plan_browsing.py) comes down from `plan()`, worked out in a thread once
the corpus loads (the view says it is planning meanwhile); the facet, the roots and the details each get their
part of it. Each is a Line-API list, a line cut to its pane ending in `…`. What `plan()` did not evaluate is listed
under the roots, never dropped; what a plan does not model is the view's last line. Its keys are rows of the
browser's action table naming it (`n`: the root's candidates in the spec table, a `PlanView.Candidates`; `c`: its
copy menu), bound on the screen, which shows it in the specs' place. What is copied goes up to the app as any copy
does (`CopyRequested`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from textwrap import wrap

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from cachetui.app.actions import keys_shown
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.requests import CopyRequested
from cachetui.app.widgets.cut_lines import CutLine, CutRows
from cachetui.app.widgets.pick_list import PickList
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.plan import NOT_MODELLED, STATUSES, RootPlan, plan
from cachetui.present.browse.browser_actions import KeyContext
from cachetui.present.browse.plan_browsing import (
    COLOURS,
    FACET_TITLE,
    MARKS,
    MEANINGS,
    PlanAsked,
    PlanBrowsing,
    planned,
    status_toggled,
)
from cachetui.present.details.plan_detail import LABEL, DetailLine, plan_detail, root_copy_choices
from cachetui.present.format import counted, problems_said
from cachetui.present.inert import inert

PLANNING_SAID = "the plan is worked out once the sources are loaded"
STYLES = {"heading": "bold", "dim": "dim", "bad": "yellow", "hash": "cyan", "": ""}


class PlanFacet(PickList):
    """The status facet: each status, its mark and how many roots have it; Enter narrows the list."""


class PlanRoots(PickList):
    """The roots, each with its status mark and its spec as written."""


class PlanNotes(PickList):
    """What the plan did not evaluate, one line each (shown only when there is any)."""


class PlanDetail(PickList):
    """The root under the cursor: its binary and closure, or why it is to build."""

    def on_resize(self) -> None:
        view = next((node for node in self.ancestors if isinstance(node, PlanView)), None)
        if view is not None and self.screen.focused is not view.query_one(PlanNotes):
            view.follow_root()
        super().on_resize()


class PlanLine(CutLine):
    """One line of the view."""


def root_row(root: RootPlan) -> Text:
    """`✓ cached    py-mpi4py@3.1: …`: the mark (the legend), the status, the root as written (inert)."""
    text = Text.assemble((f"{MARKS[root.status]} ", f"bold {COLOURS[root.status]}"), (f"{root.status:<9}", "dim"),
                         (inert(root.spec), "bold"))
    if root.binary is not None:
        text.append(f"  /{inert(root.binary.hash)[:7]}", "dim")
    return text


def facet_row(state: PlanBrowsing, status: str) -> Text:
    """`✓ ✗ build     2  no binary can serve it`: chosen or not, the mark, the count, what it means."""
    return Text.assemble(("✓ " if status in state.chosen else "  ", "bold"), (MARKS[status], f"bold {COLOURS[status]}"),
                         f" {status:<9}", (f"{state.counts[status]:>5}", "bold"), (f"  {MEANINGS[status]}", "dim"))


def detail_rows(root: RootPlan | None, candidates_key: str = "n", width: int = 0) -> list[Text]:
    """The root's lines; with a `width`, a value longer than the pane goes on under its label (a reason that
    excludes a binary is read whole, not cut)."""
    if root is None:
        return [Text("No root selected.", style="dim")]
    rows = [Text.assemble((f"{MARKS[root.status]} {root.status}", f"bold {COLOURS[root.status]}"))]
    for line in plan_detail(root, candidates_key):
        rows += _detail_texts(line, width)
    return rows


def _detail_texts(line: DetailLine, width: int) -> list[Text]:
    style = STYLES.get(line.style, "")
    room = width - LABEL
    if room < 20 or len(line.value) <= room:
        return [Text.assemble((line.label.ljust(LABEL), "bold"), (line.value, style))]
    indent = len(line.value) - len(line.value.lstrip(" "))
    parts = wrap(line.value, room, subsequent_indent=" " * (indent + 2), drop_whitespace=False) or [line.value]
    return [Text.assemble(((line.label if i == 0 else "").ljust(LABEL), "bold"), (part.rstrip(), style))
            for i, part in enumerate(parts)]


def notes_line(notes: tuple[str, ...]) -> Text:
    """`⚠ 2 things not evaluated (listed under the roots)`."""
    if not notes:
        return Text("everything in the environment was evaluated", style="dim")
    return Text.assemble((f"⚠ {counted(len(notes), 'thing')} not evaluated", "yellow"),
                         (" (listed under the roots): ", "dim"), inert(notes[0]))


class PlanView(Vertical):
    """The plan view: its summary and notes lines, the facet, roots and notes on the left, the details on the right,
    what a plan does not model at the foot."""

    state: reactive[PlanBrowsing] = reactive(PlanBrowsing, always_update=True)

    class DetailShown(Message):
        """Another root (or none) is under the cursor: what `c` and `n` can do may have changed."""

    @dataclass
    class Candidates(Message):
        """`n`: the root's candidates in the spec table, the chosen binary selected."""

        root: RootPlan
        position: int  # the root's place in the plan (Backspace comes back to it)

    def __init__(self, asked: PlanAsked, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.asked = asked
        self.corpus: Corpus | None = None
        self.set_reactive(PlanView.state, PlanBrowsing(asked.label))

    def compose(self) -> ComposeResult:
        yield PlanLine(id="plan-status")
        yield PlanLine(id="plan-notes-line")
        with Horizontal(id="plan-main"):
            with Vertical(id="plan-left"):
                yield PlanFacet(id="plan-facet")
                yield PlanRoots(id="plan-roots")
                yield PlanNotes(id="plan-notes")
            yield PlanDetail(id="plan-detail")
        yield PlanLine(id="plan-footnote")

    def on_mount(self) -> None:
        only = keys_shown(self.app, "pick.select")
        self.query_one(PlanFacet).border_title = Text(f"{FACET_TITLE} ({inert(only)}: only these)")
        self.query_one(PlanDetail).border_title = "Root and its binary"
        self.query_one(PlanNotes).border_title = "Not evaluated"
        self.query_one("#plan-footnote", PlanLine).said = Text(NOT_MODELLED[0].upper() + NOT_MODELLED[1:] + ".",
                                                               style="dim")
        self.watch(self.query_one(PlanRoots), "cursor", self._follow_cursor, init=False)
        self.watch(self.query_one(PlanNotes), "cursor", self._show_note, init=False)
        self.watch_state(self.state)

    def corpus_arrived(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._plan(corpus)

    @work(thread=True, exclusive=True, group="plan", name="plan", exit_on_error=False)
    def _plan(self, corpus: Corpus) -> None:
        found = plan(corpus, self.asked.environment, self.asked.arch)  # the one rule `cachetui plan` prints
        self.app.call_from_thread(lambda: setattr(self, "state", planned(self.state, found)))

    def watch_state(self, state: PlanBrowsing) -> None:
        self.query_one("#plan-status", PlanLine).said = self._status_line(state)
        notes = state.plan.notes if state.plan is not None else ()
        said = notes_line(notes) if state.plan is not None else Text(PLANNING_SAID, style="dim")
        if self.asked.sources_said:  # with no SOURCE named: the environment's mirrors were read
            said.append(f"  │  {inert(self.asked.sources_said)}", "dim")
        self.query_one("#plan-notes-line", PlanLine).said = said
        facet = self.query_one(PlanFacet)
        facet.source = CutRows([facet_row(state, status) for status in STATUSES], facet.cursor)
        roots = self.query_one(PlanRoots)
        before = roots.source
        position = before.positions[roots.cursor] if isinstance(before, RootRows) and \
            0 <= roots.cursor < len(before.positions) else None
        roots.border_title = self._roots_title(state)
        roots.source = RootRows([root_row(state.plan.roots[i]) for i in state.shown] if state.plan else [],
                                state.row_of(position, roots.cursor), list(state.shown))
        notes_list = self.query_one(PlanNotes)
        notes_list.display = bool(notes)
        notes_list.source = CutRows([Text(inert(note)) for note in notes])
        self._follow_cursor()

    def _roots_title(self, state: PlanBrowsing) -> Text:
        """`Roots, only build: spack.yaml`: the facet's choice first, so a narrow pane still shows it."""
        text = Text("Roots")
        chosen = ", ".join(status for status in STATUSES if status in state.chosen)
        if chosen:
            text.append(f", only {chosen}", "bold")
        text.append(inert(f": {state.label}"))
        return text

    def _status_line(self, state: PlanBrowsing) -> Text:
        """The command's summary line, the platform, the problems (a source that failed leaves roots to build:
        never silently), what the facet shows; most telling first, so a narrow terminal cuts the end."""
        text = Text.assemble(("plan  ", "dim"), (state.summary(), "bold"))
        if state.plan is not None:
            text.append(f"  │  for {inert(state.plan.platform())}")
        problems = len(self.corpus.report.problems) if self.corpus is not None else 0
        if problems:
            text.append(f"  │  {problems_said(problems, keys_shown(self.app, 'browser.problems'))}", "yellow")
        if state.chosen:
            text.append("  │  only " + ", ".join(s for s in STATUSES if s in state.chosen))
        return text

    @on(PickList.Selected, "#plan-facet")
    def _status_chosen(self, event: PickList.Selected) -> None:
        event.stop()
        self.state = status_toggled(self.state, STATUSES[event.row])

    @on(PickList.Selected, "#plan-roots")
    def _root_chosen(self, event: PickList.Selected) -> None:
        event.stop()
        self.screen.set_focus(self.query_one(PlanDetail))

    def _show_note(self) -> None:
        """The note under the notes' cursor, whole, in the details (the list cuts it to its pane)."""
        notes = self.state.plan.notes if self.state.plan is not None else ()
        cursor, detail = self.query_one(PlanNotes).cursor, self.query_one(PlanDetail)
        if self.screen.focused is self.query_one(PlanNotes) and 0 <= cursor < len(notes):
            width = max(20, (detail.content_width or 80) - 2)
            detail.source = CutRows([Text("Not evaluated", style="bold"),
                                     *(Text(line) for line in wrap(inert(notes[cursor]), width))])

    @on(PickList.Selected, "#plan-notes")
    def _note_chosen(self, event: PickList.Selected) -> None:
        event.stop()
        self._show_note()

    def on_descendant_focus(self) -> None:
        """Into the notes: the one under the cursor shows whole; back to the roots: the root's details."""
        if self.screen.focused is self.query_one(PlanNotes):
            self._show_note()
        elif self.screen.focused is self.roots_list:
            self._follow_cursor()

    def follow_root(self) -> None:
        """The details drawn again (the pane's width changed)."""
        self._follow_cursor()

    def _follow_cursor(self) -> None:
        root = self.root
        detail = self.query_one(PlanDetail)
        width = max(0, (detail.content_width or 80) - 2)  # a cell for the scrollbar that long details bring
        detail.source = CutRows(detail_rows(root, keys_shown(self.app, "browser.plan-candidates"), width))
        self.post_message(self.DetailShown())  # the screen's footer offers `c` and `n` as they come and go

    @property
    def root(self) -> RootPlan | None:
        """The root under the list's cursor."""
        return self.state.root(self.roots_list.cursor)

    @property
    def position(self) -> int | None:
        """The place in the plan of the root under the cursor."""
        cursor, shown = self.roots_list.cursor, self.state.shown
        return shown[cursor] if 0 <= cursor < len(shown) else None

    def show_root(self, position: int) -> None:
        """The cursor on the plan's root `position` (back from its candidates)."""
        self.roots_list.cursor = self.state.row_of(position, self.roots_list.cursor)

    def key_context(self) -> KeyContext:
        root = self.root
        return KeyContext(loaded=self.corpus is not None, planned=True, plan=True, spec_selected=root is not None,
                          candidates=root is not None and bool(root.candidate_indices) and root.binary is not None)

    @property
    def panes(self) -> list[Widget]:
        """The titled panes, in the order the help lists their keys."""
        return [self.query_one(PlanFacet), self.roots_list, self.query_one(PlanDetail)]

    @property
    def roots_list(self) -> PlanRoots:
        return self.query_one(PlanRoots)

    def action_candidates(self) -> None:
        """`n`: every binary that can serve the root, in the spec table, the chosen one under the cursor."""
        root, position = self.root, self.position
        if root is None or position is None or not root.candidate_indices:
            self.app.notify("A root to build has no candidates: no binary can serve it.", markup=False)
            return
        self.post_message(self.Candidates(root, position))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_copy_menu(self) -> None:
        root = self.root
        if root is None or self.corpus is None or root.binary is None:
            return
        choice = await self.app.push_screen_wait(CopyMenu(root_copy_choices(self.corpus, root)))
        if choice is not None:
            self.post_message(CopyRequested(choice[1], choice[0]))


@dataclass
class RootRows(CutRows):
    """The roots' lines, with the plan's place of each (where the cursor stays as the facet narrows the list)."""

    positions: list[int] = field(default_factory=list)
