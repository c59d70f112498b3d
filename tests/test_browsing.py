"""Where the browser is (`cachetui.present.browse.browsing`): its pure transitions, asked directly, without Textual."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query
from cachetui.core.spack.targets import Host
from cachetui.present.browse import browsing as go
from cachetui.present.browse.answer import View
from cachetui.present.browse.browsing import SHOWN_WHOLE, Browsing, Effects
from tests.conftest import WriteDoc
from tests.test_answer import _corpus as answer_corpus


@pytest.fixture
def corpus(write_doc: WriteDoc) -> Corpus:
    """hdf5 a (+mpi) and b (~mpi) in develop, a in v0.22.0; zlib c in develop."""
    return answer_corpus(write_doc)


def _spec(corpus: Corpus, full_hash: str) -> int:
    return next(i for i, h in enumerate(corpus.hashes) if h == full_hash)


def test_a_package_search_asks_nothing_while_no_spec_query_is_open(corpus: Corpus) -> None:
    state, effects = go.typed(Browsing(), "hd", corpus)
    assert state.line == "hd" and state.query == Query()
    assert effects == Effects(clears_problem=True)


def test_a_spec_query_is_asked_where_the_opened_package_is_and_keeps_the_filters(corpus: Corpus) -> None:
    start = Browsing(query=Query("hdf5", {"tag": frozenset({"develop"})}), opened="hdf5")
    state, effects = go.typed(start, "+mpi", corpus)
    assert effects.ask and state.asked_spec is not None
    assert state.query.package == "hdf5" and state.query.filters == start.query.filters
    assert str(state.query.spec) == "+mpi"


def test_a_spec_query_typed_while_loading_waits_for_the_corpus(corpus: Corpus) -> None:
    state, effects = go.typed(Browsing(), "hdf5 +mpi", None)
    assert effects == Effects() and state.line == "hdf5 +mpi" and state.query == Query()
    state, effects = go.corpus_arrived(state, corpus)
    assert effects.ask and state.query.package == "hdf5" and state.query.spec is not None


def test_a_spec_the_line_cannot_use_is_a_problem_and_the_question_stays(corpus: Corpus) -> None:
    start = Browsing(query=Query("zlib"), applied=Query("zlib"))
    for text in ("hdf5 +", "nosuchpackage +mpi"):
        state, effects = go.typed(start, text, corpus)
        assert effects.problem is not None and not effects.ask
        assert state.query == start.query


def test_clearing_a_spec_query_goes_back_to_the_opened_package(corpus: Corpus) -> None:
    state, _ = go.typed(Browsing(opened="zlib"), "hdf5 +mpi", corpus)
    state, effects = go.typed(state, "", corpus)
    assert effects.ask and effects.clears_problem
    assert state.query == Query("zlib") and state.asked_spec is None


def test_a_refused_answer_puts_back_the_question_shown_and_forgets_what_waited_on_it(corpus: Corpus) -> None:
    shown = Query("zlib")
    waiting = Browsing(query=Query("hdf5"), applied=shown, select_after=3, focus_when_answered=(Query("hdf5"), "x"))
    state, effects = go.refused(waiting, "no such thing")
    assert state.query == shown and state.select_after is None and state.focus_when_answered is None
    assert effects == Effects(problem="no such thing")


def test_enter_on_a_question_on_its_way_moves_the_focus_once_its_answer_shows_and_the_line_is_unchanged() -> None:
    asked = Query("hdf5")
    state, effects = go.submitted(Browsing(query=asked, applied=Query()), "hdf5 +mpi")
    assert not effects.focus_table and state.focus_when_answered == (asked, "hdf5 +mpi")
    _, effects = go.answered(state, asked, "hdf5 +mpi", line_focused=True)
    assert effects.focus_table
    _, effects = go.answered(state, asked, "hdf5 +mpi ^zlib", line_focused=True)  # typing went on
    assert not effects.focus_table
    _, effects = go.submitted(Browsing(query=asked, applied=asked), "hdf5")  # answered already
    assert effects.focus_table


def test_an_answer_moves_the_cursor_to_the_spec_it_was_asked_for_once() -> None:
    asked = Query("hdf5")
    state, effects = go.answered(Browsing(query=asked, select_after=7), asked, "", line_focused=False)
    assert effects.select == 7 and state.select_after is None and state.applied == asked


def test_a_jump_opens_the_package_and_backspace_puts_back_the_line_and_the_package(corpus: Corpus) -> None:
    start = Browsing(query=Query("hdf5"), applied=Query("hdf5"), line="hdf", opened="hdf5")
    target = _spec(corpus, "c" * 32)
    state, effects = go.jumped(start, corpus, target, came_from=0, line="hdf", listed=lambda _: True)
    assert state.query.package == "zlib" and state.opened == "zlib" and state.select_after == target
    assert effects.ask and effects.put_line is None
    back, effects = go.jumped_back(state)
    assert (back.query, back.opened, back.line, back.select_after, back.jumps) == (Query("hdf5"), "hdf5", "hdf", 0, ())
    assert effects.put_line == "hdf" and effects.ask
    assert go.jumped_back(back) == (back, Effects())  # nothing to go back to


def test_a_jump_the_question_would_hide_clears_it_and_says_so(corpus: Corpus) -> None:
    hidden = _spec(corpus, "b" * 32)  # ~mpi
    start = Browsing(query=Query("hdf5", {"variant": frozenset({"+mpi"})}))
    state, effects = go.show_spec(start, corpus, hidden, listed=lambda _: True)
    assert state.query == Query("hdf5") and state.line == ""
    assert effects.notify == SHOWN_WHOLE and effects.put_line == ""
    _, effects = go.show_spec(Browsing(line="zl"), corpus, hidden, listed=lambda _: False)
    assert effects.put_line == "" and effects.notify is None  # a package search that does not list it


def test_sorting_again_by_the_same_column_reverses_it() -> None:
    state, effects = go.sorted_by(Browsing(), "version")
    assert state.sort == ("version", False) and effects.ask
    state, _ = go.sorted_by(state, "version")
    assert state.sort == ("version", True)
    state, effects = go.sorted_by(state, "version", descending=True)
    assert not effects.ask  # the same order: nothing to ask


def test_comparing_two_tags_refuses_a_tag_filter_with_a_word_why() -> None:
    comparing = Browsing(view=View(compare=("v0.22.0", "develop")))
    state, effects = go.facet_toggled(comparing, "tag", "develop")
    assert state == comparing and effects.notify is not None and not effects.ask
    state, effects = go.facet_toggled(comparing, "target", "x86_64_v3")
    assert effects.ask and state.query.filters == {"target": frozenset({"x86_64_v3"})}


def test_runs_here_names_this_machine_or_says_it_cannot_tell() -> None:
    state, effects = go.runs_on_toggled(Browsing(), lambda: Host("linux", "zen3"))
    assert effects.ask and state.query.runs_on is not None and state.query.runs_on.machine == "zen3"
    off, effects = go.runs_on_toggled(state, lambda: Host("linux", "zen3"))
    assert effects.ask and off.query.runs_on is None

    def unknown() -> Host:
        raise RuntimeError("no /proc/cpuinfo")
    state, effects = go.runs_on_toggled(Browsing(), unknown)
    assert state == Browsing() and effects.warning and "no /proc/cpuinfo" in (effects.notify or "")


def test_opening_a_package_keeps_the_filters_and_moves_to_the_table() -> None:
    start = Browsing(query=Query(None, {"tag": frozenset({"develop"})}))
    state, effects = go.package_opened(start, "zlib")
    assert state.opened == "zlib" and state.query == replace(start.query, package="zlib")
    assert effects.ask and effects.focus_table
