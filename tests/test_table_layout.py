"""The spec table's columns without a terminal: which fit a width, and what the differs column leads with."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from rich.text import Text

from cachetui.core.load.pipeline import load_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.interpret import interpret
from cachetui.core.query.query import Query
from cachetui.core.query.results import results_for
from cachetui.core.spack.specquery import parse_spec_query
from cachetui.present.fit import fit, wrapped
from cachetui.present.spec_table.separate import alike_pairs
from cachetui.present.spec_table.table_cells import SpecRows, cell_getters
from cachetui.present.spec_table.table_layout import COLUMN, GAP, Column, Fill, lay_out
from cachetui.present.spec_table.table_plan import SAMPLE_ROWS, Plan, differs_getter, measure, plan
from tests.app.width_tree import write_width_tree
from tests.conftest import listing, spec_entry

ROOMS = [38, 42, 58, 62, 75, 79, 120]  # the table's room at 60, 80 and 120 columns, all packages or one


def column(key: str, priority: int, width: int, flexible: bool = False, least: int = 4) -> Column:
    return Column(key, key, priority, least, width, flexible)


def keys(layout: tuple[tuple[Column, int], ...]) -> list[str]:
    return [c.key for c, _ in layout]


# -- lay_out -----------------------------------------------------------------------------


def test_columns_give_way_by_priority_and_keep_their_order() -> None:
    a, b, c = column("a", 0, 10), column("b", 2, 10), column("c", 1, 10)
    fills = [Fill(a, 10), Fill(b, 10), Fill(c, 10)]
    assert keys(lay_out(fills, 33)) == ["a", "b", "c"]
    assert keys(lay_out(fills, 25)) == ["a", "c"]  # b has the lowest priority: it gives way
    assert keys(lay_out(fills, 5)) == ["a"]  # the first column shows however narrow the room


def test_a_flexible_column_is_cut_to_what_is_left_down_to_its_least() -> None:
    fixed, flexible = column("fixed", 0, 10), column("flexible", 1, 30, flexible=True, least=6)
    layout = lay_out([Fill(fixed, 10), Fill(flexible, 30)], 25)
    assert layout == ((fixed, 10), (flexible, 25 - 11 - GAP))
    assert keys(lay_out([Fill(fixed, 10), Fill(flexible, 30)], 16)) == ["fixed"]  # 4 cells: under its least


def test_a_column_alike_in_every_row_only_takes_room_nothing_else_wants() -> None:
    version, differs, size = column("version", 1, 8), column("differs", 1, 10, flexible=True), column("size", 0, 8)
    fills = [Fill(version, 8), Fill(differs, 10, longest=30), Fill(size, 8, alike=True)]
    assert keys(lay_out(fills, 40)) == ["version", "differs"]  # differs would grow to 30: size gives way
    assert keys(lay_out(fills, 60)) == ["version", "differs", "size"]
    assert dict((c.key, w) for c, w in lay_out(fills, 60))["differs"] == 30


def test_spare_room_grows_what_is_cut_and_then_fills_the_row() -> None:
    a, b = column("a", 0, 10), column("b", 1, 10, flexible=True)
    layout = lay_out([Fill(a, 10), Fill(b, 10, longest=14)], 40)
    assert dict((c.key, w) for c, w in layout) == {"a": 10, "b": 14 + 40 - 26 + GAP}
    assert sum(w + GAP for _, w in layout) == 40 + GAP  # the last cell reaches the edge; its gap falls outside


def test_turn_overrides_a_columns_own_priority() -> None:
    tag, target = column("tag", 6, 8), column("target", 4, 8)
    assert keys(lay_out([Fill(target, 8), Fill(tag, 8, priority=0)], 12)) == ["tag"]


# -- alike pairs ------------------------------------------------------------------------


def test_alike_pairs_counts_the_pairs_of_equal_values_per_column() -> None:
    values = np.array([[1, 1], [1, 2], [1, 3], [2, 4]])
    assert alike_pairs(values).tolist() == [3, 0]


# -- plan, on answers read from documents ------------------------------------------------


@pytest.fixture(scope="module")
def width_corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return load_corpus([write_width_tree(tmp_path_factory.mktemp("width"))])


def rows_of(corpus: Corpus, text: str | None) -> SpecRows:
    query = Query() if text is None else interpret(corpus, parse_spec_query(text), Query(), None).query
    results = results_for(corpus, query)
    return SpecRows(corpus, results.indices, package=query.package, common=results.common)


def drawn(rows: SpecRows, chosen: Plan) -> list[dict[str, str]]:
    getters = cell_getters(rows)
    getters["differs"] = differs_getter(rows, getters, chosen)
    return [{c.key: fit(getters[c.key](i), w) for c, w in chosen.layout} for i in rows.indices.tolist()]


def unmarked(rows: SpecRows, chosen: Plan) -> list[tuple[int, int]]:
    """Pairs of rows alike in every cell shown but the hash, with no cut where they differ (and not alike in all)."""
    getters = cell_getters(rows)
    getters["differs"] = differs_getter(rows, getters, chosen)
    cells = drawn(rows, chosen)
    whole = ("version", "compiler", "os", "target", "tag", "stacks", "variants", "package")
    found = []
    for a, b in combinations(range(len(cells)), 2):
        if any(cells[a][k] != cells[b][k] for k in cells[a] if k != "hash"):
            continue
        spec_a, spec_b = int(rows.indices[a]), int(rows.indices[b])
        if all(getters[k](spec_a) == getters[k](spec_b) for k in whole):
            continue
        if not any(getters[k](spec_a) != getters[k](spec_b) and (cells[a][k].endswith("…") or cells[b][k].endswith("…"))
                   for k in cells[a]):
            found.append((a, b))
    return found


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("query", ["hdf5 +mpi %gcc", None])
def test_every_pair_of_rows_shows_apart_or_is_marked(width_corpus: Corpus, query: str | None, room: int) -> None:
    rows = rows_of(width_corpus, query)
    chosen = plan(measure(rows, frozenset({"variants"})), room)
    assert "differs" in chosen.widths
    if room < 100:  # every size is "-": it carries nothing and has no room while other cells are cut
        assert "size" not in chosen.widths
    assert unmarked(rows, chosen) == []
    assert sum(w + GAP for _, w in chosen.layout) <= room + GAP


def _look_alikes(rows: SpecRows, chosen: Plan, cells: list[dict[str, str]], a: int) -> list[int]:
    """The rows of row a's package that read as it does in every column shown but the differs and the hash."""
    shown = [key for key in chosen.widths if key not in ("differs", "hash")]
    corpus = rows.corpus
    package = corpus.package_of[int(rows.indices[a])]
    return [b for b in range(len(cells)) if b != a and corpus.package_of[int(rows.indices[b])] == package
            and all(cells[a][key] == cells[b][key] for key in shown)]


@pytest.mark.parametrize("room", [40, 62, 200])
def test_a_rows_key_tells_it_from_each_look_alike_and_says_nothing_all_of_them_share(
        width_corpus: Corpus, room: int) -> None:
    rows = rows_of(width_corpus, "hdf5 +mpi %gcc")
    chosen = plan(measure(rows, frozenset({"variants"})), room)
    getters = cell_getters(rows)
    keys = differs_getter(rows, getters, chosen)
    cells = drawn(rows, chosen)
    said_anything = False
    for a in range(len(cells)):
        spec = int(rows.indices[a])
        key = keys(spec)
        parts = key.split(" same as ")[0].split() if not key.startswith("same as ") else []
        alike = _look_alikes(rows, chosen, cells, a)
        if not alike:
            assert key == ""  # read apart already: nothing to say
            continue
        said_anything = True
        others = [" ".join([keys(int(rows.indices[b]))]) for b in alike]
        assert key not in others  # never the same text twice
        for part in parts:  # each value said tells it from some look-alike: none is shared by all of them
            assert any(part not in keys(int(rows.indices[b])).split() for b in alike), (key, part)
    assert said_anything


def test_a_wider_table_says_less_in_the_keys(width_corpus: Corpus) -> None:
    rows = rows_of(width_corpus, "hdf5 +mpi %gcc")
    measured = measure(rows, frozenset({"variants"}))
    narrow, wide = plan(measured, 62), plan(measured, 200)
    assert {"version", "compiler", "os", "tag", "stacks"} <= set(wide.widths)
    getters = cell_getters(rows)
    narrow_keys, wide_keys = differs_getter(rows, getters, narrow), differs_getter(rows, getters, wide)
    specs = rows.indices.tolist()
    assert sum(len(wide_keys(i)) for i in specs) < sum(len(narrow_keys(i)) for i in specs)
    assert not any("stacks=" in wide_keys(i) for i in specs)  # its column shows: never said again in a key
    assert unmarked(rows, wide) == []


def test_the_room_wanted_does_not_depend_on_the_room_given(width_corpus: Corpus) -> None:
    measured = measure(rows_of(width_corpus, "hdf5 +mpi %gcc"), frozenset({"variants"}))
    assert measured.telling_width > 79  # more than the table has at 120 columns: the panes give way
    narrower = plan(measured, measured.telling_width - 1)
    assert {key for key in narrower.widths} <= {key for key in plan(measured, 200).widths}


def test_a_pair_the_sample_misses_is_still_told_apart(tmp_path: Path) -> None:
    """Two binaries alike but for their target, among many: the differs cell names the target."""
    specs = [spec_entry(f"{i:04d}".translate(str.maketrans("0123456789", "abcdefghij")) + "a" * 28,
                     variants=["+pic" if i % 2 else "~pic"]) for i in range(3 * SAMPLE_ROWS)]
    specs[1]["target"] = specs[7]["target"] = "zen4"  # rows the sample (every 3rd) never reads
    specs[7]["variants"] = specs[1]["variants"]
    specs[1]["target"] = "neoverse_v2"
    path = tmp_path / "_cache" / "develop" / "zlib" / "specs.md"
    path.parent.mkdir(parents=True)
    path.write_text(listing("zlib", "develop", specs))
    rows = rows_of(load_corpus([tmp_path]), "zlib")
    measured = measure(rows, frozenset({"variants", "target"}))  # no room for a target column at all
    assert measured.fills.keys().isdisjoint({"target"})
    chosen = plan(measured, 40)
    texts = drawn(rows, chosen)
    assert texts[1]["differs"] != texts[7]["differs"] or texts[1]["differs"].endswith("…")
    keys = differs_getter(rows, cell_getters(rows), chosen)
    assert "target=neoverse_v2" in keys(int(rows.indices[1])) and "target=zen4" in keys(int(rows.indices[7]))


def test_the_columns_known_to_the_layout_are_the_tables() -> None:
    assert COLUMN["differs"].flexible and COLUMN["package"].flexible


def test_wrapped_text_is_cut_and_marked_only_past_its_lines() -> None:
    console, text = Console(width=80), Text("one two three four five six seven eight nine ten")
    assert wrapped(text, 10, 3, console).plain.split("\n") == ["one two ", "three four", "five six…"]
    assert wrapped(text, 10, 6, console).plain.split() == text.plain.split()  # room enough: whole, unmarked
    assert wrapped(Text("abcdefghijklmnop"), 5, 2, console).plain.split("\n") == ["abcde", "fghi…"]
