"""`p`: every load problem, with file, line and reason (and, first, what is wrong with the query line)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.core.model.problems import LoadReport, Severity
from cachetui.present.inert import inert

MAX_ROWS = 10_000


class ProblemsScreen(Screen[None]):
    BINDINGS = [Binding("escape,p,q", "app.pop_screen", "Back", id="problems.back")]

    def __init__(self, report: LoadReport, query_problem: str | None = None) -> None:
        super().__init__()
        self._report = report
        self._query_problem = query_problem  # whole here: beside the query line it may be cut

    def compose(self) -> ComposeResult:
        report = self._report
        shown = report.problems[:MAX_ROWS]
        title = f"Problems: {len(report.errors)} errors, {len(report.warnings)} warnings"
        if len(shown) < len(report.problems):
            title += f" (first {len(shown)} shown)"
        if self._query_problem:
            said = Text.assemble(("The query line: ", "bold"), ("✗ " + inert(self._query_problem), "red"))
            yield Label(said, id="problems-query")
        yield Label(Text(title, style="bold"), id="problems-title")
        table: DataTable[Text] = DataTable(id="problems-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("severity", "file", "line", "reason")
        table.add_rows(
            (
                Text(p.severity.value, style="bold red" if p.severity is Severity.ERROR else "yellow"),
                Text(inert(p.path)),
                Text(str(p.line) if p.line else ""),
                Text(inert(p.reason)),
            )
            for p in shown
        )
        if not shown:
            yield Label(Text("No problems: every file loaded cleanly."), id="problems-none")
        yield table
        yield Static(id="problem-detail")
        yield KeyFooter()

    @on(DataTable.RowHighlighted)
    def _show_whole(self, event: DataTable.RowHighlighted) -> None:
        """The table cuts long paths and reasons; show the highlighted one whole."""
        problem = self._report.problems[event.cursor_row]
        where = inert(problem.path) + (f":{problem.line}" if problem.line else "")
        self.query_one("#problem-detail", Static).update(Text.assemble((where, "bold"), "\n", inert(problem.reason)))
