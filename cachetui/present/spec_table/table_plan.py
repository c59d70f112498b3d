"""Which columns the spec table shows at a width, and what each row's differs cell says.

The table's job is to let a user tell two binaries apart. `measure` reads an answer once (a sample
of its rows, in corpus order, when there are very many); `plan` then fits it to a width: it lays the
columns out by priority (`table_layout.lay_out`), and the differs column asks for the room its
widest key needs at that layout (`distinguish`: what tells each row from the rows of its package
that read alike in the columns shown), until that settles. Only when rows would then read alike with
no cut (…) to say so does a layout give up more. Pure: tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from rich.cells import cell_len

from cachetui.core.model.fields import REGISTRY, RegistryView
from cachetui.present.fit import fit
from cachetui.present.inert import inert
from cachetui.present.spec_table.distinguish import Distinguishing
from cachetui.present.spec_table.separate import alike_pairs
from cachetui.present.spec_table.siblings import Siblings
from cachetui.present.spec_table.table_cells import Getter, SpecRows, cell_getters, cut_cells, some_not_installable
from cachetui.present.spec_table.table_keys import column_numbers
from cachetui.present.spec_table.table_layout import COLUMN, COLUMNS, GAP, Column, Fill, Layout, lay_out

SAMPLE_ROWS = 400  # an answer is measured over this many rows spread over it
RUN = 8  # ... taken in runs of neighbours (`sample`)
UNKNOWN_CELLS = frozenset({"", "-", "?"})  # a column of only these says nothing about any row
TRIES = 4  # layouts tried as the differs column asks for more room
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
        alike.add("differs")  # nothing to tell apart
    if rows.package is not None:
        alike.add("package")
    if rows.comparison is None:
        alike.add("change")
    if not some_not_installable(rows):
        alike.add("installable")  # marked only where some row needs a build
    return tuple(c for c in COLUMNS if c.key not in hidden and c.key not in alike)


def sample(rows: SpecRows) -> list[int]:
    """Up to SAMPLE_ROWS rows of the answer in runs of RUN rows spread over it, in corpus order.

    Corpus order keeps a sort flip measuring the same rows. Runs, not single rows: neighbours in corpus
    order are mostly binaries of one package that read alike, so the keys planned from the sample are as
    long as the keys painted (rows spread one by one over 500,000 meet no look-alike, plan an empty differs
    column, and the page painted then cuts every key beside a padded column).
    """
    ordered = np.sort(rows.indices)
    if len(ordered) <= SAMPLE_ROWS:
        return ordered.tolist()
    starts = np.linspace(0, len(ordered) - RUN, SAMPLE_ROWS // RUN).astype(np.int64)
    return np.unique(ordered[(starts[:, None] + np.arange(RUN)).reshape(-1)]).tolist()


@dataclass(frozen=True, eq=False)
class Measured:
    """An answer as a layout needs it, whatever the width: measured once per answer and choice of columns."""

    columns: tuple[Column, ...]  # what may show, in display order
    fills: dict[str, Fill]  # every column of `columns` but differs
    cells: dict[str, list[str]]  # per column but differs, the sampled rows' cells (inert)
    specs: list[int] = field(default_factory=list)  # the sampled rows
    telling_width: int = 0  # cells that show every column that tells rows apart (and the scrollbar)
    need: int = 0  # the widest key when every column that tells rows apart shows
    siblings: Siblings | None = None  # the answer's rows of each package, and what they share
    getters: dict[str, Getter] = field(default_factory=dict)
    identical: int = 0  # sampled pairs that are one binary listed twice alike (a hash in two documents of a tag)

    @property
    def rows(self) -> int:
        return len(self.specs)


@dataclass(frozen=True)
class Plan:
    layout: Layout = ()
    silent: int = 0  # sampled pairs of rows that read alike and show no cut (…) where they differ
    alike: int = 0  # sampled pairs of rows that read alike as laid out, cut cells or not
    cut: int = 0  # sampled cells cut (…) in the columns that tell rows apart

    @property
    def widths(self) -> dict[str, int]:
        return {column.key: width for column, width in self.layout}

    @property
    def score(self) -> tuple[int, int, int]:
        return self.silent, self.alike, self.cut


def measure(rows: SpecRows, hidden: frozenset[str], getters: dict[str, Getter] | None = None) -> Measured:
    """Cells of the sampled rows, each column's width, and what the keys need with every telling column shown."""
    getters = cell_getters(rows) if getters is None else getters
    columns = candidate_columns(rows, hidden)
    shown = sample(rows)
    cells = {c.key: [inert(getters[c.key](i)) for i in shown] for c in columns if c.key != "differs"}
    fills = {key: _fill(COLUMN[key], column_cells, rows) for key, column_cells in cells.items()}
    corpus = rows.corpus
    twice = [[corpus.hashes[i] for i in shown], *cells.values(), [" ".join(corpus.raw_variants(i)) for i in shown]]
    measured = Measured(columns, fills, cells, shown, getters=getters, identical=_pairs(twice, len(shown)))
    if not any(c.key == "differs" for c in columns):
        return replace(measured, telling_width=_telling_width(fills.values(), 0))
    measured = replace(measured, siblings=Siblings(rows))
    trial = _Trial(measured, 0)
    if not trial.need({}) and len(shown) == len(rows.indices):
        # Every row read, and none reads as another even with no column shown: the cell would always be empty.
        return replace(measured, columns=tuple(c for c in columns if c.key != "differs"),
                       telling_width=_telling_width(fills.values(), 0))
    everything = {key: fill.width for key, fill in fills.items() if not fill.alike}
    need = trial.need(everything)
    return replace(measured, telling_width=_telling_width(fills.values(), need), need=need)


def measured_for(rows: SpecRows, hidden: frozenset[str]) -> Measured:
    """`measure(rows, hidden)`, once per rows and hidden columns: a big answer's worker works it out beside the
    answer, and the table that shows the rows only lays them out in its frame."""
    found = rows.measured.get(hidden)
    if not isinstance(found, Measured):
        found = rows.measured.setdefault(hidden, measure(rows, hidden))  # the first one made, if two were
    assert isinstance(found, Measured)
    return found


def plan(measured: Measured, room: int) -> Plan:
    """The columns for `room` cells.

    Columns by priority, each while it fits: differs in its turn asks for what its widest key needs at
    that layout, and grows into room the columns that tell rows apart leave, before a column alike in
    every row has any. Only when rows would then read alike with no cut to say so does a layout give
    up more: flexible columns cut to their least, a column left out (its value then said in the keys);
    the one that leaves the fewest such rows, then the fewest rows alike at all, wins. The hash, the
    package and a varying tag never give way; the version only to rows with no mark.
    """
    trial = _Trial(measured, room)
    others = [measured.fills[c.key] for c in measured.columns if c.key in measured.fills]
    if "differs" not in (c.key for c in measured.columns):
        return trial.judged(lay_out(others, room))
    chosen = trial.settle(others)
    if not chosen.silent and not chosen.cut:
        return chosen
    best = chosen
    cut = [replace(f, width=_least(f), longest=max(f.longest, f.width)) if f.column.flexible else f for f in others]
    squeezed = trial.settle(cut)
    if squeezed.score < best.score:
        best, others = squeezed, cut
    for fill in sorted(others, key=lambda f: -f.turn):
        if not best.silent:
            break
        if fill.column.key in best.widths and fill.turn > 0:  # what names a binary stays (a varying tag too)
            fewer = [f for f in others if f is not fill]
            without = trial.settle(fewer)
            if without.score < best.score if fill.turn > 1 else without.silent < best.silent:
                best, others = without, fewer  # left out for good: the next try gives up one more
    return best


def differs_getter(rows: SpecRows, getters: dict[str, Getter], chosen: Plan,
                   siblings: Siblings | None = None) -> Getter:
    """The differs cell of any row at `chosen`'s layout: its key (`siblings`: what `measure` worked out, kept)."""
    siblings = Siblings(rows) if siblings is None else siblings
    return Distinguishing(rows, siblings, getters, chosen.widths).key


def _least(fill: Fill) -> int:
    """What a flexible column is cut to when short of room; a package name keeps up to PACKAGE_KEPT cells."""
    return min(fill.width, PACKAGE_KEPT) if fill.column.key == "package" else fill.column.min_width


# -- measuring -------------------------------------------------------------------------


def _fill(column: Column, cells: list[str], rows: SpecRows) -> Fill:
    if column.min_width == column.max_width:  # fixed: nothing to measure (the change marks)
        return Fill(column, column.min_width)
    distinct = set(cells)
    longest = max(_longest_held(column.key, rows), *(cell_len(cell) for cell in distinct), 0)
    width = max(column.min_width, min(column.max_width, max(longest, len(column.title) + 1)))
    alike = len(cells) > 1 and (len(distinct) <= 1 or distinct <= UNKNOWN_CELLS)
    # A varying tag keeps two listings of one binary apart: it stays with the columns that must.
    turn = 0 if column.key == "tag" and "tag" not in rows.common.values else None
    # Room left over grows a column to its longest cell before it pads any: no cell is cut beside blank room.
    return Fill(column, width, longest, alike, turn)


def _longest_held(key: str, rows: SpecRows) -> int:
    """The widest value a column of values (a facet's, the package's) holds in the whole answer, not the sample."""
    corpus = rows.corpus
    numbers = column_numbers(corpus, key)
    if numbers is None or key == "size" or not len(rows.indices):
        return 0
    values = corpus.packages if key == "package" else corpus.vocab[key].values if key in corpus.vocab else None
    if values is None or len(values) != int(numbers.max(initial=-1)) + 1:
        return 0  # numbers that are not a vocabulary's (a multi-valued column's sums)
    return max(cell_len(inert(values[int(v)])) for v in np.unique(numbers[rows.indices]))


def _telling_width(fills: Iterable[Fill], differs: int) -> int:
    return sum(f.width + GAP for f in fills if not f.alike) + (differs + GAP if differs else 0) + 1  # and the scrollbar


def _groups(columns: Sequence[Sequence[str]], rows: int) -> np.ndarray:
    """One number per row, equal for rows whose cells in `columns` are all equal."""
    seen: dict[tuple[str, ...], int] = {}
    return np.array([seen.setdefault(cells, len(seen)) for cells in zip(*columns)] if columns else [0] * rows,
                    dtype=np.int64)


def _pairs(columns: Sequence[Sequence[str]], rows: int) -> int:
    return int(alike_pairs(_groups(columns, rows)[:, None])[0])


# -- choosing --------------------------------------------------------------------------


class _Trial:
    """Layouts of one measured answer at one width, judged by the rows they leave reading alike."""

    def __init__(self, measured: Measured, room: int) -> None:
        self.measured, self.room = measured, room
        # Tries share visible columns: each one's cells and keys are worked out once per trial.
        self._fitted: dict[tuple[str, int], list[str]] = {}
        self._keys: dict[tuple[tuple[str, int], ...], list[str]] = {}

    def settle(self, others: list[Fill]) -> Plan:
        """Lay out `others` and differs, differs asking for what its widest key needs, until that settles."""
        measured = self.measured
        best: Plan | None = None
        column = COLUMN["differs"]
        need = measured.need
        order = [c.key for c in measured.columns]
        for _ in range(TRIES):
            # At least its title: an empty cell beside a whole title says nothing reads alike there.
            width = max(column.min_width, len(column.title), min(need, column.max_width))
            differs = Fill(column, width, longest=max(need, width))
            layout = lay_out(sorted([*others, differs], key=lambda f: order.index(f.column.key)), self.room)
            tried = self.judged(layout)
            if best is None or tried.score < best.score:
                best = tried
            following = self.need(tried.widths)
            if following == need or not tried.alike:
                break
            need = following
        assert best is not None
        return best

    def judged(self, layout: Layout) -> Plan:
        """`layout`, and the sampled pairs it leaves reading alike (with no cut to say so, and at all)."""
        measured = self.measured
        widths = {c.key: w for c, w in layout}
        full = [measured.cells[key] for key in widths if key in measured.cells and key not in NOT_TELLING]
        shown = self._shown(widths)
        if "differs" in widths:
            keys = self.keys(widths)
            full.append(keys)
            shown.append([fit(key, widths["differs"]) for key in keys])
        cut = sum(cell != whole for cells, wholes in zip(shown, full) for cell, whole in zip(cells, wholes))
        # Rows alike in every full cell shown read alike with no cut to say so: their difference has no room (one
        # binary listed twice alike has none, and counts against no layout).
        identical = measured.identical
        return Plan(layout, _pairs(full, measured.rows) - identical, _pairs(shown, measured.rows) - identical, cut)

    def keys(self, widths: dict[str, int]) -> list[str]:
        """The sampled rows' keys when the columns of `widths` show."""
        shown = tuple(sorted((key, width) for key, width in widths.items() if key != "differs"))
        if shown not in self._keys:
            measured = self.measured
            assert measured.siblings is not None
            rows = measured.siblings.rows
            # Planned against the look-alikes in the sample (painted: all of them): each row's values are read once.
            distinguishing = Distinguishing(rows, measured.siblings, measured.getters, dict(shown),
                                            among=np.asarray(measured.specs, dtype=np.int64))
            self._keys[shown] = [distinguishing.key(spec) for spec in measured.specs]
        return self._keys[shown]

    def need(self, widths: dict[str, int]) -> int:
        """The widest sampled key when the columns of `widths` show."""
        return max((cell_len(key) for key in self.keys(widths)), default=0)

    def _shown(self, widths: dict[str, int]) -> list[list[str]]:
        """Per column shown (but hash and differs), the sampled rows' cells as they show at their width."""
        shown = []
        for key, width in widths.items():
            if key in self.measured.cells and key not in NOT_TELLING:
                if (key, width) not in self._fitted:
                    self._fitted[key, width] = cut_cells(key, self.measured.cells[key], width)
                shown.append(self._fitted[key, width])
        return shown
