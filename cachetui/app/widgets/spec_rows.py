"""The spec table's two row sources: columns of cells, or the lines `spack find -lv` prints.

The table asks its source how many rows there are, which spec a row is, and how a row and the
column titles look; which source it holds depends only on the answer (`SpecRows.find`).
"""

from __future__ import annotations

import numpy as np
from rich.style import Style
from rich.text import Text

from cachetui.present.apart import cut_middle
from cachetui.present.fit import fit
from cachetui.present.inert import inert
from cachetui.present.spec_table.table_cells import CHANGE_TEXT, SpecRows, cut_cells
from cachetui.present.spec_table.table_layout import GAP
from cachetui.present.spec_table.table_plan import Plan, differs_getter, measured_for, plan

CHANGE_STYLE = {"added": "green", "removed": "red", "kept": "dim", "": ""}


def change_mark(rows: SpecRows, spec: int) -> Text:
    """`+ added`, `− removed` or `= kept`, styled; empty outside compare mode."""
    mark = rows.comparison.mark_of(spec) if rows.comparison is not None else ""
    return Text(CHANGE_TEXT[mark], CHANGE_STYLE[mark])


def slid(text: Text, width: int, offset: int) -> Text:
    """`text` scrolled sideways by `offset` cells, a cut at either end marked (‹ on the left, … on the right)."""
    text = text[offset:] if offset else text.copy()
    if text.cell_len > width:
        text.truncate(max(0, width - 1), overflow="crop")
        text.append("…", "dim")
    if offset and len(text):
        text = Text.assemble(("‹", "dim"), text[1:])
    return text


def sorted_title(title: str, descending: bool, width: int) -> str:
    """A sorted column's title and its arrow; a narrow column cuts the title, never the arrow."""
    arrow = "▼" if descending else "▲"
    if width < 3:
        return arrow
    return fit(title, width - 2) + " " + arrow


class RowSource:
    """What every source tells the table."""

    sortable = True  # `s` and a click on a title sort the rows
    telling_width = 0  # cells it would use to show all it has to show

    def __init__(self, rows: SpecRows) -> None:
        self.rows = rows

    @property
    def row_count(self) -> int:
        return len(self.rows.indices)

    def spec_at(self, row: int) -> int | None:
        return int(self.rows.indices[row])

    def row_of(self, spec: int) -> int | None:
        found = np.flatnonzero(self.rows.indices == spec)
        return int(found[0]) if len(found) else None

    def lay_out(self, room: int) -> None:
        """Fit the rows to `room` cells (once per width, not per row)."""

    def titles(self, width: int, sorted_style: Style) -> Text:
        raise NotImplementedError

    def line(self, row: int, width: int, offset: int) -> Text:
        raise NotImplementedError

    def longest_line(self, top: int, height: int) -> int:
        """The widest of the rows on screen, when they scroll sideways (0: they fit instead)."""
        return 0

    def column_at(self, x: int) -> str | None:
        return None

    @property
    def shown(self) -> tuple[str, ...]:
        """The keys of the columns on screen."""
        return tuple(key for key, _ in self.widths)

    @property
    def widths(self) -> tuple[tuple[str, int], ...]:
        """The columns on screen and their widths."""
        return ()

    @property
    def squeezed(self) -> frozenset[str]:
        """Columns chosen to show that have no room for now."""
        return frozenset()


class ColumnRows(RowSource):
    """A row per spec, in columns chosen to tell the rows apart at the width there is."""

    def __init__(self, rows: SpecRows, hidden: frozenset[str]) -> None:
        super().__init__(rows)
        self._measured = measured_for(rows, hidden)
        self._getters = self._measured.getters  # differs' getter is put in at each layout
        self.telling_width = self._measured.telling_width
        self.plan = Plan()
        self._room: int | None = None
        self._cuts: dict[tuple[str, int], dict[str, str]] = {}  # (column, width) -> value -> as shown

    def lay_out(self, room: int) -> None:
        if room != self._room:  # the table's height changes often (the details pane); its width seldom
            self._room = room
            self.plan = plan(self._measured, room)
            self._getters["differs"] = differs_getter(self.rows, self._getters, self.plan, self._measured.siblings)

    def cell(self, key: str, spec: int) -> str:
        """A cell's whole text, as its column would show it with room enough."""
        return inert(self._getters[key](spec))

    @property
    def widths(self) -> tuple[tuple[str, int], ...]:
        return tuple((column.key, width) for column, width in self.plan.layout)

    @property
    def squeezed(self) -> frozenset[str]:
        return frozenset(c.key for c in self._measured.columns) - set(self.shown)

    def titles(self, width: int, sorted_style: Style) -> Text:
        text = Text()  # the table styles the whole title line, padding included
        rows = self.rows
        for column, column_width in self.plan.layout:
            is_sorted = rows.sort_column == column.key
            title = sorted_title(column.title, rows.descending, column_width) if is_sorted else column.title
            text.append(fit(title, column_width, pad=True), sorted_style if is_sorted else None)
            text.append(" " * GAP)
        return text

    def line(self, row: int, width: int, offset: int) -> Text:
        spec = int(self.rows.indices[row])
        text = Text()
        for column, column_width in self.plan.layout:
            if column.key == "change":
                mark = change_mark(self.rows, spec)
                text.append(fit(mark.plain, column_width, pad=True), mark.style)
            elif column.middle:
                shown = self._cut(column.key, column_width)[self.cell(column.key, spec)]
                text.append(fit(shown, column_width, pad=True))
            elif column.key == "differs":  # what tells siblings apart is often at its end (stacks=…-cpu, …-cuda)
                text.append(fit(cut_middle(self.cell(column.key, spec), column_width), column_width, pad=True))
            else:
                text.append(fit(self.cell(column.key, spec), column_width, pad=True))
            text.append(" " * GAP)
        return text

    def _cut(self, key: str, width: int) -> dict[str, str]:
        """Every package name (or tag) of the corpus as its column shows it at `width`: never two alike."""
        if (key, width) not in self._cuts:
            corpus = self.rows.corpus
            values = [inert(v) for v in (corpus.packages if key == "package" else corpus.vocab[key].values)]
            self._cuts[key, width] = dict(zip(values, cut_cells(key, values, width)))
        return self._cuts[key, width]

    def column_at(self, x: int) -> str | None:
        left = 0
        for column, width in self.plan.layout:
            if left <= x < left + width + GAP:
                return column.key
            left += width + GAP
        return None


class FindRows(RowSource):
    """The lines `spack find -lv` prints: group headers and a line per spec, scrolled sideways when long."""

    sortable = False  # the rows keep Spack's order

    def __init__(self, rows: SpecRows, hint: str) -> None:
        super().__init__(rows)
        assert rows.find is not None
        self.find = rows.find
        self.hint = hint  # the title line: what it is, and its keys as bound

    @property
    def row_count(self) -> int:
        return len(self.find)

    def spec_at(self, row: int) -> int | None:
        spec = int(self.find.rows[row])
        return spec if spec >= 0 else None

    def row_of(self, spec: int) -> int | None:
        found = np.flatnonzero(self.find.rows == spec)
        return int(found[0]) if len(found) else None

    def titles(self, width: int, sorted_style: Style) -> Text:
        return Text(fit(self.hint, width))

    def line(self, row: int, width: int, offset: int) -> Text:
        line = self.find.line(row)
        text = Text(inert(line.text), "bold" if line.header else "")
        if self.rows.comparison is not None and line.spec is not None:  # comparing: the mark leads the line
            mark = change_mark(self.rows, line.spec)
            text = Text.assemble((mark.plain[:1] + " ", mark.style), text)
        return slid(text, width, offset)

    def longest_line(self, top: int, height: int) -> int:
        return max((len(self.find.line(row).text) + 2 for row in range(top, min(self.row_count, top + height))),
                   default=0)
