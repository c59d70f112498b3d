"""`--want`: the wanted DAG as a tree with each node's coverage, the status facet, and a node beside its nearest binary.

One frozen `CoverageBrowsing` (present/browse/coverage_browsing.py) comes down from the comparison; the tree, the facet
and the details each get their part of it. The tree and details are Line-API lists (a 1,000-node lockfile
paints a screenful). Its keys are rows of the browser's action table naming it (`n`: the node's binary in the
spec table, a `DetailPane.Jump`; `c`: its copy menu), bound on the screen, which shows it in the specs' place;
what is copied goes up to the app as any copy does (`CopyRequested`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from cachetui.app.actions import keys_shown
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.requests import CopyRequested
from cachetui.app.widgets.detail_pane import DetailPane, DetailRows
from cachetui.app.widgets.pick_list import PickList
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.wanted import WantedDag
from cachetui.core.query.coverage import (
    ABSENT,
    DIFFERS,
    EXTERNAL,
    HIT,
    NOT_A_PREDICTION,
    REUSABLE,
    STATUSES,
    Difference,
    coverage,
)
from cachetui.present.browse.browser_actions import KeyContext
from cachetui.present.browse.coverage_browsing import (
    FACET_TITLE,
    MARKS,
    MEANINGS,
    CoverageBrowsing,
    compared,
    status_toggled,
)
from cachetui.present.details.coverage_detail import UNKNOWN, NodeDetail, node_copy_choices, node_detail
from cachetui.present.format import counted
from cachetui.present.inert import inert

COLOURS = {HIT: "green", REUSABLE: "cyan", DIFFERS: "yellow", ABSENT: "red", EXTERNAL: "blue"}
SIDE_BY_SIDE_FROM = 60  # details narrower than this show the binary below the wanted node
DIFFERS_MARK = "≠"


@dataclass
class TreeRows:
    state: CoverageBrowsing
    initial_cursor: int | None = 0

    def __len__(self) -> int:
        return len(self.state.shown)

    def text(self, row: int, width: int) -> Text:
        line = self.state.shown[row]
        node = self.state.nodes[line.hash]
        style = "dim" if line.context or line.repeated else ""
        text = Text("  " * line.depth)
        text.append(f"{MARKS[node.status]} ", f"bold {COLOURS[node.status]}")
        text.append(inert(f"{node.package}@{node.version}"), style or ("bold" if node.root else ""))
        text.append(f" /{inert(node.hash)[:7]}", "dim")
        if line.repeated:
            text.append("  ↑ above", "dim")
        return text

    def selectable(self, row: int) -> bool:
        return True


class CoverageTree(PickList):
    pass


class CoverageFacet(PickList):
    """The status facet: each status, its mark and how many wanted nodes have it; Enter narrows the tree."""


class CoverageDetail(PickList):
    detail: reactive[NodeDetail | None] = reactive(None, always_update=True)

    def watch_detail(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()
        super().on_resize()

    def _draw(self) -> None:
        rows = detail_rows(self.detail, self.content_width or 80, keys_shown(self.app, "browser.nearest"))
        self.source = DetailRows([(row, None) for row in rows])


def detail_rows(detail: NodeDetail | None, width: int, nearest_keys: str = "n") -> list[Text]:
    """The node, then each field: side by side with the binary when wide enough, else the binary below."""
    if detail is None:
        return [Text("No wanted node selected.", style="dim")]
    node = detail.node
    rows = [Text.assemble((f"{MARKS[node.status]} {node.status}", f"bold {COLOURS[node.status]}"), "  ",
                          (detail.spec, "bold"), ("  root" if node.root else "", "dim"))]
    if node.status == REUSABLE:
        rows.append(Text(NOT_A_PREDICTION, style="dim"))
    if node.status == ABSENT:
        rows.append(Text("no binary of this package in the loaded sources", style="dim"))
    if node.status == EXTERNAL:
        rows.append(Text("an external in your spec: Spack does not build or fetch it", style="dim"))
    if detail.binary is not None:
        which = "held as" if node.status == HIT else "nearest"
        rows.append(Text.assemble((f"{which} ", "bold"), (detail.binary_title, "cyan"),
                                  (f"  ({nearest_keys}: in the spec table)", "dim")))
    if node.nearest is None:
        return rows + [Text.assemble(("  " + line.label.ljust(14), "bold"), line.wanted) for line in detail.lines]
    label = max((len(line.label) for line in detail.lines), default=8) + 1
    if width >= SIDE_BY_SIDE_FROM:
        half = max(8, (width - label - 3) // 2)
        rows.append(Text.assemble(("  " + "".ljust(label) + "wanted".ljust(half), "bold underline"),
                                  ("nearest", "bold underline")))
        for line in detail.lines:
            mark, style = _mark(line.difference)
            cut = line.wanted if len(line.wanted) < half else line.wanted[: half - 2] + "…"
            rows.append(Text.assemble((mark + " ", style), (line.label.ljust(label), "bold"),
                                      (cut.ljust(half), style), (line.cached, style)))
        return rows
    for title, side in (("wanted", "wanted"), ("nearest", "cached")):
        rows.append(Text(title, style="bold underline"))
        for line in detail.lines:
            mark, style = _mark(line.difference)
            rows.append(Text.assemble((mark + " ", style), (line.label.ljust(label), "bold"),
                                      (getattr(line, side), style)))
    return rows


def _same_node(before: object, state: CoverageBrowsing, cursor: int) -> int:
    """Where the node under the cursor is in the tree as `state` shows it (narrowed or not), else the row nearest."""
    if isinstance(before, TreeRows) and 0 <= cursor < len(before.state.shown):
        line = before.state.shown[cursor]
        rows = [row for row, shown in enumerate(state.shown) if (shown.hash, shown.depth) == (line.hash, line.depth)]
        if rows:
            return min(rows, key=lambda row: abs(row - cursor))
    return min(cursor, max(0, len(state.shown) - 1))


def facet_row(state: CoverageBrowsing, status: str) -> Text:
    """`✓ ≠ differs      5  nearest binary differs`: chosen or not, the mark (the legend), the live count."""
    return Text.assemble(("✓ " if status in state.chosen else "  ", "bold"), (MARKS[status], f"bold {COLOURS[status]}"),
                         f" {status:<9}", (f"{state.counts[status]:>5}", "bold"), (f"  {MEANINGS[status]}", "dim"))


def _mark(difference: Difference | None) -> tuple[str, str]:
    """A differing line's mark: unknown (the source cannot tell) or different, decided by coverage, not by its text."""
    if difference is None:
        return " ", ""
    unknown = difference.cached is None
    return (UNKNOWN, "bold magenta on grey15") if unknown else (DIFFERS_MARK, "bold yellow on grey15")


class CoverageView(Vertical):
    """The coverage view: its line, the facet and tree on the left, the selected node's details on the right."""

    state: reactive[CoverageBrowsing] = reactive(CoverageBrowsing, always_update=True)

    class DetailShown(Message):
        """Another node (or none) is under the cursor: what `c` and `n` can do may have changed."""

    def __init__(self, wanted: WantedDag, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.wanted = wanted
        self.corpus: Corpus | None = None
        self.set_reactive(CoverageView.state, CoverageBrowsing(wanted.label))

    def compose(self) -> ComposeResult:
        yield Static(id="coverage-status")
        with Horizontal(id="coverage-main"):
            with Vertical(id="coverage-left"):
                yield CoverageFacet(id="coverage-facet")
                yield CoverageTree(id="coverage-tree")
            yield CoverageDetail(id="coverage-detail")

    def on_mount(self) -> None:
        only = keys_shown(self.app, "pick.select")
        self.query_one("#coverage-facet").border_title = Text(f"{FACET_TITLE} ({inert(only)}: only these)")
        # Text, never a str: Textual reads a str title as markup, and the label is a path the user typed
        self.query_one("#coverage-tree").border_title = Text(inert(f"Wanted: {self.wanted.label} ({self.wanted.kind})"))
        self.query_one("#coverage-detail").border_title = "Wanted node and nearest binary"
        self.watch(self.query_one(CoverageTree), "cursor", self._follow_cursor, init=False)
        self.watch_state(self.state)

    def corpus_arrived(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._compare(corpus)

    @work(thread=True, exclusive=True, group="coverage", name="coverage", exit_on_error=False)
    def _compare(self, corpus: Corpus) -> None:
        found = coverage(corpus, self.wanted)  # the one rule `cachetui coverage` prints
        self.app.call_from_thread(lambda: setattr(self, "state", compared(self.state, found)))

    def watch_state(self, state: CoverageBrowsing) -> None:
        self.query_one("#coverage-status", Static).update(self._status_line(state))
        facet = self.query_one(CoverageFacet)
        facet.source = DetailRows([(facet_row(state, status), None) for status in STATUSES], facet.cursor)
        tree = self.query_one(CoverageTree)
        tree.source = TreeRows(state, _same_node(tree.source, state, tree.cursor))
        self._follow_cursor()

    def _status_line(self, state: CoverageBrowsing) -> Text:
        """The command's summary line, what the tree shows, the problems (a source that failed leaves nodes
        absent: never silently), what `--want` named; most telling first, so a narrow terminal cuts the end."""
        chosen = "only " + ", ".join(s for s in STATUSES if s in state.chosen) if state.chosen else "every node"
        text = Text.assemble(("coverage  ", "dim"), (state.summary(), "bold"), ("  │  ", "dim"), chosen,
                             no_wrap=True, overflow="ellipsis")
        problems = len(self.corpus.report.problems) if self.corpus is not None else 0
        if problems:
            key = inert(keys_shown(self.app, "browser.problems"))
            text.append(f"  │  ⚠ {counted(problems, 'problem')} ({key})", "yellow")
        text.append(f"  │  {inert(state.label)}", "dim")
        return text

    @on(PickList.Selected, "#coverage-facet")
    def _status_chosen(self, event: PickList.Selected) -> None:
        event.stop()
        self.state = status_toggled(self.state, STATUSES[event.row])

    @on(PickList.Selected, "#coverage-tree")
    def _node_chosen(self, event: PickList.Selected) -> None:
        event.stop()
        self.screen.set_focus(self.query_one(CoverageDetail))

    def _follow_cursor(self) -> None:
        self.query_one(CoverageDetail).detail = self.detail
        self.post_message(self.DetailShown())  # the screen's footer offers `c` and `n` as they come and go

    @property
    def detail(self) -> NodeDetail | None:
        """The wanted node under the tree's cursor, beside its binary."""
        state, cursor, corpus = self.state, self.query_one(CoverageTree).cursor, self.corpus
        if state.coverage is None or corpus is None or not 0 <= cursor < len(state.shown):
            return None
        return node_detail(corpus, state.coverage, state.nodes[state.shown[cursor].hash])

    def key_context(self) -> KeyContext:
        detail = self.query_one(CoverageDetail).detail
        return KeyContext(loaded=self.corpus is not None, wanted=True, coverage=True,
                          spec_selected=detail is not None, nearest=detail is not None and detail.binary is not None)

    @property
    def panes(self) -> list[Widget]:
        """The titled panes, in the order the help lists their keys."""
        return [self.query_one(CoverageFacet), self.query_one(CoverageTree), self.query_one(CoverageDetail)]

    @property
    def tree_list(self) -> CoverageTree:
        return self.query_one(CoverageTree)

    def binary(self) -> int | None:
        """The corpus index of the selected node's binary: held (a hit), else the nearest; None for neither."""
        detail = self.query_one(CoverageDetail).detail
        return None if detail is None else detail.binary

    def action_nearest(self) -> None:
        """`n`: the wanted node's binary (held, or the nearest) in the spec table, a jump as one from the details."""
        binary = self.binary()
        if binary is not None:
            self.post_message(DetailPane.Jump(binary))

    @work(group="dialog", exclusive=True, exit_on_error=False)
    async def action_copy_menu(self) -> None:
        detail = self.query_one(CoverageDetail).detail
        if detail is None or self.corpus is None:
            return
        choice = await self.app.push_screen_wait(CopyMenu(node_copy_choices(self.corpus, detail)))
        if choice is not None:
            self.post_message(CopyRequested(choice[1], choice[0]))
