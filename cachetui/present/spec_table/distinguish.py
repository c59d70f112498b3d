"""What tells a row of the spec table from the rows of its package that read alike: its distinguishing key.

Binaries of one package often read the same in the columns a width has room for. The differs cell of a
row says the fewest of its own values that no look-alike shares: a variant, a column with no room (in
spec syntax, `target=zen3`), a direct dependency (`^zlib@1.3/abc1234`). They are chosen greedily: first
the value that tells the row from the most look-alikes, then from the most of those left, and so on.
Values every look-alike shares never take room, and a row nothing reads alike with has an empty cell.
When no recorded value tells two rows apart, the cell says so (`same as /abc1234`): only what the
source does not record can.

Look-alikes are the answer's rows of the same package (not a sample) whose cells read the same in every
column shown, each value cut as its column shows it at its width: numpy over each column's numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import numpy as np

from cachetui.core.spack.hashes import hash_reference
from cachetui.present.fit import fit
from cachetui.present.inert import inert
from cachetui.present.spec_table.siblings import Siblings
from cachetui.present.spec_table.table_cells import SPELLING, Getter, SpecRows
from cachetui.present.spec_table.table_keys import column_numbers
from cachetui.present.spec_table.table_layout import COLUMN

SAME_AS = "same as {}"  # a look-alike no recorded value tells apart: `same as /abc1234`
# The kinds of value a key may say, in the order it says them and prefers them when two tell as many apart.
VARIANT, COLUMN_VALUE, DEPENDENCY = 0, 1, 2
DEPENDENCIES = "dependencies"  # the spelling of a dependency, not a column of its own


class Distinguishing:
    """Each row's key at one layout: `widths` are the columns shown (the differs column's own is not read).

    What does not depend on the layout (each spec's variants and dependencies as said, each column's cut
    numbers at a width) is kept on `siblings`, which lives as long as the answer: a plan tries many layouts.
    """

    def __init__(self, rows: SpecRows, siblings: Siblings, getters: Mapping[str, Getter],
                 widths: Mapping[str, int], among: np.ndarray | None = None) -> None:
        self.rows, self.siblings, self.getters = rows, siblings, getters
        self._shown = {key: width for key, width in widths.items()
                       if key in getters and key != "differs" and not COLUMN[key].opaque}
        self._hidden = [key for key in SPELLING if key != DEPENDENCIES and key in getters and key not in widths]
        self._among = among  # planning looks for look-alikes among these rows only (sorted: a sample); painting, all
        self._reading: dict[int, tuple[np.ndarray, np.ndarray, dict[tuple[int, str], np.ndarray]]] = {}
        self._groups: dict[tuple[int, int], _Group] = {}  # (package, how its rows read) -> the look-alikes
        self._keys: dict[int, str] = {}

    def key(self, spec: int) -> str:
        """The differs cell of `spec`: the fewest of its values no look-alike shares, then whom none tells apart."""
        if spec not in self._keys:
            package = int(self.rows.corpus.package_of[spec])
            members, reads, hidden = self._reads(package, spec)
            read = int(reads[np.searchsorted(members, spec)])
            if np.count_nonzero(reads == read) == 1:  # nothing reads as it does: nothing to say
                self._keys[spec] = ""
                return ""
            if (package, read) not in self._groups:
                at = np.flatnonzero(reads == read)
                self._groups[package, read] = self._group(members[at], {name: ids[at] for name, ids in hidden.items()})
            group = self._groups[package, read]
            self._keys[spec] = group.key(group.rows[spec])  # a row's alone: a page paints a few of a big group
        return self._keys[spec]

    def _group(self, alike: np.ndarray, columns: dict[tuple[int, str], np.ndarray]) -> _Group:
        specs = alike.tolist()
        said = [self.siblings.memo(("own", j), partial(self._own, j)) for j in specs]
        own = self.siblings.memo(("own numbers", tuple(specs)), partial(_numbered, said))
        return _Group(specs, [self.rows.corpus.hashes[j] for j in specs], own, columns, self._spelled, said)

    def _spelled(self, spec: int, key: str) -> str:
        return SPELLING[key].format(inert(self.getters[key](spec)))

    def _reads(self, package: int, spec: int) -> tuple[np.ndarray, np.ndarray, dict[tuple[int, str], np.ndarray]]:
        """Rows `spec` may read alike with (in corpus order), a number per row equal where they read alike, and
        the columns with no room as numbers per row (what a key may say of them, its text made only when said).

        Painting: the answer's rows of its package, each package worked out when first painted. Planning: the
        sample's rows of every package at once, the package itself a column (rows of two never read alike).
        """
        scope = -1 if self._among is not None else package
        if scope not in self._reading:
            corpus = self.rows.corpus
            if self._among is not None:
                members = self._among
                reads = corpus.package_of[members].astype(np.int64)
            else:
                members = self.siblings.members(spec)
                reads = np.zeros(len(members), dtype=np.int64)
            for key, width in self._shown.items():
                cut = self.siblings.memo(("cut", scope, key, width), partial(self._cut_numbers, key, width, members))
                reads = np.unique(reads * (int(cut.max(initial=0)) + 1) + cut, return_inverse=True)[1].reshape(-1)
            hidden = {}
            for key in self._hidden:
                numbers = column_numbers(corpus, key)
                texts = numbers[members] if numbers is not None else np.array(
                    [self.getters[key](int(j)) for j in members], dtype=object)
                hidden[COLUMN_VALUE, key] = np.unique(texts, return_inverse=True)[1].reshape(-1) + 1
            self._reading[scope] = members, reads, hidden
        return self._reading[scope]

    def _cut_numbers(self, key: str, width: int, members: np.ndarray) -> np.ndarray:
        """Per member, a number equal where its cell reads the same at `width` (cut as the column cuts it)."""
        numbers = column_numbers(self.rows.corpus, key)
        get = self.getters[key]
        if numbers is None:  # a column with no numbers of its own (compare's marks): its text
            texts = [get(int(j)) for j in members]
            _, first, inverse = np.unique(np.array(texts, dtype=object), return_index=True, return_inverse=True)
        else:
            _, first, inverse = np.unique(numbers[members], return_index=True, return_inverse=True)
        # A column cut in the middle never shows two values alike (`apart`): its whole text tells them apart.
        shown = [inert(get(int(members[k]))) for k in first]
        if not COLUMN[key].middle:
            shown = [fit(text, width) for text in shown]
        _, read = np.unique(np.array(shown, dtype=object), return_inverse=True)
        return read.reshape(-1)[inverse.reshape(-1)].astype(np.int64)

    def _own(self, spec: int) -> dict[tuple[int, str], str]:
        """`spec`'s variants its siblings do not all share, and its direct dependencies, whatever shows."""
        said = {(VARIANT, name): text for name, text in self.siblings.variants(spec).items()}
        corpus = self.rows.corpus
        if corpus.has_dependencies:
            for edge in corpus.dependencies(spec):
                version = f"@{edge.version}" if edge.version else ""
                said[DEPENDENCY, edge.name] = inert(f"^{edge.name}{version}{hash_reference(edge.hash)}")
        return said


class _Group:
    """Rows that read alike, as numbers: one column per value a key may say (0 where a row lacks it)."""

    def __init__(self, specs: list[int], hashes: list[str], own: tuple[list[tuple[int, str]], np.ndarray],
                 columns: dict[tuple[int, str], np.ndarray], spelled: Callable[[int, str], str],
                 said: list[dict[tuple[int, str], str]]) -> None:
        self.specs, self.hashes, self.spelled, self.said = specs, hashes, spelled, said
        self.rows = {spec: row for row, spec in enumerate(specs)}
        own_names, own_values = own
        self.names = [*own_names, *columns]
        self.values = np.column_stack([own_values, *columns.values()]) if columns else own_values
        order = sorted(range(len(self.names)), key=self.names.__getitem__)  # by kind, then name
        self.names = [self.names[j] for j in order]
        self.values = self.values[:, order]

    def key(self, row: int) -> str:
        """The greedy cover: the values of `row` that tell it from each other row, fewest first."""
        differs = self.values != self.values[row]
        others = np.ones(len(self.specs), dtype=bool)
        others[row] = False
        chosen: list[int] = []
        while others.any() and self.names:
            told = differs[others].sum(axis=0)
            best = int(np.argmax(told))  # the names are sorted by kind: a tie goes to a variant
            if not told[best]:
                break
            chosen.append(best)
            others &= ~differs[:, best]
        parts = [self._said(row, self.names[j]) for j in sorted(chosen)]
        if others.any():
            # The next such row after this one, round: each of several rows alike in all names another, so no
            # two cells read the same.
            alike = np.flatnonzero(others)
            after = alike[alike > row]
            parts.append(SAME_AS.format(hash_reference(self.hashes[int(after[0] if len(after) else alike[0])])))
        return " ".join(parts)


    def _said(self, row: int, name: tuple[int, str]) -> str:
        kind, text = name
        if kind == COLUMN_VALUE:
            return self.spelled(self.specs[row], text)
        return self.said[row].get(name) or _absent(name)


def _numbered(said: list[dict[tuple[int, str], str]]) -> tuple[list[tuple[int, str]], np.ndarray]:
    """The names rows say values for, and per row a number per name, equal where the values are (0: none)."""
    columns: dict[tuple[int, str], int] = {}
    ids: list[dict[str, int]] = []
    rows, cols, numbers = [], [], []
    for row, own in enumerate(said):
        for name, text in own.items():
            column = columns.setdefault(name, len(columns))
            if column == len(ids):
                ids.append({})
            rows.append(row)
            cols.append(column)
            numbers.append(ids[column].setdefault(text, len(ids[column]) + 1))
    values = np.zeros((len(said), len(columns)), dtype=np.int64)
    values[rows, cols] = numbers
    return list(columns), values


def _absent(name: tuple[int, str]) -> str:
    kind, text = name
    return f"no ^{text}" if kind == DEPENDENCY else f"no {text}"
