"""`^dep` as Spack reads it: every recorded edge, at any depth, through records the cache does not hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.core.load.pipeline import load_corpus
from cachetui.core.model.dependencies import WITH_BUILD, dependency_tree
from cachetui.core.query import specmatch
from cachetui.core.query.query import Query, match
from cachetui.core.spack.specquery import parse_spec_query
from tests import dag_mirror
from tests.cli_answers import query


@pytest.mark.parametrize(("text", "name", "deptypes"), [
    ("^curl", "curl", None), ("^perl", "perl", None), ("^openssl", "openssl", None), ("^zlib", "zlib", None),
    ("^cyc-b", "cyc-b", None), ("^[deptypes=link] curl", "curl", {"link"}), ("^[deptypes=build] curl", "curl", {"build"}),
])
def test_a_dependency_matches_at_any_depth_through_every_edge_and_every_record(
        capsys: pytest.CaptureFixture[str], dag_dir: Path, text: str, name: str, deptypes: set[str] | None) -> None:
    expected = dag_mirror.expected_dependents(dag_mirror.index(), name, deptypes)
    code, rows, err = query(capsys, str(dag_dir), "--spec", text)
    assert {row["package"] for row in rows} == expected and code == (0 if expected else 1)


def test_the_walk_reaches_past_records_the_cache_does_not_hold(dag_dir: Path) -> None:
    # app reaches curl only through cmake (a build edge) and mid, both held without their binary;
    # cyc-a only through a cycle with cyc-b. A walk over binaries alone finds neither.
    assert {"app", "cyc-a", "git"} == dag_mirror.expected_dependents(dag_mirror.index(), "curl")


def test_the_details_tree_expands_records_that_are_not_in_the_cache(dag_dir: Path) -> None:
    corpus = load_corpus([str(dag_dir)])
    app = next(i for i in range(corpus.n_specs) if corpus.spec(i).package == "app")
    lines = {(line.depth, line.dependency.name): line for line in dependency_tree(corpus, app, WITH_BUILD)}
    assert lines[(1, "mid")].spec is None and lines[(2, "curl")].spec is not None  # mid's own edge, followed
    assert lines[(1, "cmake")].spec is None and lines[(2, "zlib")].spec is not None
    assert lines[(1, "gcc")].external and not lines[(1, "mid")].external
    assert (3, "openssl") in lines and (4, "perl") in lines  # curl -> openssl (unheld) -> perl (unheld)


def test_dependency_answers_kept_are_bounded_and_stay_right(dag_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(specmatch, "DEPENDENCY_MASKS_KEPT", 2)
    corpus = load_corpus([str(dag_dir)])

    def packages(text: str) -> set[str]:
        return {corpus.spec(int(i)).package for i in match(corpus, Query(spec=parse_spec_query(text)))}

    names = ["curl", "perl", "openssl", "zlib"]
    first = {name: packages(f"^{name}") for name in names}
    assert len(corpus.memo["dependency-masks"]) == 2  # typing one query after another keeps only the last
    assert {name: packages(f"^{name}") for name in names} == first  # asked again, worked out again alike
    assert first["curl"] == dag_mirror.expected_dependents(dag_mirror.index(), "curl")
