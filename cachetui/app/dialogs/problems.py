"""`p`: every load problem, with file, line and reason (and, first, what is wrong with the query line)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from cachetui.app.actions import bindings_of
from cachetui.app.dialogs.closing import closed_by_opening_key
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.core.model.problems import LoadReport, Problem, Severity
from cachetui.present.fit import fit, fit_left
from cachetui.present.format import counted
from cachetui.present.inert import inert

MAX_ROWS = 10_000
PADDING = 2  # a DataTable pads each cell by one on either side
SEVERITY_WIDTH = len("severity")
CUT_NOTE = "  … cut: the highlighted row shows whole below"


def column_widths(problems: list[Problem], room: int) -> tuple[int, int, int]:
    """The file, line and reason columns' widths, so that every column fits in `room` cells.

    A table wider than the screen would hide the ends of the reasons past its edge, unmarked;
    cut to fit instead, each cut says so (…), and the highlighted problem shows whole below.
    """
    line = max([len("line"), *(len(str(p.line)) for p in problems if p.line)])
    rest = max(0, room - 4 * PADDING - SEVERITY_WIDTH - line)
    path = max([len("file"), *(cell_len(inert(p.path)) for p in problems)])
    reason = max([len("reason"), *(cell_len(inert(p.reason)) for p in problems)])
    if path + reason > rest:  # the reason gets two thirds at least, the file its end (the file name)
        path = min(path, max(rest // 3, rest - reason))
        reason = max(len("reason"), rest - path)
    return path, line, reason


class ProblemsScreen(Screen[None]):
    BINDINGS = bindings_of("problems")

    async def on_key(self, event: events.Key) -> None:
        await closed_by_opening_key(self, event, "browser.problems", "app.pop_screen")

    def __init__(self, report: LoadReport, query_problem: str | None = None) -> None:
        super().__init__()
        self._report = report
        self._query_problem = query_problem  # whole here: beside the query line it may be cut
        self._shown = report.problems[:MAX_ROWS]
        self._room = 0  # the width the table's cells were cut for

    def compose(self) -> ComposeResult:
        if self._query_problem:
            said = Text.assemble(("The query line: ", "bold"), ("✗ " + inert(self._query_problem), "red"))
            yield Label(said, id="problems-query")
        yield Label(self._title(cut=False), id="problems-title")
        if not self._shown:
            yield Label(Text("No problems: every file loaded cleanly."), id="problems-none")
        yield DataTable[Text](id="problems-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="problem-detail-scroll"):  # a long one scrolls (Tab, arrows), never cut unmarked
            yield Static(id="problem-detail")
        yield KeyFooter()

    def on_resize(self, event: events.Resize) -> None:
        room = event.size.width - 1  # the table's vertical scrollbar (app.tcss), there or not
        if room != self._room:
            self._room = room
            self._fill(room)

    def _fill(self, room: int) -> None:
        """The rows cut to `room` cells, each cut marked; the highlighted row stays highlighted."""
        table = self.query_one("#problems-table", DataTable)
        row = table.cursor_row
        path_width, line_width, reason_width = column_widths(self._shown, room)
        table.clear(columns=True)
        table.add_column("severity", width=SEVERITY_WIDTH)
        table.add_column("file", width=path_width)
        table.add_column("line", width=line_width)
        table.add_column("reason", width=reason_width)
        cut = False
        for p in self._shown:
            path, reason = inert(p.path), inert(p.reason)
            shown_path, shown_reason = fit_left(path, path_width), fit(reason, reason_width)
            cut = cut or shown_path != path or shown_reason != reason
            table.add_row(
                Text(p.severity.value, style="bold red" if p.severity is Severity.ERROR else "yellow"),
                Text(shown_path),
                Text(str(p.line) if p.line else ""),
                Text(shown_reason),
            )
        table.move_cursor(row=row)
        self.query_one("#problems-title", Label).update(self._title(cut))

    def _title(self, cut: bool) -> Text:
        report = self._report
        title = Text(f"Problems: {counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')}",
                     style="bold")
        if len(self._shown) < len(report.problems):
            title.append(f" (first {len(self._shown)} shown)", "bold")
        if cut:
            title.append(CUT_NOTE, "dim")
        return title

    @on(DataTable.RowHighlighted)
    def _show_whole(self, event: DataTable.RowHighlighted) -> None:
        """The table cuts long paths and reasons; show the highlighted one whole."""
        problem = self._shown[event.cursor_row]
        where = inert(problem.path) + (f":{problem.line}" if problem.line else "")
        self.query_one("#problem-detail", Static).update(Text.assemble((where, "bold"), "\n", inert(problem.reason)))
