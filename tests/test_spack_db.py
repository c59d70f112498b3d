"""Reading a build-cache database: the typed and the tolerant reading render a record by the same rules.

Where the two readings once kept their own copies of a rule and disagreed, the tests here pin the
reading chosen (Spack's): a dependency is named by its own record, `external` is set when it is
truthy, an edge's deptypes come from `parameters` else from DB 6's `type`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cachetui.core.load.pipeline import load_corpus
from cachetui.core.load.sources.spack_db import read_database, read_tolerantly
from cachetui.core.load.sources.spack_db.typed import _in_first_come_order
from cachetui.core.model.records import Dependency, ParsedDocument, UnheldRecords
from tests.mirrors import DB6, DB7, DB8, index_bytes, v3_mirror

LIBELF = "jr3yipyxyjulcdvckwwwjrrumis7glpa"  # DB 8: built with the external gcc, which provides c
GCC = "vd7v4ssgnoqdplgxyig3orum67n4vmhq"


def _rendered(documents: list[ParsedDocument]) -> list[tuple]:
    return [(d.package, d.columns.rows(), d.columns.deps.rows() if d.columns.deps else None) for d in documents]


def _both(index: bytes) -> tuple[list[tuple], list[tuple]]:
    typed = read_database(index, "origin", "develop", "mirror index")
    tolerant = read_tolerantly(index, "origin", "develop", "mirror index")
    assert typed.problems == tolerant.problems == []
    return _rendered(typed.documents), _rendered(tolerant.documents)


@pytest.mark.parametrize("fixture", [DB6, DB7, DB8], ids=["db6", "db7", "db8"])
def test_the_tolerant_reading_renders_every_record_as_the_typed_one_does(fixture: Path) -> None:
    typed, tolerant = _both(index_bytes(fixture))
    assert typed == tolerant and typed


def _db8_with(change: Callable[[dict], None]) -> bytes:
    data = json.loads(index_bytes(DB8))
    change(data["database"]["installs"])
    return json.dumps(data).encode()


@pytest.mark.parametrize("odd", [7, None, {"nested": True}, [1, "two"], 1.5], ids=["int", "null", "object", "mixed", "float"])
def test_parameters_of_another_shape_cost_only_their_values_and_the_batch_reads_on(odd: object) -> None:
    """The first reading decodes `parameters` with the record (`HeldNode`): a record whose parameters hold another
    shape is read again with them as text, where that value is left out and the rest kept; every other record of
    its batch is read as before, and both readings agree."""
    def odd_parameters(installs: dict) -> None:
        installs[LIBELF]["spec"]["parameters"].update({"weight": odd, "shared": True})

    index = _db8_with(odd_parameters)
    typed, tolerant = _both(index)
    assert typed == tolerant
    plain, _ = _both(index_bytes(DB8))
    (libelf,) = [(d, row) for d in read_database(index, "o", "t", "g").documents
                 for row, h in enumerate(d.columns.hashes) if h == LIBELF]
    variants = libelf[0].columns.variants[libelf[1]]
    assert "+shared" in variants and not any(v.startswith("weight") for v in variants)
    assert [t for t in typed if t[0] != "libelf"] == [t for t in plain if t[0] != "libelf"]


def test_a_dependency_and_the_compiler_it_provides_are_named_by_its_own_record() -> None:
    def rename_edges(installs: dict) -> None:
        for edge in installs[LIBELF]["spec"]["dependencies"]:
            if edge["hash"] == GCC:
                edge["name"] = "a-name-only-this-edge-uses"

    index = _db8_with(rename_edges)
    for content in (read_database(index, "o", "t", "g"), read_tolerantly(index, "o", "t", "g")):
        (libelf,) = [(d, row) for d in content.documents for row, h in enumerate(d.columns.hashes) if h == LIBELF]
        document, row = libelf
        assert document.columns.compilers[row] == "gcc@10.2.1"
        assert "gcc" in [dep.name for dep in document.columns.deps.rows()[row]]


def test_the_edges_of_a_record_without_its_binary_name_dependencies_by_their_records_too() -> None:
    runtime = "izgzpzeljwairalfjm3k6fntbb64nt6n"  # gcc-runtime, here held without its binary: its edge to gcc

    def unheld_runtime(installs: dict) -> None:
        installs[runtime]["in_buildcache"] = False
        installs[runtime]["spec"]["dependencies"][0]["name"] = "a-name-only-this-edge-uses"

    content = read_database(_db8_with(unheld_runtime), "o", "t", "g")
    (unheld,) = {id(d.columns.deps.table.unheld): d.columns.deps.table.unheld for d in content.documents}.values()
    edges = dict(zip(unheld.hashes, unheld.edges()))[runtime]
    assert [(e.name, e.hash, e.version) for e in edges] == [("gcc", GCC, "10.2.1")]


@pytest.mark.parametrize(("external", "is_external"), [({"path": "/usr"}, True), ("/usr", True), ([], False),
                                                       (0, False), ("", False), ({}, False), (None, False)])
def test_a_record_is_external_when_its_external_is_truthy_as_spack_tests_it(
        tmp_path: Path, external: object, is_external: bool) -> None:
    def set_external(installs: dict) -> None:
        installs[GCC]["spec"]["external"] = external

    v3_mirror(tmp_path / "m", _db8_with(set_external))
    corpus = load_corpus([str(tmp_path / "m")])
    assert corpus.report.problems == []
    assert corpus.is_external(GCC) is is_external


def test_an_edge_without_deptypes_in_its_parameters_takes_them_from_its_type() -> None:
    def legacy_types(installs: dict) -> None:
        for edge in installs[LIBELF]["spec"]["dependencies"]:
            if edge["hash"] == GCC:
                edge["type"] = ["build"]
                del edge["parameters"]["deptypes"]

    content = read_database(_db8_with(legacy_types), "o", "t", "g")
    (compiler,) = [d.columns.compilers[r] for d in content.documents for r, h in enumerate(d.columns.hashes)
                   if h == LIBELF]
    assert compiler == "gcc@10.2.1"  # a build edge providing c, as DB 6 wrote its deptypes


@pytest.mark.parametrize("tolerant", [False, True], ids=["typed", "tolerant"])
def test_a_lone_surrogate_escaped_in_a_record_costs_only_that_record(tolerant: bool) -> None:
    data = json.loads(index_bytes(DB8))
    if tolerant:
        data["database"]["installs"]["rqh2vuf6fqwkmipzgi2wjx352mq7y7ez"]["spec"]["parameters"]["x"] = float("nan")
    text = json.dumps(data).replace('"version": "0.8.13"', '"version": "\\ud800"', 1).encode()
    content = read_database(text, "o", "t", "g")
    loaded = {h for d in content.documents for h in d.columns.hashes}
    (problem,) = content.problems
    assert problem.reason == "record rqh2vuf6fqwkmipzgi2wjx352mq7y7ez: not valid UTF-8; skipped"
    assert loaded == {h for h, r in data["database"]["installs"].items() if r["in_buildcache"]} - {
        "rqh2vuf6fqwkmipzgi2wjx352mq7y7ez"}


@given(st.lists(st.integers(0, 40), max_size=300), st.integers(0, 20))
def test_the_values_edges_name_come_in_the_order_each_first_comes(values: list[int], unused: int) -> None:
    # The dependency table lists each hash where an edge first names it; numbers no edge names are left out.
    distinct = max(values, default=-1) + 1 + unused
    found = _in_first_come_order(np.array(values, dtype=np.int64), distinct)
    assert found.tolist() == list(dict.fromkeys(values))


def test_records_without_their_binary_are_gathered_in_place_whatever_their_number() -> None:
    # Their columns grow in place: a new bytes object per record copied the whole column each time, and an index
    # holding many records without their binary took time quadratic in their number to read.
    unheld = UnheldRecords()
    external, types = unheld.external, unheld.types
    edges = [Dependency("zlib", "z" * 32, "1.3", 3, ""), Dependency("mpi", "m" * 32, "4.1", 1, "mpi")]
    for record in range(3):
        unheld.add(f"{record:032}", "curl", "8.0", record == 1, edges)
    assert unheld.external is external and unheld.types is types
    assert bytes(unheld.external) == b"\0\1\0" and bytes(unheld.types) == b"\3\1" * 3
    assert unheld.edges() == [edges] * 3
