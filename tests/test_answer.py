"""The browser's answer pipeline (`cachetui.present.answer`), asked directly, without Textual."""

from __future__ import annotations

from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query
from cachetui.core.spack.specquery import parse_spec_query
from cachetui.present.answer import PACKAGE_COUNTS_KEPT, View, answer, compare_text
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
    found = answer(corpus, Query("hdf5", {"tag": frozenset({"develop"})}), (None, False), {})
    assert found.problem is None and found.results is not None
    assert {corpus.hashes[i][0] for i in found.results.indices} == {"a", "b"}
    assert found.package_counts == {"hdf5": 2, "zlib": 1}  # the filters, in every package
    found = answer(corpus, Query("hdf5", {"tag": frozenset({"v0.22.0"})}), (None, False), {})
    assert found.package_counts == {"hdf5": 1}


def test_a_query_that_cannot_be_answered_is_a_problem_not_an_empty_answer(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    found = answer(corpus, Query("hdf5", spec=parse_spec_query("hdf5 +nosuch")), (None, False), {})
    assert found.results is None and found.problem is not None and "nosuch" in found.problem


def test_comparing_two_tags_scopes_the_answer_to_them(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    found = answer(corpus, Query("hdf5"), (None, False), {}, View(compare=("v0.22.0", "develop")))
    assert found.results is not None and found.results.comparison is not None
    assert compare_text(corpus, ("v0.22.0", "develop")) == "v0.22.0 → develop: +2 −0 =1"


def test_package_counts_are_kept_for_a_bounded_number_of_queries(write_doc: WriteDoc) -> None:
    corpus = _corpus(write_doc)
    memo: dict[Query, dict[str, int]] = {}
    for n in range(PACKAGE_COUNTS_KEPT + 5):
        answer(corpus, Query(None, {"tag": frozenset({f"tag{n}"})}), (None, False), memo)
    assert len(memo) == PACKAGE_COUNTS_KEPT
