"""Which columns the spec table shows at a width, and what its differs column leads with.

The table's job is to let a user tell two binaries apart. `measure` reads an answer once (a sample
of its rows when there are very many); `plan` then fits it to a width: it lays the columns out by
priority (`table_layout.lay_out`), sees which rows still look alike in what those columns show, and
lets the differs column lead with the fewest variants that tell them apart (`separate.separating`).
Only when rows would look alike with no cut (…) to say so are other layouts tried; rows of the whole
answer alike in full are found by `table_keys`. Pure: tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from rich.cells import cell_len

from cachetui.core.model.fields import REGISTRY, RegistryView
from cachetui.core.spack.hashes import hash_reference
from cachetui.present.fit import fit
from cachetui.present.inert import inert
from cachetui.present.spec_table.separate import alike_pairs, evenness, separating
from cachetui.present.spec_table.siblings import Siblings
from cachetui.present.spec_table.table_cells import (
    SPELLING,
    Getter,
    SpecRows,
    cell_getters,
    cut_cells,
    differs_text,
    some_not_installable,
)
from cachetui.present.spec_table.table_keys import Keys, keyed, row_keys, still_alike, varying_dependencies
from cachetui.present.spec_table.table_layout import COLUMN, COLUMNS, GAP, Column, Fill, Layout, lay_out

SAMPLE_ROWS = 400  # an answer is measured over this many rows spread over it
UNKNOWN_CELLS = frozenset({"", "-", "?"})  # a column of only these says nothing about any row
DIFFERS_AT_LEAST = 16  # cells the differs column asks for even when fewer tell the rows apart
TRIES = 4  # layouts tried as the differs column asks for more room
# A differs column with no variant to say, only columns with no room, takes its turn after these (the
# os's turn: before the os, the size, the platform and the stacks, which it then says).
SPELLED_TURN = COLUMN["os"].priority
# Columns that tell every row apart and say nothing about any (a hash): never what tells rows apart. (The
# differs column is never among the measured cells: it is made of them.)
NOT_TELLING = RegistryView(lambda: REGISTRY.columns_marked("opaque"))
PACKAGE_KEPT = 14  # a package name keeps this many cells when others are cut: most names whole, the rest legible


def candidate_columns(rows: SpecRows, hidden: frozenset[str]) -> tuple[Column, ...]:
    """The columns not hidden, but none that every row has alike: the common line says those once."""
    alike: set[str] = set()
    if len(rows.indices) > 1:
        alike = set(rows.common.values) | ({"package"} if rows.common.package else set())
    if len(rows.indices) < 2:
        alike.add("differs")  # nothing to tell apart (the plan leaves it out too when it would be empty)
    if rows.package is not None:
        alike.add("package")
    if rows.comparison is None:
        alike.add("change")
    if not some_not_installable(rows):
        alike.add("installable")  # marked only where some row needs a build
    return tuple(c for c in COLUMNS if c.key not in hidden and c.key not in alike)


def sample(rows: SpecRows) -> list[int]:
    step = max(1, len(rows.indices) // SAMPLE_ROWS)
    return rows.indices[::step][:SAMPLE_ROWS].tolist()


@dataclass(frozen=True, eq=False)
class Measured:
    """An answer as a layout needs it, whatever the width: measured once per answer and choice of columns."""

    columns: tuple[Column, ...]  # what may show, in display order
    fills: dict[str, Fill]  # every column of `columns` but differs
    cells: dict[str, list[str]]  # per column but differs, the sampled rows' cells (inert)
    variants: list[dict[str, str]] = field(default_factory=list)  # per sampled row, its differing variants
    names: tuple[str, ...] = ()  # the differing variant names, the one that splits the rows most evenly first
    values: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))  # rows x names, 0: none
    differs_longest: int = 0  # the widest differs cell
    telling_width: int = 0  # cells that show every column that tells rows apart (and the scrollbar)
    need: int = 0  # what the differs cells' leading variants need when every column that tells rows apart shows
    keys: Keys = field(default_factory=dict)  # per column, a number per row of the whole answer
    siblings: Siblings | None = None  # what each row's package shares in the answer (differs leaves it out)
    identical: int = 0  # sampled pairs of rows alike in every cell: nothing but their hash can tell them apart
    specs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # the rows `keys` numbers

    @property
    def rows(self) -> int:
        return len(next(iter(self.cells.values()), self.variants))


@dataclass(frozen=True)
class Plan:
    layout: Layout = ()
    lead: tuple[str, ...] = ()  # variants that tell apart rows the other columns shown leave alike, in order
    columns: tuple[str, ...] = ()  # columns with no room whose values still tell rows apart: said in differs
    order: dict[str, int] = field(default_factory=dict)  # variant names: the lead, then by evenness
    silent: int = 0  # sampled pairs of rows that look alike and show no cut (…) where they differ
    alike: int = 0  # sampled pairs of rows that look alike as laid out, cut cells or not
    dependencies: tuple[str, ...] = ()  # with "dependencies" among `columns`: the direct dependencies it names

    @property
    def widths(self) -> dict[str, int]:
        return {column.key: width for column, width in self.layout}

    @property
    def score(self) -> tuple[int, int]:
        return self.silent, self.alike


def measure(rows: SpecRows, hidden: frozenset[str], getters: dict[str, Getter] | None = None) -> Measured:
    """Cells of the sampled rows, each column's width, and which columns are alike in every sampled row."""
    getters = cell_getters(rows) if getters is None else getters
    columns = candidate_columns(rows, hidden)
    shown = sample(rows)
    cells = {c.key: [inert(getters[c.key](i)) for i in shown] for c in columns if c.key != "differs"}
    fills = {key: _fill(COLUMN[key], column_cells, rows) for key, column_cells in cells.items()}
    if not any(c.key == "differs" for c in columns):
        return Measured(columns, fills, cells, telling_width=_telling_width(fills.values(), 0))
    siblings = Siblings(rows)
    variants = [siblings.variants(i) for i in shown]
    names, values = _numbered(variants)
    measured = Measured(columns, fills, cells, variants, names, values,
                        max((cell_len(" ".join(v.values())) for v in variants), default=0), siblings=siblings)
    trial = _Trial(measured, 0)
    everything = {key: fill.width for key, fill in fills.items() if not fill.alike}
    need = max(trial.need(trial.lead(everything)[0], ()), min(measured.differs_longest, DIFFERS_AT_LEAST))
    telling = [column for key, column in cells.items() if key not in NOT_TELLING]
    identical = _pairs([*telling, [" ".join(sorted(v.values())) for v in variants]], len(shown))
    return replace(measured, telling_width=_telling_width(fills.values(), need), need=need, keys=row_keys(rows),
                   identical=identical, specs=keyed(rows))


def plan(measured: Measured, room: int) -> Plan:
    """The columns for `room` cells, and what the differs column leads with.

    Columns by priority, each while it fits: differs in its turn asks for what its leading variants
    would need were every column shown (up to its usual width), and grows into room the columns that
    tell rows apart leave, before a column alike in every row has any. Only when rows would then
    look alike with no cut to say so does a layout give up more: differs asking for all it needs,
    flexible columns cut to their least, a column left out (its value then said in the differs
    cell); the one that leaves the fewest such rows, then the fewest rows alike at all, wins. The
    hash, the package and a varying tag never give way; the version only to rows with no mark.
    """
    trial = _Trial(measured, room)
    others = [measured.fills[c.key] for c in measured.columns if c.key in measured.fills]
    if "differs" not in (c.key for c in measured.columns):
        return trial.judged(lay_out(others, room))
    if not measured.differs_longest:  # no variant tells siblings apart: differs could only say columns with no room
        bare = trial.judged(lay_out(others, room))
        if _nothing_to_say(measured, trial, bare):
            return bare
    chosen = trial.settle(others, 1)
    if not chosen.silent:
        return _whole(measured, chosen)
    best = trial.settle(others, TRIES)
    cut = [replace(f, width=_least(f), longest=max(f.longest, f.width)) if f.column.flexible else f for f in others]
    squeezed = trial.settle(cut, TRIES)
    if squeezed.score < best.score:
        best, others = squeezed, cut
    for fill in sorted(others, key=lambda f: -f.turn):
        if not best.silent:
            break
        if fill.column.key in best.widths and fill.turn > 0:  # what names a binary stays (a varying tag too)
            fewer = [f for f in others if f is not fill]
            without = trial.settle(fewer, 2)
            if without.score < best.score if fill.turn > 1 else without.silent < best.silent:
                best, others = without, fewer  # left out for good: the next try gives up one more
    return _whole(measured, best if best.silent < chosen.silent else chosen)


def _least(fill: Fill) -> int:
    """What a flexible column is cut to when short of room; a package name keeps up to PACKAGE_KEPT cells."""
    return min(fill.width, PACKAGE_KEPT) if fill.column.key == "package" else fill.column.min_width


def _nothing_to_say(measured: Measured, trial: _Trial, bare: Plan) -> bool:
    """Whether the columns of `bare` (no differs column) leave no rows alike that a column with no room tells apart."""
    variants, columns = trial.lead(bare.widths)
    if variants or columns:
        return False
    shown = [key for key in bare.widths if key != "hash"]
    return not still_alike(measured.keys, shown, [key for key in SPELLING if key not in shown])


def _whole(measured: Measured, chosen: Plan) -> Plan:
    """`chosen`, its differs cell also saying the columns with no room that tell apart rows of the whole answer
    (not only of the sample) that are alike in full in every column shown."""
    if "differs" not in chosen.widths or not measured.keys:
        return chosen
    shown = [key for key in chosen.widths if key != "hash"] + list(chosen.columns)
    missing = [key for key in SPELLING if key not in shown]
    columns = chosen.columns + tuple(still_alike(measured.keys, shown, missing))
    dependencies: tuple[str, ...] = ()
    if "dependencies" in columns and measured.siblings is not None:
        dependencies = varying_dependencies(measured.siblings.rows.corpus, measured.specs, measured.keys)
    return replace(chosen, columns=columns, dependencies=dependencies)


def differs_getter(rows: SpecRows, getters: dict[str, Getter], chosen: Plan,
                   siblings: Siblings | None = None) -> Getter:
    """The differs cell of any row, as `chosen` orders it (`siblings`: what `measure` worked out, kept)."""
    siblings = Siblings(rows) if siblings is None else siblings
    getters = getters | {"dependencies": _dependencies_getter(rows, chosen.dependencies)}
    spelled = [(SPELLING[key], getters[key]) for key in chosen.columns]
    lead = len(chosen.lead)

    def differs(i: int) -> str:
        columns = tuple(spelling.format(inert(get(i))) for spelling, get in spelled)
        return differs_text(siblings.variants(i), chosen.order, lead, columns)

    return differs


def _dependencies_getter(rows: SpecRows, names: tuple[str, ...]) -> Getter:
    """A row's direct dependencies named `names`, in spec syntax: `^zlib@1.3.1/abc1234`."""
    dependencies, chosen = rows.corpus.dependencies, set(names)

    def spelled(i: int) -> str:
        return " ".join("^" + (f"{edge.name}@{edge.version}" if edge.version else edge.name) + hash_reference(edge.hash)
                        for edge in dependencies(i) if edge.name in chosen)

    return spelled


# -- measuring -------------------------------------------------------------------------


def _fill(column: Column, cells: list[str], rows: SpecRows) -> Fill:
    if column.min_width == column.max_width:  # fixed: nothing to measure (the change marks)
        return Fill(column, column.min_width)
    distinct = set(cells)
    longest = max((cell_len(cell) for cell in distinct), default=0)
    width = max(column.min_width, min(column.max_width, max(longest, len(column.title) + 1)))
    alike = len(cells) > 1 and (len(distinct) <= 1 or distinct <= UNKNOWN_CELLS)
    # A varying tag keeps two listings of one binary apart: it stays with the columns that must.
    turn = 0 if column.key == "tag" and "tag" not in rows.common.values else None
    return Fill(column, width, longest if column.key == "variants" else 0, alike, turn)


def _telling_width(fills: Iterable[Fill], differs: int) -> int:
    return sum(f.width + GAP for f in fills if not f.alike) + (differs + GAP if differs else 0) + 1  # and the scrollbar


def _numbered(variants: list[dict[str, str]]) -> tuple[tuple[str, ...], np.ndarray]:
    """Variant names ordered by how evenly they split the rows (then by name), and each row's values as numbers."""
    names = sorted({name for row in variants for name in row})
    values = _numbers([[row.get(name) for name in names] for row in variants], len(names))
    even = evenness(values)
    order = sorted(range(len(names)), key=lambda j: (-even[j], names[j]))
    return tuple(names[j] for j in order), values[:, order]


def _numbers(rows: Sequence[Sequence[str | None]], width: int) -> np.ndarray:
    """Texts as numbers, per column: equal texts, equal numbers; None (no such value) is 0."""
    values = np.zeros((len(rows), width), dtype=np.int64)
    for j in range(width):
        seen: dict[str, int] = {}
        for r, row in enumerate(rows):
            text = row[j]
            if text is not None:
                values[r, j] = seen.setdefault(text, len(seen) + 1)
    return values


def _groups(columns: Sequence[Sequence[str]], rows: int) -> np.ndarray:
    """One number per row, equal for rows whose cells in `columns` are all equal."""
    seen: dict[tuple[str, ...], int] = {}
    return np.array([seen.setdefault(cells, len(seen)) for cells in zip(*columns)] if columns else [0] * rows,
                    dtype=np.int64)


def _pairs(columns: Sequence[Sequence[str]], rows: int) -> int:
    return int(alike_pairs(_groups(columns, rows)[:, None])[0])


# -- choosing --------------------------------------------------------------------------


class _Trial:
    """Layouts of one measured answer at one width, judged by the rows they leave looking alike."""

    def __init__(self, measured: Measured, room: int) -> None:
        self.measured, self.room = measured, room
        # Tries share visible columns and leads: each is worked out once per trial.
        self._fitted: dict[tuple[str, int], list[str]] = {}
        self._leads: dict[tuple[tuple[str, int], ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._texts: dict[tuple[tuple[str, ...], tuple[str, ...]], tuple[list[str], int]] = {}
        ranks = {name: rank for rank, name in enumerate(measured.names)}
        self._ranked = [sorted(row, key=ranks.__getitem__) for row in measured.variants]

    def settle(self, others: list[Fill], tries: int) -> Plan:
        """Lay out `others` and differs, differs asking for what its leading variants need, until that settles."""
        measured = self.measured
        best: Plan | None = None
        column, turn, longest = COLUMN["differs"], None, measured.differs_longest
        least = min(longest, DIFFERS_AT_LEAST)
        if not least:  # no variant to say, only columns with no room: after the columns that name a binary
            least, turn, longest = DIFFERS_AT_LEAST, SPELLED_TURN, column.max_width
            column = replace(column, min_width=least)
        need = min(measured.need, column.max_width)  # first as much as it usually takes
        order = [c.key for c in measured.columns]
        for _ in range(tries):
            differs = Fill(column, max(need, least), longest=max(need, longest), priority=turn)
            layout = lay_out(sorted([*others, differs], key=lambda f: order.index(f.column.key)), self.room)
            lead, columns = self.lead({c.key: w for c, w in layout if c.key != "differs"})
            tried = self.judged(layout, lead, columns)
            if best is None or tried.score < best.score:
                best = tried
            following = max(self._differs(lead, columns)[1], least)
            if following == need or not tried.alike:
                break
            need = following
        assert best is not None
        return best

    def judged(self, layout: Layout, lead: tuple[str, ...] = (), columns: tuple[str, ...] = ()) -> Plan:
        """`layout` with the differs column led by `lead` (then `columns`), and the pairs it leaves alike."""
        measured = self.measured
        order = {name: rank for rank, name in enumerate([*lead, *(n for n in measured.names if n not in lead)])}
        widths = {c.key: w for c, w in layout}
        full = [measured.cells[key] for key in widths if key in measured.cells and key not in NOT_TELLING]
        shown = self._shown(widths)
        if "differs" in widths:
            texts = self._differs(lead, columns)[0]
            full.append(texts)
            shown.append([fit(text, widths["differs"]) for text in texts])
        # Rows alike in every full cell shown look alike with no cut to say so: their difference has no room
        # (rows alike in every cell have none, and count against no layout).
        identical = measured.identical
        return Plan(layout, lead, columns, order, _pairs(full, measured.rows) - identical,
                    _pairs(shown, measured.rows) - identical)

    def lead(self, widths: dict[str, int]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The variants, then the columns with no room, that tell apart what the columns in `widths` leave alike."""
        key = tuple(sorted(widths.items()))
        if key not in self._leads:
            measured, rows = self.measured, self.measured.rows
            chosen, group = separating(_groups(self._shown(widths), rows), measured.values)
            fills = measured.fills
            missing = [k for k in SPELLING if k in fills and k not in widths and not fills[k].alike]
            spelled = _numbers([[measured.cells[k][r] for k in missing] for r in range(rows)], len(missing))
            columns, _ = separating(group, spelled)
            self._leads[key] = tuple(measured.names[j] for j in chosen), tuple(missing[j] for j in columns)
        return self._leads[key]

    def need(self, lead: tuple[str, ...], columns: tuple[str, ...]) -> int:
        """The width of the widest differs cell's leading part: what tells its row apart."""
        return self._differs(lead, columns)[1]

    def _differs(self, lead: tuple[str, ...], columns: tuple[str, ...]) -> tuple[list[str], int]:
        """The sampled rows' differs cells, and the width of the widest one's leading part."""
        if (lead, columns) not in self._texts:
            cells, leading = self.measured.cells, set(lead)
            texts, widest = [], 0
            for r, variants in enumerate(self.measured.variants):
                parts = [variants[name] for name in lead if name in variants]
                parts += [SPELLING[key].format(cells[key][r]) for key in columns]
                widest = max(widest, cell_len(" ".join(parts)))
                parts += [variants[name] for name in self._ranked[r] if name not in leading]
                texts.append(" ".join(parts))
            self._texts[lead, columns] = texts, widest
        return self._texts[lead, columns]

    def _shown(self, widths: dict[str, int]) -> list[list[str]]:
        """Per column shown (but hash and differs), the sampled rows' cells as they show at their width."""
        shown = []
        for key, width in widths.items():
            if key in self.measured.cells and key not in NOT_TELLING:
                if (key, width) not in self._fitted:
                    self._fitted[key, width] = cut_cells(key, self.measured.cells[key], width)
                shown.append(self._fitted[key, width])
        return shown
