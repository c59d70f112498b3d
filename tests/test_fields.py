"""One declaration of a field shows it everywhere: facets, the query command, JSON and CSV, the table's columns."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from cachetui.app.widgets.facet_panel import FacetState, Kind, facet_entries
from cachetui.cli.main import main
from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import (
    REGISTRY,
    SINGLE,
    Facet,
    Field,
)
from cachetui.core.query.query import Query, all_facet_counts, match
from cachetui.present.spec_table.table_cells import SpecRows, cell_getters
from cachetui.present.spec_table.table_layout import COLUMN, COLUMNS
from tests import throwaway_field
from tests.throwaway_field import DIGIT, LETTER, THROWAWAY

registered, corpus = throwaway_field.registered, throwaway_field.corpus  # its fixtures, for this module's tests


def expected(corpus: Corpus) -> dict[str, int]:
    """What the field's counts must be, read from the hashes directly."""
    digits = sum(h[0].isdigit() for h in corpus.hashes)
    return {value: n for value, n in ((DIGIT, digits), (LETTER, corpus.n_specs - digits)) if n}


def test_a_registered_derived_field_is_worked_out_when_the_corpus_is_built(corpus: Corpus) -> None:
    assert corpus.vocab["hash_start"].values == [DIGIT, LETTER]
    shown = [corpus.value("hash_start", int(v)) for v in corpus.single["hash_start"]]
    assert shown == [DIGIT if h[0].isdigit() else LETTER for h in corpus.hashes]
    assert corpus.spec(0).values["hash_start"] == shown[0]


def test_a_registered_field_is_counted_as_a_facet_and_headed_in_the_facet_panel(corpus: Corpus) -> None:
    counts = all_facet_counts(corpus, Query())
    assert counts["hash_start"] == expected(corpus)
    entries = facet_entries(FacetState(counts=counts))
    headings = [entry.title for entry in entries if entry.kind is Kind.HEADING]
    assert headings[-1] == "Hash starts with"  # its place (20) is after every built-in facet
    values = {entry.value: entry.count for entry in entries if entry.kind is Kind.VALUE and entry.facet == "hash_start"}
    assert values == expected(corpus)


def test_a_registered_field_filters_as_a_facet(corpus: Corpus) -> None:
    digits = match(corpus, Query(filters={"hash_start": frozenset({DIGIT})}))
    assert len(digits) == expected(corpus)[DIGIT]
    assert all(corpus.hashes[i][0].isdigit() for i in digits.tolist())


def test_a_registered_field_is_a_query_option_and_a_json_and_csv_field(
        registered: Field, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["query", "--help"])
    assert "--hash-start HASH_START" in capsys.readouterr().out
    code = main(["query", str(sample_path()), "--no-cache", "--format", "json", "--hash-start", LETTER])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0 and rows
    assert all(row["hash"][0].isalpha() and row["hash_start"] == LETTER for row in rows)
    assert list(rows[0])[-3:] == ["hash_start", "path", "dependencies"]  # after the built-in fields
    main(["query", str(sample_path()), "--no-cache", "--format", "csv", "--hash-start", DIGIT])
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert table[0][-2:] == ["hash_start", "path"]
    assert len(table) > 1 and {row[-2] for row in table[1:]} == {DIGIT}


def test_a_registered_field_is_a_column_the_chooser_offers_with_its_cells(corpus: Corpus) -> None:
    assert [c.key for c in COLUMNS][-1] == "hash_start"  # the `v` dialog offers COLUMNS, in this order
    assert COLUMN["hash_start"].title == "hash starts"
    getter = cell_getters(SpecRows(corpus, np.arange(corpus.n_specs)))["hash_start"]
    assert getter(0) == corpus.spec(0).values["hash_start"]


def test_an_unregistered_field_leaves_no_trace(corpus: Corpus) -> None:
    REGISTRY.unregister("hash_start")
    assert "hash_start" not in [c.key for c in COLUMNS]
    assert "hash_start" not in REGISTRY.facets()
    REGISTRY.register(THROWAWAY)  # the fixture removes it again


def test_a_facet_read_from_documents_names_a_list_documents_have() -> None:
    with pytest.raises(ValueError, match="SpecColumns"):
        REGISTRY.register(Field("misread", Facet(SINGLE, "Misread", 11, read="no_such_list")))
    with pytest.raises(ValueError, match="names the SpecColumns list"):
        REGISTRY.register(Field("unread", Facet(SINGLE, "Unread", 11)))
    assert "misread" not in REGISTRY.named and "unread" not in REGISTRY.named


def test_a_registered_field_read_from_documents_is_counted_from_them() -> None:
    REGISTRY.register(Field("target_again", Facet(SINGLE, "Target again", 11, read="targets")))
    try:
        result = load_paths([sample_path()])
        corpus = build_corpus(result.documents, result.report)
        counts = all_facet_counts(corpus, Query())
    finally:
        REGISTRY.unregister("target_again")
    assert counts["target_again"] == counts["target"]
