"""The browser's answer pipeline (`cachetui.present.browse.answer`), asked directly, without Textual."""

from __future__ import annotations

import pytest

from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.recent import Recent
from cachetui.core.query.query import Query
from cachetui.core.query.spack_find import find_lines
from cachetui.core.spack.specquery import parse_spec_query
from cachetui.present.browse import answer as answer_module
from cachetui.present.browse.answer import PACKAGE_COUNTS_KEPT, RecentAnswers, View, answer, compare_text
from tests.conftest import WriteDoc, listing, spec_entry


def _corpus(write_doc: WriteDoc) -> Corpus:
    specs = [spec_entry("a" * 32, variants=["+mpi"]), spec_entry("b" * 32, variants=["~mpi"])]
    write_doc("_cache/develop/hdf5/specs.md", listing("hdf5", "develop", specs))
    write_doc("_cache/v0.22.0/hdf5/specs.md", listing("hdf5", "v0.22.0", specs[:1]))
    write_doc("_cache/develop/zlib/specs.md", listing("zlib", "develop", [spec_entry("c" * 32)]))
    result = load_paths([write_doc("x", "").parent])
    return build_corpus(result.documents, result.report)


def test_an_answer_has_rows_and_counts_for_every_package(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    found = answer(corpus, Query("hdf5", {"tag": frozenset({"develop"})}), (None, False), RecentAnswers())
    assert found.problem is None and found.results is not None
    assert {corpus.hashes[i][0] for i in found.results.indices} == {"a", "b"}
    assert found.package_counts == {"hdf5": 2, "zlib": 1}  # the filters, in every package
    found = answer(corpus, Query("hdf5", {"tag": frozenset({"v0.22.0"})}), (None, False), RecentAnswers())
    assert found.package_counts == {"hdf5": 1}


def test_a_query_that_cannot_be_answered_is_a_problem_not_an_empty_answer(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    found = answer(corpus, Query("hdf5", spec=parse_spec_query("hdf5 +nosuch")), (None, False), RecentAnswers())
    assert found.results is None and found.problem is not None and "nosuch" in found.problem


def test_comparing_two_tags_scopes_the_answer_to_them(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    found = answer(corpus, Query("hdf5"), (None, False), RecentAnswers(), View(compare=("v0.22.0", "develop")))
    assert found.results is not None and found.results.comparison is not None
    assert compare_text(corpus, ("v0.22.0", "develop")) == "v0.22.0 → develop: +2 −0 =1"


def test_package_counts_are_kept_for_a_bounded_number_of_queries(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    recent = RecentAnswers()
    for n in range(PACKAGE_COUNTS_KEPT + 5):
        answer(corpus, Query(None, {"tag": frozenset({f"tag{n}"})}), (None, False), recent)
    assert len(recent.package_counts) == PACKAGE_COUNTS_KEPT


def test_another_view_of_the_same_question_reuses_its_answer(write_doc: WriteDoc,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = _corpus(write_doc)
    calls: list[str] = []

    def counted(name: str) -> None:
        original = getattr(answer_module, name)

        def call(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return original(*args, **kwargs)
        monkeypatch.setattr(answer_module, name, call)

    counted("results_for")
    counted("find_layout")
    recent, query, sort = RecentAnswers(), Query("hdf5"), (None, False)
    plain = answer(corpus, query, sort, recent)
    found = answer(corpus, query, sort, recent, View(find=True))
    again = answer(corpus, query, sort, recent)
    assert found.results is not None and plain.results is not None and again.results is not None
    assert again.results is plain.results and found.results.indices is plain.results.indices
    assert found.results.find is not None and plain.results.find is None
    assert [line.spec for line in (found.results.find.line(k) for k in range(len(found.results.find)))
            if line.spec is not None] == [line.spec for line in find_lines(corpus, plain.results.indices)
                                          if line.spec is not None]
    answer(corpus, query, sort, recent, View(find=True))
    assert calls == ["results_for", "find_layout"]  # once each: the rest came from `recent`
    answer(corpus, query, ("version", True), recent)  # another question is answered anew
    assert calls[-1] == "results_for"


def test_recent_keeps_the_last_keys_asked_for() -> None:
    recent: Recent[str, int] = Recent(2)
    computed: list[str] = []

    def value(key: str) -> int:
        return recent.get(key, lambda: (computed.append(key), len(computed))[1])

    assert [value("a"), value("b"), value("a"), value("c"), value("a"), value("b")] == [1, 2, 1, 3, 1, 4]
    assert computed == ["a", "b", "c", "b"]  # "a", asked for again, outlived "b"


def test_rows_limited_to_a_plans_candidates_say_so_when_a_query_leaves_none_of_them() -> None:
    from cachetui.core.load import load_corpus, sample_path  # the bundled sample: py-mpi4py on several OSes

    corpus = load_corpus([str(sample_path())])
    scope = corpus.package_slice("py-mpi4py")
    oses = [corpus.value("os", corpus.single["os"][i]) for i in range(scope.start, scope.stop)]
    kept, other = oses[0], next(os_ for os_ in oses if os_ != oses[0])
    among = tuple(i for i in range(scope.start, scope.stop) if oses[i - scope.start] == kept)
    view = View(among=("candidates for py-mpi4py (plan)", among))
    query = Query("py-mpi4py", spec=parse_spec_query(f"os={other}"))
    found = answer(corpus, query, (None, False), RecentAnswers(), view)
    assert found.results is not None and not len(found.results.indices)
    assert "among the candidates for py-mpi4py (plan)" in (found.results.why_empty or "")
    everywhere = answer(corpus, query, (None, False), RecentAnswers(), View())  # the same query, not limited
    assert everywhere.results is not None and len(everywhere.results.indices)
