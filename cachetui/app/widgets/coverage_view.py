"""`--want`: the wanted DAG as a tree with each node's coverage, the status facet, and a node beside its nearest binary.

One frozen `CoverageBrowsing` (present/browse/coverage_browsing.py) comes down from the comparison; the tree, the facet
and the details each get their part of it. The tree and details are Line-API lists (a 1,000-node lockfile
paints a screenful); a line cut to its pane ends in `…`, and the tree scrolls sideways with the cursor, so a node
31 levels deep keeps its name in sight at 80 columns. Its keys are rows of the browser's action table naming it
(`/`: find a node by name; `n`: the node's binary in the spec table, a `DetailPane.Jump`; `c`: its copy menu),
bound on the screen, which shows it in the specs' place; the find box's own keys are its rows (`find.…`). What is
copied goes up to the app as any copy does (`CopyRequested`).
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
from textual.widgets import Input, Static

from cachetui.app.actions import bindings_of, keys_shown
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.requests import CopyRequested
from cachetui.app.widgets.cut_lines import CutLine, CutRows, cut
from cachetui.app.widgets.detail_pane import DetailPane
from cachetui.app.widgets.pick_list import PickList
from cachetui.app.widgets.text_line import KeysInOrder
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
    INDENT,
    MARKS,
    MEANINGS,
    CoverageBrowsing,
    compared,
    find_typed,
    match_said,
    next_match,
    sideways,
    status_toggled,
)
from cachetui.present.details.coverage_detail import UNKNOWN, NodeDetail, node_copy_choices, node_detail
from cachetui.present.format import problems_said
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
        """The whole line, its indent and all: the tree scrolls it sideways and cuts it (`CoverageTree`)."""
        line = self.state.shown[row]
        node = self.state.nodes[line.hash]
        style = "dim" if line.context or line.repeated else ""
        text = Text(" " * (INDENT * line.depth))
        text.append(f"{MARKS[node.status]} ", f"bold {COLOURS[node.status]}")
        name = inert(f"{node.package}@{node.version}")
        found = not line.repeated and node.package in self.state.found
        text.append(name, (style or ("bold" if node.root else "")) + (" underline" if found else ""))
        text.append(f" /{inert(node.hash)[:7]}", "dim")
        if line.repeated:
            text.append("  ↑ above", "dim")
        return text

    def label(self, row: int) -> tuple[int, int]:
        """(depth, cells of its mark and name): what must show of a line the cursor rests on."""
        line = self.state.shown[row]
        node = self.state.nodes[line.hash]
        return line.depth, Text(f"{MARKS[node.status]} {inert(f'{node.package}@{node.version}')}").cell_len

    def selectable(self, row: int) -> bool:
        return True


class CoverageTree(PickList):
    """The wanted tree, scrolled sideways (`scrolled_by` cells) so the name under the cursor shows, however deep."""

    scrolled_by = 0  # cells scrolled sideways

    def row_text(self, row: int, width: int) -> Text:
        text = super().row_text(row, width)
        if self.scrolled_by:
            text = Text.assemble(("‹", "dim"), text[self.scrolled_by + 1:])  # what is scrolled away is marked
        return cut(text, width)

    def row_key(self, row: int) -> tuple[int, int]:
        return row, self.scrolled_by

    def cursor_moved(self) -> None:
        self._follow_sideways()

    def on_resize(self) -> None:
        self._follow_sideways()
        super().on_resize()

    def _follow_sideways(self) -> None:
        source = self.source
        if not isinstance(source, TreeRows) or not 0 <= self.cursor < len(source):
            offset = 0
        else:
            offset = sideways(self.scrolled_by, *source.label(self.cursor), self.content_width)
        if offset != self.scrolled_by:
            self.scrolled_by = offset
            self.refresh()  # every line moves


class CoverageFacet(PickList):
    """The status facet: each status, its mark and how many wanted nodes have it; Enter narrows the tree."""


class FindLine(KeysInOrder):
    """The find box (`/`): typing moves the tree's cursor to the first node whose name matches; its keys are rows
    (`find.…`): Enter or Down the next match, Up the one before, Escape back to the tree, the cursor where it is.

    As the query line's, a key bound here runs its action as it arrives, in the order typed (`KeysInOrder`).
    """

    BINDINGS = bindings_of("find")

    @dataclass
    class Step(Message):
        step: int  # 1: the next match; -1: the one before

    class Left(Message):
        """Escape: back to the tree."""


    def action_next_match(self) -> None:
        self.post_message(self.Step(1))

    def action_previous_match(self) -> None:
        self.post_message(self.Step(-1))

    def action_leave(self) -> None:
        self.post_message(self.Left())


class CoverageDetail(PickList):
    detail: reactive[NodeDetail | None] = reactive(None, always_update=True)

    def watch_detail(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()
        super().on_resize()

    def _draw(self) -> None:
        rows = detail_rows(self.detail, self.content_width or 80, keys_shown(self.app, "browser.nearest"))
        self.source = CutRows(rows)


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
    label = max((len(line.label) for line in detail.lines), default=8) + 1  # a long `^name` keeps its gap
    if node.nearest is None:
        return rows + [Text.assemble(("  " + line.label.ljust(max(14, label)), "bold"), line.wanted)
                       for line in detail.lines]
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


class CoverageStatus(CutLine):
    """The view's one line."""


def tree_title(state: CoverageBrowsing, kind: str) -> Text:
    """`Wanted, only differs: spack.lock (lockfile)`: the facet's choice first, so it shows while it holds, however
    narrow the pane (Textual cuts a title at its end, with `…`) and wherever the facet is scrolled."""
    chosen = ", ".join(status for status in STATUSES if status in state.chosen)
    text = Text("Wanted")
    if chosen:
        text.append(f", only {chosen}", "bold")
    text.append(inert(f": {state.label} ({kind})"))
    return text


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
        self._find_from = 0  # the tree's line where the find began: typing looks from there, as less does

    def compose(self) -> ComposeResult:
        yield CoverageStatus(id="coverage-status")
        with Horizontal(id="coverage-main"):
            with Vertical(id="coverage-left"):
                yield CoverageFacet(id="coverage-facet")
                yield CoverageTree(id="coverage-tree")
                with Horizontal(id="coverage-find"):
                    yield FindLine(placeholder="a wanted node's name", id="coverage-find-line")
                    yield Static(id="coverage-find-said")
            yield CoverageDetail(id="coverage-detail")

    def on_mount(self) -> None:
        only = keys_shown(self.app, "pick.select")
        self.query_one("#coverage-facet").border_title = Text(f"{FACET_TITLE} ({inert(only)}: only these)")
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
        self.query_one(CoverageStatus).said = self._status_line(state)
        facet = self.query_one(CoverageFacet)
        facet.source = CutRows([facet_row(state, status) for status in STATUSES], facet.cursor)
        tree = self.query_one(CoverageTree)
        # Text, never a str: Textual reads a str title as markup, and the label is a path the user typed
        tree.border_title = tree_title(state, self.wanted.kind)
        tree.source = TreeRows(state, _same_node(tree.source, state, tree.cursor))
        self._follow_cursor()

    def _status_line(self, state: CoverageBrowsing) -> Text:
        """The command's summary line, what the tree shows, the problems (a source that failed leaves nodes
        absent: never silently), what `--want` named; most telling first, so a narrow terminal cuts the end."""
        chosen = "only " + ", ".join(s for s in STATUSES if s in state.chosen) if state.chosen else "every node"
        text = Text.assemble(("coverage  ", "dim"), (state.summary(), "bold"), ("  │  ", "dim"), chosen)
        problems = len(self.corpus.report.problems) if self.corpus is not None else 0
        if problems:
            text.append(f"  │  {problems_said(problems, keys_shown(self.app, 'browser.problems'))}", "yellow")
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
        self._say_find()
        self.post_message(self.DetailShown())  # the screen's footer offers `c` and `n` as they come and go

    # -- finding a node by name (`/`) ---------------------------------------------------------------------------

    def action_find(self) -> None:
        """`/`: the find box, with what was last found (selected: typing replaces it, Enter goes on to the next)."""
        line = self.query_one(FindLine)
        self._find_from = self.tree_list.cursor
        self.query_one("#coverage-find").display = True
        self.state = find_typed(self.state, line.value)
        self.screen.set_focus(line)

    @on(Input.Changed, "#coverage-find-line")
    def _find_typed(self, event: Input.Changed) -> None:
        """Each key typed: the first match from where the find began (there again when nothing matches)."""
        event.stop()
        self.state = find_typed(self.state, event.value)
        found = next_match(self.state, self._find_from, 1, here=True)
        self.tree_list.cursor = self._find_from if found is None else found
        self._say_find()

    @on(FindLine.Step)
    def _find_step(self, event: FindLine.Step) -> None:
        event.stop()
        found = next_match(self.state, self.tree_list.cursor, event.step)
        if found is not None:
            self.tree_list.cursor = found
        self._say_find()

    @on(FindLine.Left)
    def _find_left(self, event: FindLine.Left) -> None:
        """Escape: back to the tree, the cursor on the node found; the box goes, and so do the names underlined."""
        event.stop()
        self.query_one("#coverage-find").display = False
        self.screen.set_focus(self.tree_list)
        self.state = find_typed(self.state, "")

    def _say_find(self) -> None:
        """Beside the box: `2 of 5` on a match, how many there are elsewhere, `no match`."""
        self.query_one("#coverage-find-said", Static).update(match_said(self.state, self.tree_list.cursor))

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
