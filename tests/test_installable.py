"""Which binaries `spack install --use-buildcache only` can fetch, checked against a walk of the index JSON.

The walk here follows the issue's rules directly: link and run edges at any depth, through
records held or not; build edges aside; externals count as held; a record held by any loaded
mirror counts as held; site documents are "unknown".
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cachetui.app.widgets.spec_detail import spec_detail
from cachetui.cli.main import main
from cachetui.core.load.pipeline import load_corpus
from cachetui.core.query.query import Query, all_facet_counts
from tests import dag_mirror
from tests.spec_tree import write_tree

# A second mirror that holds what the first lacks: openssl (and so, with perl only a build
# dependency of it, curl and what needs curl through held records become installable).
SECOND = {**dag_mirror.RECORDS, "openssl": (*dag_mirror.RECORDS["openssl"][:1], True,
                                             *dag_mirror.RECORDS["openssl"][2:])}
SECOND = {name: SECOND[name] for name in ("gcc", "zlib", "perl", "openssl")}


def expected(indexes: list[dict[str, Any]]) -> dict[str, str]:
    """hash -> yes/no for every binary of the indexes, by a plain walk of their JSON."""
    records: dict[str, dict[str, Any]] = {}
    held: set[str] = set()
    for index in indexes:
        for hash_, record in index["database"]["installs"].items():
            records.setdefault(hash_, record)
            if record["in_buildcache"] or record["spec"].get("external"):
                held.add(hash_)

    def installable(start: str) -> bool:
        seen, waiting = {start}, [start]
        while waiting:
            record = records.get(waiting.pop())
            if record is None or record["spec"].get("external"):
                continue
            for edge in record["spec"].get("dependencies", []):
                if not {"link", "run"} & set(edge["parameters"]["deptypes"]):
                    continue
                if edge["hash"] not in held:
                    return False
                if edge["hash"] not in seen:
                    seen.add(edge["hash"])
                    waiting.append(edge["hash"])
        return True

    binaries = {h for index in indexes for h, r in index["database"]["installs"].items() if r["in_buildcache"]}
    return {h: "yes" if installable(h) else "no" for h in binaries}


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("installable")
    return (dag_mirror.write_mirror(root / "first"),
            dag_mirror.write_mirror(root / "second", dag_mirror.index(SECOND)))


def _answers(corpus: Any) -> dict[str, str]:
    return {corpus.hashes[i]: corpus.spec(i).installable for i in range(corpus.n_specs)}


def test_one_mirror_agrees_with_the_walk_of_its_index(mirrors: tuple[Path, Path]) -> None:
    corpus = load_corpus([str(mirrors[0])])
    want = expected([dag_mirror.index()])
    assert _answers(corpus) == want
    # the fixture has each case: an unheld link dependency (curl -> openssl), one only through an unheld
    # record (git -> curl), an external compiler, a cycle through an unheld record, a hash with no record
    by_name = {corpus.spec(i).package: corpus.spec(i).installable for i in range(corpus.n_specs)}
    assert by_name == {"zlib": "yes", "lonely": "yes", "app": "no", "curl": "no", "git": "no", "cyc-a": "no",
                       "nodep": "no"}


def test_a_record_held_by_a_second_mirror_counts_as_held(mirrors: tuple[Path, Path]) -> None:
    corpus = load_corpus([str(mirrors[0]), str(mirrors[1])])
    want = expected([dag_mirror.index(), dag_mirror.index(SECOND)])
    assert _answers(corpus) == want
    assert want[dag_mirror.hash_of("curl")] == "yes" and want[dag_mirror.hash_of("git")] == "yes"


def test_the_facet_counts_and_the_cli_agree_with_the_walk(capsys: pytest.CaptureFixture[str],
                                                          mirrors: tuple[Path, Path], tmp_path: Path) -> None:
    site = write_tree(tmp_path / "site")
    sources = [str(mirrors[0]), str(mirrors[1]), str(site)]
    corpus = load_corpus(sources)
    want = expected([dag_mirror.index(), dag_mirror.index(SECOND)])
    counts = all_facet_counts(corpus, Query())["installable"]
    site_specs = int(np.sum([not d.from_mirror for d in corpus.documents for _ in range(d.stop - d.start)]))
    # counts are of listings (a binary in a tag): zlib is in both mirrors, so twice
    listed = [want[h] for index in (dag_mirror.index(), dag_mirror.index(SECOND))
              for h, r in index["database"]["installs"].items() if r["in_buildcache"]]
    assert counts == {"yes": listed.count("yes"), "no": listed.count("no"), "unknown": site_specs}
    for value, flag in (("yes", ["--installable"]), ("no", ["--installable", "no"])):
        code = main(["query", *sources, "--no-cache", "--format", "json", *flag])
        rows = json.loads(capsys.readouterr().out)
        assert code == 0 and {r["hash"] for r in rows} == {h for h, v in want.items() if v == value}
        assert len(rows) == listed.count(value)
        assert {r["installable"] for r in rows} == {value}
    main(["query", *sources, "--no-cache", "--format", "csv", "--installable", "unknown"])
    header, *cells = csv.reader(io.StringIO(capsys.readouterr().out))
    assert cells and {row[header.index("installable")] for row in cells} == {"unknown"}


def test_the_details_say_what_would_have_to_be_built(mirrors: tuple[Path, Path]) -> None:
    corpus = load_corpus([str(mirrors[0])])
    app = next(i for i in range(corpus.n_specs) if corpus.spec(i).package == "app")
    detail = spec_detail(corpus, app, with_build=False)
    # app -> mid (unheld, link) -> curl -> openssl (unheld, link); cmake is only a build dependency
    assert {line.dependency.name for line in detail.missing} == {"mid", "openssl"}
    zlib = next(i for i in range(corpus.n_specs) if corpus.spec(i).package == "zlib")
    assert spec_detail(corpus, zlib, with_build=False).missing == ()
