"""The spec table: a Line-API view that renders only the rows on screen.

The built-in DataTable keeps every row as Python objects; a whole site is ~500k
specs, so this table holds a numpy array of spec indices and turns a row into
text only when it is painted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from cachetui.app.widgets.fit import fit
from cachetui.app.widgets.line_view import LineView
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.installable import NO, UNKNOWN, YES
from cachetui.core.query.common import Common
from cachetui.core.query.diff import Comparison
from cachetui.core.query.sorting import SORT_COLUMNS
from cachetui.core.query.spack_find import FindLayout
from cachetui.core.spack.hashes import short_hash
from cachetui.core.spack.variants import Variant, parse_variants
from cachetui.present.format import condensed, condensed_variants, human_size
from cachetui.present.inert import inert

GAP = 1
SAMPLE_ROWS = 400  # column widths come from this many rows spread over the result


@dataclass(frozen=True, eq=False)
class SpecRows:
    """What the table shows: spec indices in display order. Compared by identity."""

    corpus: Corpus
    indices: np.ndarray
    sort_column: str | None = None
    descending: bool = False
    package: str | None = None  # the one package shown, or None: rows then need a package column
    common: Common = Common()  # what every row shares: the "differs" column leaves it out
    comparison: Comparison | None = None  # compare mode: a "change" column marks each row
    find: FindLayout | None = None  # the `spack find -lv` view: lines in place of columns
    clearable: bool = False  # facet filters or "runs on" narrow the rows: `x` would clear them


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    priority: int  # lower stays longer when the pane is narrow
    min_width: int
    max_width: int
    flexible: bool = False  # shown cut short (down to min_width) rather than dropped when space is short


COLUMNS = (
    Column("change", "change", 0, 9, 9),
    Column("package", "package", 0, 8, 28),
    Column("hash", "hash", 0, 7, 7),
    Column("version", "version", 1, 7, 12),
    Column("compiler", "compiler", 2, 8, 18),
    Column("differs", "differs", 1, 16, 24, flexible=True),  # wider when room is spare
    Column("platform", "platform", 8, 6, 8),
    Column("os", "os", 5, 6, 12),
    Column("target", "target", 4, 6, 12),
    Column("stacks", "stacks", 9, 8, 28),
    Column("variants", "variants", 10, 10, 60, flexible=True),
    Column("size", "size", 7, 8, 9),
    Column("installable", "cache-only", 3, 10, 10),
    Column("tag", "tag", 6, 7, 18),
)


UNKNOWN_CELLS = frozenset({"", "-", "?"})  # a column of only these says nothing about any row
GIVES_WAY = 50  # added to the priority of a column that is alike in every sampled row
SCROLL_STEP = 8  # cells moved by Left/Right on the common line and the find view

HIDDEN_AT_FIRST = frozenset({"variants"})  # "differs" and the common line above say it without repeats


CHANGE_TEXT = {"added": ("+ added", "green"), "removed": ("− removed", "red"), "kept": ("= kept", "dim"), "": ("", "")}


def _some_not_installable(rows: SpecRows) -> bool:
    no = rows.corpus.vocab["installable"].ids.get(NO, -1)
    return bool((rows.corpus.single["installable"][rows.indices] == no).any())


INSTALLABLE_TEXT = {YES: "yes", NO: "no: builds", UNKNOWN: "?"}


def _sample(rows: SpecRows) -> np.ndarray:
    step = max(1, len(rows.indices) // SAMPLE_ROWS)
    return rows.indices[::step][:SAMPLE_ROWS]


def split_order(rows: SpecRows, sample: np.ndarray) -> dict[str, int]:
    """Differing variant names, the one whose values split the sampled rows most evenly first.

    A row without the variant counts as one more value. Evenness is the chance that two rows
    drawn at random differ in it (1 - sum of squared shares); ties keep the name order.
    """
    if not rows.common.variants_vary:
        return {}
    shared, raw = rows.common.variant_names, rows.corpus.raw_variants
    seen = Counter(v for i in sample.tolist() for text in raw(i) for v in parse_variants(text))  # Variant: hashable
    values: dict[str, Counter[Variant]] = {}
    for variant, count in seen.items():
        if variant.name not in shared:
            values.setdefault(variant.name, Counter())[variant] = count
    n = max(1, len(sample))

    def evenness(name: str) -> float:
        counts = list(values[name].values())
        counts.append(n - sum(counts))  # rows that do not have it
        return 1.0 - sum((c / n) ** 2 for c in counts)

    ranked = sorted(values, key=lambda name: (-evenness(name), name))
    return {name: rank for rank, name in enumerate(ranked)}


def _differs_getter(rows: SpecRows, order: dict[str, int]) -> Callable[[int], str]:
    common, raw = rows.common, rows.corpus.raw_variants
    last = len(order)

    def differs(i: int) -> str:
        shown = sorted(common.differing(raw(i)), key=lambda v: order.get(v.name, last))
        return " ".join(condensed(v) for v in shown)

    return differs


def _cell_getters(corpus: Corpus) -> dict[str, Callable[[int], str]]:
    def single(facet: str) -> Callable[[int], str]:
        values, col = corpus.vocab[facet].values, corpus.single[facet]
        return lambda i: values[col[i]]

    stacks, stack_values = corpus.multi["stack"], corpus.vocab["stack"].values
    installable = single("installable")
    packages, package_of = corpus.packages, corpus.package_of
    return {
        "package": lambda i: packages[package_of[i]],
        "hash": lambda i: short_hash(corpus.hashes[i]),
        "version": single("version"),
        "compiler": single("compiler"),
        "platform": single("platform"),
        "os": single("os"),
        "target": single("target"),
        "tag": single("tag"),
        "installable": lambda i: INSTALLABLE_TEXT[installable(i)],
        "stacks": lambda i: ",".join(stack_values[v] for v in stacks.of(i) if stack_values[v] != "root"),
        "variants": lambda i: condensed_variants(corpus.raw_variants(i)),
        "size": lambda i: human_size(int(corpus.size[i]) if corpus.size[i] >= 0 else None),
    }


def common_text(rows: SpecRows | None) -> Text:
    """The line above the titles: what every row shares, said once (or why there are no rows)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if rows is None:
        return text
    if not len(rows.indices):
        why = "No spec matches: the line above says which part of the query emptied it"
        return text.append(why + (" (x clears the filters)." if rows.clearable else "."), "italic")
    shared = rows.common.spec_text()
    text.append("common: " if len(rows.indices) > 1 else "only: ", "dim")
    return text.append(inert(shared) or "nothing in common", "bold" if shared else "dim italic")


class SpecTable(LineView):
    """Specs as rows; the cursor row is the selected spec."""

    BINDINGS = [
        Binding("enter", "select", "Details", show=False, id="table.select"),
        Binding("s", "sort_next", "Sort", id="table.sort"),
        Binding("S", "sort_reverse", "Reverse sort", show=False, id="table.sort-reverse"),
        Binding("left", "scroll_sideways(-1)", "Scroll the common line / find view left", show=False,
                id="table.left"),
        Binding("right", "scroll_sideways(1)", "Scroll the common line / find view right", show=False,
                id="table.right"),
    ]
    COMPONENT_CLASSES = {"spec-table--header", "spec-table--cursor", "spec-table--cursor-blurred", "spec-table--sorted"}
    HEADER_LINES = 2  # what every row shares, then the column titles
    CURSOR_CLASSES = ("spec-table--cursor", "spec-table--cursor-blurred")

    data: reactive[SpecRows | None] = reactive(None, always_update=True)
    hidden: reactive[frozenset[str]] = reactive(HIDDEN_AT_FIRST)

    class Highlighted(Message):
        """The cursor moved to another spec (None when the table is empty)."""

        def __init__(self, spec: int | None) -> None:
            super().__init__()
            self.spec = spec

    class WidthWanted(Message):
        """The cells the table would use to show every column that tells rows apart."""

        def __init__(self, width: int) -> None:
            super().__init__()
            self.width = width

    class Selected(Message):
        def __init__(self, spec: int) -> None:
            super().__init__()
            self.spec = spec

    class SortRequested(Message):
        def __init__(self, column: str, descending: bool) -> None:
            super().__init__()
            self.column = column
            self.descending = descending

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._getters: dict[str, Callable[[int], str]] = {}
        self._widths: dict[str, int] = {}
        self._layout: list[tuple[Column, int]] = []
        self._alike_sampled: frozenset[str] = frozenset()  # one value (or unknown) in every sampled row
        self._wanted = 0
        self._longest: dict[str, int] = {}  # a flexible column's longest sampled cell, past its max_width
        self.x_offset = 0  # how far the common line and the find view are scrolled sideways

    @property
    def row_count(self) -> int:
        if self.data is None:
            return 0
        return len(self.data.find) if self.data.find is not None else len(self.data.indices)

    @property
    def current_spec(self) -> int | None:
        if self.data is None or not self.row_count:
            return None
        row = min(self.cursor, self.row_count - 1)
        if self.data.find is not None:
            spec = int(self.data.find.rows[row])
            return spec if spec >= 0 else None
        return int(self.data.indices[row])

    def selectable(self, row: int) -> bool:
        return self.data is None or self.data.find is None or self.data.find.rows[row] >= 0

    def watch_data(self, old: SpecRows | None, new: SpecRows | None) -> None:
        if new is not None and (old is None or old.corpus is not new.corpus):
            self._getters = _cell_getters(new.corpus)
        if new is not None:
            self._getters["differs"] = _differs_getter(new, split_order(new, _sample(new)))
        self._widths = self._measure(new) if new is not None else {}
        self.x_offset = 0
        self._relayout()
        same_rows = old is not None and new is not None and np.array_equal(old.indices, new.indices)
        self.rows_changed(None if same_rows else 0)  # a new answer opens at its first row

    def watch_hidden(self) -> None:
        if self.data is not None:
            self._widths = self._measure(self.data)
        self._relayout()
        self._lines.clear()  # every row is laid out anew, not only the header
        self.refresh()

    def cursor_moved(self) -> None:
        self.post_message(self.Highlighted(self.current_spec))

    def select_spec(self, spec: int) -> None:
        """Put the cursor on `spec` when the table shows it."""
        if self.data is not None:
            shown = self.data.find.rows if self.data.find is not None else self.data.indices
            rows = np.flatnonzero(shown == spec)
            if len(rows):
                self.cursor = int(rows[0])

    def _columns(self) -> tuple[Column, ...]:
        """The columns not hidden, but none that every row has alike: the common line says those once."""
        data = self.data
        alike: set[str] = set()
        if data is not None and len(data.indices) > 1:
            alike = set(data.common.values) | ({"package"} if data.common.package else set())
        if data is None or not data.common.variants_vary:
            alike.add("differs")  # it would be empty in every row
        if data is not None and data.package is not None:
            alike.add("package")
        if data is None or data.comparison is None:
            alike.add("change")
        if data is None or not _some_not_installable(data):
            alike.add("installable")  # marked only where some row needs a build
        return tuple(c for c in COLUMNS if c.key not in self.hidden and c.key not in alike)

    def _measure(self, rows: SpecRows) -> dict[str, int]:
        """Column widths from the values on display (sampled when there are very many).

        A column whose sampled cells are all one value, or all unknown, is noted: it gives way first.
        """
        sample = _sample(rows)
        widths = {}
        alike = set()
        self._longest = {}
        for column in self._columns():
            if column.min_width == column.max_width:  # fixed: nothing to measure (the change marks)
                widths[column.key] = column.min_width
                continue
            getter = self._getters[column.key]
            cells = {inert(getter(int(i))) for i in sample}
            if len(sample) > 1 and (len(cells) <= 1 or cells <= UNKNOWN_CELLS):
                alike.add(column.key)
            longest = max((cell_len(cell) for cell in cells), default=0)
            if column.flexible:
                self._longest[column.key] = longest
            widths[column.key] = max(column.min_width, min(column.max_width, max(longest, len(column.title) + 1)))
        self._alike_sampled = frozenset(alike)
        wanted = sum(w + GAP for key, w in widths.items() if key not in alike) + 1  # and the scrollbar
        if wanted != self._wanted:
            self._wanted = wanted
            self.post_message(self.WidthWanted(wanted))
        return widths

    def _priority(self, column: Column) -> int:
        """Lower stays longer. Alike columns give way first; a varying tag keeps two listings of one binary apart."""
        priority = column.priority
        if column.key == "tag" and self.data is not None and "tag" not in self.data.common.values:
            priority = 0
        return priority + (GIVES_WAY if column.key in self._alike_sampled else 0)

    def on_resize(self) -> None:
        super().on_resize()
        self._relayout()

    def _relayout(self) -> None:
        """Choose the columns that fit, by priority: each takes its full width while it fits; a flexible
        one takes what is left (down to its minimum, cut cells marked …). Spare room widens the flexible
        column to its longest sampled cell before a column alike in every row may have any."""
        width = self.content_width
        chosen: dict[str, int] = {}
        used = 0
        columns = self._columns()
        ranked = sorted(columns, key=self._priority)
        informative = [c for c in ranked if c.key not in self._alike_sampled]
        for column in informative + [c for c in ranked if c.key in self._alike_sampled]:
            full = self._widths.get(column.key, column.min_width)
            if column.key in self._alike_sampled and chosen:  # only into room nothing informative wants
                wanted = sum(self._longest.get(k, w) - w for k, w in chosen.items() if k in self._longest)
                if used + wanted + full + GAP > width:
                    continue
            if used + full + GAP <= width or not chosen:
                chosen[column.key] = full
            elif column.flexible and width - used - GAP >= column.min_width:
                chosen[column.key] = width - used - GAP
            else:
                continue
            used += chosen[column.key] + GAP
        layout = [(c, chosen[c.key]) for c in columns if c.key in chosen]
        if layout:  # spare room goes to the first flexible column (differs says more), else the last
            spare = width - sum(w + GAP for _, w in layout)
            at = next((i for i, (c, _) in enumerate(layout) if c.flexible), len(layout) - 1)
            column, column_width = layout[at]
            layout[at] = (column, max(1, column_width + spare + (GAP if at == len(layout) - 1 else 0)))
        self._layout = layout

    @property
    def squeezed(self) -> frozenset[str]:
        """Columns chosen to show that the table has no room for now."""
        shown = {c.key for c, _ in self._layout}
        return frozenset(c.key for c in self._columns() if c.key not in shown)

    def header_text(self, y: int, width: int) -> Text:
        if y == 1 and self.data is not None and self.data.find is not None:
            return Text(fit("spack find -lv  (l: columns, ←/→: scroll)", width))
        return self._column_titles() if y == 1 else self._slid(common_text(self.data), width)

    def _slid(self, text: Text, width: int) -> Text:
        """`text` scrolled sideways by x_offset, a cut at either end marked (‹ on the left, … on the right)."""
        text = text[self.x_offset:] if self.x_offset else text.copy()
        if text.cell_len > width:
            text.truncate(max(0, width - 1), overflow="crop")
            text.append("…", "dim")
        if self.x_offset and len(text):
            text = Text.assemble(("‹", "dim"), text[1:])
        return text

    def scroll_sideways(self, delta: int) -> None:
        """Left/Right: slide the common line (and the find view's lines) to show what is cut."""
        offset = max(0, min(self.x_offset + delta, self._longest_line() - self.content_width + 1))
        if offset != self.x_offset:
            self.x_offset = offset
            self._lines.clear()
            self.refresh()

    def _longest_line(self) -> int:
        if self.data is None:
            return 0
        longest = common_text(self.data).cell_len
        if self.data.find is not None:
            top = int(self.scroll_offset.y)
            for row in range(top, min(self.row_count, top + self.size.height)):
                longest = max(longest, len(self.data.find.line(row).text) + 2)
        return longest

    def _column_titles(self) -> Text:
        sorted_style = self.get_component_rich_style("spec-table--sorted")
        text = Text()  # render_line styles the whole header strip, padding included
        data = self.data
        for column, col_width in self._layout:
            title = column.title
            is_sorted = data is not None and data.sort_column == column.key
            if data is not None and is_sorted:
                title += " ▼" if data.descending else " ▲"
            text.append(fit(title, col_width, pad=True), sorted_style if is_sorted else None)
            text.append(" " * GAP)
        return text

    def row_text(self, row: int, width: int) -> Text:
        assert self.data is not None
        if self.data.find is not None:
            line = self.data.find.line(row)
            text = Text(inert(line.text), "bold" if line.header else "")
            if self.data.comparison is not None and line.spec is not None:  # comparing: the mark leads the line
                shown, style = self._change_mark(line.spec)
                text = Text.assemble((shown[:1] + " ", style), text)
            return self._slid(text, width)
        spec = int(self.data.indices[row])
        text = Text()
        for column, col_width in self._layout:
            if column.key == "change":
                shown, style = self._change_mark(spec)
                text.append(fit(shown, col_width, pad=True), style)
            else:
                text.append(fit(inert(self._getters[column.key](spec)), col_width, pad=True))
            text.append(" " * GAP)
        return text

    def _change_mark(self, spec: int) -> tuple[str, str]:
        """`+ added`, `− removed` or `= kept` and its style; blank outside compare mode."""
        comparison = self.data.comparison if self.data is not None else None
        return CHANGE_TEXT[comparison.mark_of(spec) if comparison is not None else ""]

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if y == 1:  # the column titles keep their own background across the whole width
            return strip.apply_style(self.get_component_rich_style("spec-table--header"))
        return strip

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("sort_next", "sort_reverse"):  # the find view orders rows as Spack does
            return self.data is None or self.data.find is None
        return True

    def action_scroll_sideways(self, direction: int) -> None:
        self.scroll_sideways(direction * SCROLL_STEP)

    def action_select(self) -> None:
        spec = self.current_spec
        if spec is not None:
            self.post_message(self.Selected(spec))

    def action_sort_next(self) -> None:
        shown = [c.key for c, _ in self._layout] or [c.key for c in self._columns()]
        keys = [key for key in shown if key in SORT_COLUMNS]  # not "change": it marks a row
        current = self.data.sort_column if self.data else None
        following = keys[(keys.index(current) + 1) % len(keys)] if current in keys else keys[0]
        self.post_message(self.SortRequested(following, following == "version"))

    def action_sort_reverse(self) -> None:
        if self.data is not None and self.data.sort_column:
            self.post_message(self.SortRequested(self.data.sort_column, not self.data.descending))

    def on_click(self, event: events.Click) -> None:
        if event.y == 1 and self.check_action("sort_next", ()):
            column = self._column_at(event.x)
            if column in SORT_COLUMNS:  # not "change": it marks a row, it is not a property of the spec
                data = self.data
                same = data is not None and data.sort_column == column
                self.post_message(self.SortRequested(column, data is not None and same and not data.descending))
            return
        row = self.row_at(event.y)
        if row is not None and self.selectable(row):  # not a header of the find view
            self.cursor = row

    def _column_at(self, x: int) -> str | None:
        left = 0
        for column, width in self._layout:
            if left <= x < left + width + GAP:
                return column.key
            left += width + GAP
        return None
