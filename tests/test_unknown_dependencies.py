"""`^dep` over binaries whose sources record no dependencies is unknown, not none, and said so beside a mirror too.

Site documents (tests/spec_tree.py) record no dependencies; the mirror (tests/dag_mirror.py) does. The
counts expected here come from those two trees' tables, not from the project's code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.core.load.pipeline import load_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query, select
from cachetui.core.query.resolve import QueryProblem
from cachetui.core.query.results import results_for
from cachetui.core.query.unrecorded import unknown_dependencies_text
from cachetui.core.spack.specquery import parse_spec_query
from tests import dag_mirror, spec_tree
from tests.cli_answers import query

SITE_BINARIES = len(spec_tree.BINARIES)
MIRROR_BINARIES = sum(1 for _, cached, _, _ in dag_mirror.RECORDS.values() if cached)
SITE_HDF5 = sum(1 for package, *_ in spec_tree.BINARIES.values() if package == "hdf5")
SITE_ZLIB = sum(1 for package, *_ in spec_tree.BINARIES.values() if package == "zlib")
UNKNOWN = "which record no dependencies"


@pytest.fixture(scope="module")
def sources(spec_tree: Path, dag_dir: Path) -> list[str]:
    return [str(spec_tree), str(dag_dir)]


@pytest.fixture(scope="module")
def corpus(sources: list[str]) -> Corpus:
    return load_corpus(sources)


def _note(corpus: Corpus, text: str) -> str | None:
    return results_for(corpus, Query(spec=parse_spec_query(text))).note


def test_a_dependency_query_beside_a_mirror_says_how_many_binaries_it_cannot_tell(corpus: Corpus) -> None:
    assert _note(corpus, "^curl") == (
        f"{SITE_BINARIES} of the {SITE_BINARIES + MIRROR_BINARIES} binaries loaded come from listing documents, "
        "which record no dependencies: ^curl is unknown for them")


def test_binaries_the_query_leaves_out_are_not_counted(corpus: Corpus) -> None:
    assert _note(corpus, "hdf5 ^curl") == (
        f"all {SITE_HDF5} hdf5 binaries come from listing documents, which record no dependencies: "
        "^curl is unknown for them")
    assert _note(corpus, "git ^curl") is None  # the mirror's git: its dependencies are recorded


def test_an_empty_answer_over_unknown_dependencies_never_says_none_of_them(corpus: Corpus) -> None:
    assert "none of them" not in (_note(corpus, "hdf5 ^curl") or "")
    # zlib: SITE_ZLIB from the site and one from the mirror, which has no curl below it
    note = _note(corpus, "zlib ^curl") or ""
    assert note.startswith(f"no binary is known to be zlib ^curl: {SITE_ZLIB + 1} are zlib; of the 1 whose "
                           "dependencies are recorded, none is ^curl; ")
    assert note.endswith(f"{SITE_ZLIB} of the {SITE_ZLIB + 1} zlib binaries come from listing documents, "
                         "which record no dependencies: ^curl is unknown for them")


def test_a_dependency_no_index_names_is_said_unknown_for_the_listings_binaries(corpus: Corpus) -> None:
    with pytest.raises(QueryProblem) as caught:
        select(corpus, Query(spec=parse_spec_query("hdf5 ^zlibb")))
    assert str(caught.value).startswith("unknown dependency 'zlibb'; did you mean: zlib? ")
    assert f"All {SITE_HDF5} hdf5 binaries come from listing documents, {UNKNOWN}" in str(caught.value)


def test_the_cli_says_it_on_stderr_whatever_the_answer(capsys: pytest.CaptureFixture[str], sources: list[str],
                                                       corpus: Corpus) -> None:
    code, rows, err = query(capsys, *sources, "--spec", "^curl")
    assert code == 0 and {row["package"] for row in rows} == dag_mirror.expected_dependents(dag_mirror.index(), "curl")
    assert err == f"cachetui: {_note(corpus, '^curl')}\n"
    code, rows, err = query(capsys, *sources, "--spec", "hdf5 ^curl")
    assert code == 1 and rows == [] and err == f"cachetui: {_note(corpus, 'hdf5 ^curl')}\n"
    code, rows, err = query(capsys, *sources, "--spec", "^curl", "--package", "git")
    assert code == 0 and len(rows) == 1 and err == ""


def test_site_documents_alone_still_refuse_a_dependency_query(capsys: pytest.CaptureFixture[str],
                                                              spec_tree: Path) -> None:
    code, rows, err = query(capsys, str(spec_tree), "--spec", "^curl")
    assert code == 1 and rows == [] and "site documents record none" in err


@pytest.mark.parametrize(("unknown", "asked", "among", "where", "said"), [
    (1, 1, "zlib", "", "the zlib binary comes from a listing document, which records no dependencies: "
                       "^curl is unknown for it"),
    (1, 3, "", "", "1 of the 3 binaries loaded comes from a listing document, which records no dependencies: "
                   "^curl is unknown for it"),
    (2, 2, "", "in the comparison", "all 2 binaries in the comparison come from listing documents, which record "
                                    "no dependencies: ^curl is unknown for them"),
])
def test_the_words_agree_with_the_counts(unknown: int, asked: int, among: str, where: str, said: str) -> None:
    assert unknown_dependencies_text(unknown, asked, "^curl", among, where) == said
