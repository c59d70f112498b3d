"""When each binary was pushed: its outputs, the `--pushed-since`/`--pushed-before` bounds, the Pushed and "Since
your last look" facets (worked out at each load, warm or cold), the sort and the details."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

import numpy as np
import pytest

import cachetui.cli.query as query_command
import cachetui.core.model.moment as moment
from cachetui.app.widgets.facet_panel import FacetState, Kind, facet_entries
from cachetui.cli.main import main
from cachetui.core.load import load_corpus
from cachetui.core.load.cache import CorpusCache
from cachetui.core.load.sample import sample_path
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import CorpusBuilder, build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.moment import at_load
from cachetui.core.model.records import UNKNOWN_PUSHED
from cachetui.core.query.pushed import MalformedMoment, PushedWithin, parse_moment
from cachetui.core.query.query import Query, all_facet_counts, match
from cachetui.core.query.sorting import sort_specs
from cachetui.present.details.pushed import pushed_said
from cachetui.present.output.export import export_text
from cachetui.present.output.spec_output import write_specs
from cachetui.present.spec_table.table_cells import SpecRows, cell_getters
from cachetui.present.spec_table.table_layout import HIDDEN_AT_FIRST

HOUR, DAY = 3600, 24 * 3600
T = 1795183380  # 2026-11-20T14:03:00Z
T_ISO = "2026-11-20T14:03:00Z"


def _sample() -> Corpus:
    loaded = load_paths([sample_path()])
    return build_corpus(loaded.documents, loaded.report)


def _pushed(corpus: Corpus, moments: list[int | None], now: int = T) -> Corpus:
    """The corpus with these push moments, in spec order (None: unknown; the rest of the specs unknown), as of
    a load at `now`."""
    column = np.full(corpus.n_specs, UNKNOWN_PUSHED, dtype=np.int64)
    column[: len(moments)] = [UNKNOWN_PUSHED if m is None else m for m in moments]
    corpus.pushed = column
    return at_load(corpus, now)


@pytest.fixture
def corpus() -> Corpus:
    """The sample: spec 0 pushed at T, spec 1 a second before, spec 2 unknown, the rest at T - 40 days."""
    corpus = _sample()
    return _pushed(corpus, [T, T - 1, None] + [T - 40 * DAY] * (corpus.n_specs - 3))


# -- outputs ---------------------------------------------------------------------------------------------------


def _written(corpus: Corpus, fmt: str) -> str:
    out = io.StringIO()
    write_specs(out, corpus, list(range(corpus.n_specs)), fmt)
    return out.getvalue()


def test_json_says_the_moment_in_iso_utc_and_null_when_unknown(corpus: Corpus) -> None:
    records = json.loads(_written(corpus, "json"))
    assert [r["pushed"] for r in records[:3]] == [T_ISO, "2026-11-20T14:02:59Z", None]
    assert records[3]["pushed"] == "2026-10-11T14:03:00Z"


def test_csv_says_the_moment_in_iso_utc_and_an_empty_cell_when_unknown(corpus: Corpus) -> None:
    for text in (_written(corpus, "csv"), export_text(corpus, list(range(corpus.n_specs)), "csv")):
        header, *rows = csv.reader(io.StringIO(text))
        at = header.index("pushed")
        assert [row[at] for row in rows[:3]] == [T_ISO, "2026-11-20T14:02:59Z", ""]


def test_the_browsers_json_export_is_the_querys(corpus: Corpus) -> None:
    exported = json.loads(export_text(corpus, [0, 2], "json"))
    assert [r["pushed"] for r in exported] == [T_ISO, None]


def test_the_text_table_says_unknown_as_a_dash(corpus: Corpus) -> None:
    header, *lines = _written(corpus, "table").splitlines()
    at = header.index("pushed")  # the last column: its cells start under its title
    assert [line[at:].strip() for line in lines[:3]] == [T_ISO, "2026-11-20T14:02:59Z", "-"]


def test_query_json_on_sources_that_never_say_is_valid_with_null(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(sample_path()), "--no-cache", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records and {r["pushed"] for r in records} == {None}


# -- --pushed-since, --pushed-before ---------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "seconds"), [
    ("2026-11-20", T - 14 * HOUR - 3 * 60),  # a date is its midnight, UTC
    ("2026-11-20T14:03", T),  # no offset: UTC
    ("2026-11-20T14:03Z", T),
    ("2026-11-20T14:03:00+00:00", T),
    ("2026-11-20T16:03+02:00", T),  # the same moment, two hours east
    ("2026-11-20T09:03-05:00", T),
])
def test_a_moment_is_a_date_or_iso_8601_in_utc_unless_it_says_otherwise(typed: str, seconds: int) -> None:
    assert parse_moment(typed) == seconds


@pytest.mark.parametrize("typed", ["yesterday", "20/11/2026", "2026-13-01", "", "9999-12-31T23:59-05:00"])
def test_a_bad_moment_says_what_is_accepted(typed: str) -> None:
    with pytest.raises(MalformedMoment, match="YYYY-MM-DD or ISO 8601, e.g. 2026-11-20"):
        parse_moment(typed)


def test_since_is_inclusive_before_is_exclusive_and_unknown_matches_neither(corpus: Corpus) -> None:
    def matching(within: PushedWithin) -> set[int]:
        return set(match(corpus, Query(pushed=within)).tolist())

    old = set(range(3, corpus.n_specs))
    assert matching(PushedWithin(since=T)) == {0}
    assert matching(PushedWithin(since=T - 1)) == {0, 1}
    assert matching(PushedWithin(before=T)) == {1} | old
    assert matching(PushedWithin(before=T - 1)) == old
    assert matching(PushedWithin(since=T - 1, before=T)) == {1}
    assert matching(PushedWithin(since=parse_moment("2026-11-20"))) == {0, 1}  # the day, from its midnight
    assert matching(PushedWithin(before=parse_moment("2026-11-20"))) == old
    everything = matching(PushedWithin(since=0)) | matching(PushedWithin(before=2**33))
    assert 2 not in everything and everything == {0, 1} | old


def test_the_bounds_are_anded_with_facets_and_said_when_they_empty_the_answer(corpus: Corpus) -> None:
    tag = corpus.spec(1).tag
    query = Query(filters={"tag": frozenset({tag})}, pushed=PushedWithin(since=T - 1))
    found = match(corpus, query).tolist()
    assert found == [i for i in (0, 1) if corpus.spec(i).tag == tag] and 1 in found
    from cachetui.core.query.query import select

    empty = select(corpus, Query(pushed=PushedWithin(since=T + 1)))
    assert not len(empty.indices())
    assert "pushed since 2026-11-20 14:03 UTC" in (empty.why_empty() or "")


@pytest.fixture
def answered_from(monkeypatch: pytest.MonkeyPatch, corpus: Corpus) -> Callable[..., tuple[int, list[dict]]]:
    """`cachetui query ... --format json` answered from the corpus with push moments."""
    monkeypatch.setattr(query_command, "load_or_exit", lambda args: corpus)

    def answer(*argv: str) -> tuple[int, list[dict]]:
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        code = main(["query", str(sample_path()), "--no-cache", "--format", "json", *argv])
        return code, json.loads(out.getvalue())

    return answer


def test_the_options_bound_the_answer_and_combine_with_the_others(
        answered_from: Callable[..., tuple[int, list[dict]]], corpus: Corpus) -> None:
    code, records = answered_from("--pushed-since", "2026-11-20T14:02:59Z")
    assert code == 0 and [r["hash"] for r in records] == [corpus.hashes[0], corpus.hashes[1]]
    code, records = answered_from("--pushed-since", "2026-11-20T16:03+02:00")
    assert code == 0 and [r["hash"] for r in records] == [corpus.hashes[0]]
    code, records = answered_from("--pushed-before", "2026-11-20", "--pushed-since", "2026-10-01")
    assert code == 0 and len(records) == corpus.n_specs - 3 and {r["pushed"] for r in records} == {
        "2026-10-11T14:03:00Z"}
    package = corpus.spec(0).package
    code, records = answered_from("--pushed-since", "2026-11-20", "--package", package)
    assert code == 0 and {r["package"] for r in records} == {package} and records
    code, records = answered_from("--pushed-since", "2026-11-21")
    assert code == 1 and records == []


def test_a_bad_date_is_a_usage_error_showing_what_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(sample_path()), "--no-cache", "--format", "json", "--pushed-before", "tuesday"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out) == []  # still valid JSON for a pipe
    assert "--pushed-before" in captured.err and "'tuesday'" in captured.err and "2026-11-20T14:03Z" in captured.err


# -- the facets, at each load ----------------------------------------------------------------------------------


def test_each_spec_is_in_one_window_before_the_load() -> None:
    corpus = _sample()
    moments = [T + HOUR, T, T - DAY, T - DAY - 1, T - 7 * DAY, T - 7 * DAY - 1, T - 30 * DAY, T - 30 * DAY - 1, None]
    _pushed(corpus, moments)
    said = [corpus.spec(i).values["pushed"] for i in range(len(moments))]
    assert said == ["last day", "last day", "last day", "last week", "last week", "last month", "last month", "older",
                    "unknown"]
    counts = all_facet_counts(corpus, Query())["pushed"]
    assert sum(counts.values()) == corpus.n_specs and counts["unknown"] == corpus.n_specs - 8


def test_the_facet_moves_with_the_moment_of_the_load(corpus: Corpus) -> None:
    assert all_facet_counts(corpus, Query())["pushed"] == {"last day": 2, "older": corpus.n_specs - 3, "unknown": 1}
    at_load(corpus, T + 3 * DAY)
    assert all_facet_counts(corpus, Query())["pushed"] == {"last week": 2, "older": corpus.n_specs - 3, "unknown": 1}
    assert corpus.loaded_at == T + 3 * DAY


def test_the_panel_lists_the_windows_newest_first_and_leaves_out_a_facet_that_only_says_unknown(
        corpus: Corpus) -> None:
    def shown(counted: Corpus) -> dict[str, list[str]]:
        entries = facet_entries(FacetState(counts=all_facet_counts(counted, Query())))
        found: dict[str, list[str]] = {}
        for entry in entries:
            if entry.kind is Kind.VALUE:
                found.setdefault(entry.facet, []).append(entry.value)
        return found

    assert shown(corpus)["pushed"] == ["last day", "older", "unknown"]  # not by count: older is the largest
    assert "pushed" not in shown(_sample())  # site documents never say: every spec unknown


@pytest.fixture
def finished_with_pushes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every load's builder gives its specs a push two hours before T, but the last spec's (unknown): what a
    mirror whose storage says when would give."""
    finish = CorpusBuilder.finish

    def with_pushes(self: CorpusBuilder, *args: object, **kwargs: object) -> Corpus:
        self._flush()
        n = sum(map(len, self.pushed))
        self.pushed = [np.array([T - 2 * HOUR] * (n - 1) + [UNKNOWN_PUSHED], dtype=np.int64)]
        return finish(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(CorpusBuilder, "finish", with_pushes)


def test_a_warm_start_works_the_facet_out_at_its_own_moment(finished_with_pushes: None,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = [str(sample_path())]
    monkeypatch.setattr(moment, "clock", lambda: T)
    cold = load_corpus(inputs, cache=CorpusCache())
    n = cold.n_specs
    assert cold.cache_status == "miss" and cold.loaded_at == T
    assert all_facet_counts(cold, Query())["pushed"] == {"last day": n - 1, "unknown": 1}
    monkeypatch.setattr(moment, "clock", lambda: T + 3 * DAY)  # three days later, nothing changed
    warm = load_corpus(inputs, cache=CorpusCache())
    assert warm.cache_status == "hit" and warm.loaded_at == T + 3 * DAY
    assert all_facet_counts(warm, Query())["pushed"] == {"last week": n - 1, "unknown": 1}
    monkeypatch.setattr(moment, "clock", lambda: T + 40 * DAY)
    assert all_facet_counts(load_corpus(inputs, cache=CorpusCache()), Query())["pushed"] == {
        "older": n - 1, "unknown": 1}


def test_since_your_last_look_says_what_is_new(corpus: Corpus) -> None:
    assert all_facet_counts(corpus, Query())["since"] == {"seen before": corpus.n_specs}  # `new` empty: none
    entries = facet_entries(FacetState(counts=all_facet_counts(corpus, Query())))
    assert "since" not in {e.facet for e in entries}  # nothing new: nothing to say
    corpus.new = np.zeros(corpus.n_specs, dtype=bool)
    corpus.new[[1, 4]] = True
    at_load(corpus, T)
    assert all_facet_counts(corpus, Query())["since"] == {"new": 2, "seen before": corpus.n_specs - 2}
    assert match(corpus, Query(filters={"since": frozenset({"new"})})).tolist() == [1, 4]
    entries = facet_entries(FacetState(counts=all_facet_counts(corpus, Query())))
    assert "Since your last look" in [e.title for e in entries if e.kind is Kind.HEADING]
    assert [e.value for e in entries if e.kind is Kind.VALUE and e.facet == "since"] == ["new", "seen before"]
    corpus.new = np.ones(corpus.n_specs, dtype=bool)
    at_load(corpus, T)  # every spec new: "seen before" has none, so it is not listed, as any value no spec has
    assert all_facet_counts(corpus, Query())["since"] == {"new": corpus.n_specs}


# -- the column, its sort, the details -------------------------------------------------------------------------


def test_the_column_is_hidden_at_first_and_says_the_minute_in_utc(corpus: Corpus) -> None:
    assert "pushed" in HIDDEN_AT_FIRST
    cell = cell_getters(SpecRows(corpus, np.arange(corpus.n_specs)))["pushed"]
    assert [cell(0), cell(1), cell(2)] == ["2026-11-20 14:03", "2026-11-20 14:02", "-"]


@pytest.mark.parametrize("descending", [False, True])
def test_sorting_by_push_puts_unknown_last_either_way(corpus: Corpus, descending: bool) -> None:
    indices = np.array([2, 3, 0, 1], dtype=np.int64)
    order = sort_specs(corpus, indices, "pushed", descending=descending).tolist()
    assert order == ([0, 1, 3, 2] if descending else [3, 1, 0, 2])
    no_column = _sample()
    no_column.pushed = np.zeros(0, dtype=np.int64)  # a corpus built without it: every spec unknown, corpus order
    assert sort_specs(no_column, indices, "pushed", descending=descending).tolist() == indices.tolist()


def test_the_details_say_when_it_was_pushed(corpus: Corpus) -> None:
    assert [pushed_said(corpus, i) for i in (0, 2)] == ["2026-11-20 14:03 UTC", "-"]
    assert pushed_said(_sample(), 0) == ""  # no source says it of any binary: no line



def test_the_details_say_one_pushed_line_the_sources_date_else_the_records() -> None:
    from cachetui.present.details.pushed import pushed_line

    assert pushed_line("2026-11-20 14:03 UTC", "2025-01-01T00:00:00Z") == "2026-11-20 14:03 UTC"  # the source's
    assert pushed_line("", "2026-11-27T18:14:58Z") == "2026-11-27 18:14 UTC"  # an HTTP mirror's, once fetched
    assert pushed_line("-", "2026-11-27T18:14:58+02:00") == "2026-11-27 16:14 UTC"
    assert (pushed_line("-", None), pushed_line("", None)) == ("-", "")


def test_a_fraction_of_a_second_bounds_whole_seconds_as_it_says() -> None:
    from cachetui.core.query.pushed import parse_moment

    whole = parse_moment("2026-11-20T00:00:00")
    assert parse_moment("2026-11-20T00:00:00.5") == whole + 1  # pushed at 00:00:00 is before it, not since it
    assert parse_moment("2026-11-20T00:00:00.000") == whole


def test_a_record_time_without_a_zone_is_said_as_written_never_taken_for_utc() -> None:
    from cachetui.present.details.pushed import pushed_line

    assert pushed_line("", "2026-11-20T14:03:00") == "2026-11-20T14:03:00"
