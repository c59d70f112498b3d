"""One compiler, one value: Spack 1.x's package names and the old compiler names count, match and read as one.

Site documents write the old names (`oneapi@=2024.2.1`, `clang@17.0.6`); a Spack 1.x mirror records
the compiler as the package a build edge provides `c` with (`intel-oneapi-compilers`, `llvm`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cachetui.core.load.pipeline import load_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.diff import diff, tag_side
from cachetui.core.query.query import Query, all_facet_counts, match
from cachetui.core.query.resolve import UnknownValue
from cachetui.core.spack.specquery import parse_spec_query
from tests.cli_answers import query
from tests.conftest import WriteDoc, listing, spec_entry
from tests.mirrors import v3_mirror

# label: (package, version, compiler as a site document writes it)
SITE = {
    "shdfone": ("hdf5", "1.14.5", "oneapi@=2024.2.1"),
    "shdfnew": ("hdf5", "1.14.3", "oneapi@2025.0.0"),
    "szlib": ("zlib", "1.3", "clang@17.0.6"),
    "sgcc": ("zlib", "1.3", "gcc@13.2.0"),
}
# label: (package, version, the compiler package providing `c`, its version)
MIRROR = {
    "mhdf": ("hdf5", "1.14.5", "intel-oneapi-compilers", "2024.2.1"),
    "mzlib": ("zlib", "1.3.1", "llvm", "17.0.6"),
}
COMPILERS = {"intel-oneapi-compilers": "2024.2.1", "llvm": "17.0.6"}


def hash_of(label: str) -> str:
    return (label + "q" * 32)[:32]


def _node(name: str, version: str, dependencies: list[dict[str, Any]]) -> dict[str, Any]:
    arch = {"platform": "linux", "platform_os": "ubuntu22.04", "target": {"name": "x86_64_v3"}}
    node: dict[str, Any] = {"name": name, "version": version, "namespace": "builtin", "hash": hash_of(name),
                            "arch": arch, "parameters": {}}
    if dependencies:
        node["dependencies"] = dependencies
    return node


def _index() -> dict[str, Any]:
    installs = {}
    for name, version in COMPILERS.items():
        node = _node(name, version, [])
        node["external"] = {"path": "/opt", "module": None, "extra_attributes": {}}
        installs[hash_of(name)] = {"spec": node, "ref_count": 1, "in_buildcache": False}
    for label, (package, version, compiler, _) in MIRROR.items():
        edge = {"name": compiler, "hash": hash_of(compiler), "parameters": {"deptypes": ["build"],
                                                                             "virtuals": ["c", "cxx"]}}
        node = _node(package, version, [edge])
        node["hash"] = hash_of(label)
        installs[hash_of(label)] = {"spec": node, "ref_count": 0, "in_buildcache": True}
    return {"database": {"version": "8", "installs": installs}}


def write_sources(root: Path) -> list[str]:
    """The site documents and the mirror under `root`, as paths to load together."""
    by_package: dict[str, list[dict[str, Any]]] = {}
    for label, (package, version, compiler) in SITE.items():
        by_package.setdefault(package, []).append(spec_entry(hash_of(label), versions=[version], compiler=compiler))
    for package, specs in by_package.items():
        path = root / "site" / "_cache" / "develop" / package / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(package, "develop", specs))
    v3_mirror(root / "mirror", json.dumps(_index()).encode())
    return [str(root / "site"), str(root / "mirror")]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return write_sources(tmp_path_factory.mktemp("compiler-names"))


@pytest.fixture(scope="module")
def corpus(sources: list[str]) -> Corpus:
    return load_corpus(sources)


def _count(corpus: Corpus, text: str) -> int:
    return len(match(corpus, Query(spec=parse_spec_query(text))))


def test_both_names_of_a_compiler_are_one_facet_value_with_one_count(corpus: Corpus) -> None:
    counts = all_facet_counts(corpus, Query())
    # hdf5 from the site (2, written `oneapi`) and from the mirror (1, `intel-oneapi-compilers`)
    assert counts["compiler_name"] == {"intel-oneapi-compilers": 3, "llvm": 2, "gcc": 1}
    assert counts["compiler"] == {"intel-oneapi-compilers@2024.2.1": 2, "intel-oneapi-compilers@2025.0.0": 1,
                                  "llvm@17.0.6": 2, "gcc@13.2.0": 1}


@pytest.mark.parametrize(("typed", "value"), [
    ("%oneapi", "intel-oneapi-compilers"), ("%intel-oneapi-compilers", "intel-oneapi-compilers"),
    ("%clang", "llvm"), ("%llvm", "llvm"),
])
def test_a_compiler_name_query_finds_what_its_facet_value_counts(corpus: Corpus, typed: str, value: str) -> None:
    assert _count(corpus, typed) == all_facet_counts(corpus, Query())["compiler_name"][value]


@pytest.mark.parametrize(("typed", "value"), [
    ("%oneapi@2024.2.1", "intel-oneapi-compilers@2024.2.1"), ("%intel-oneapi-compilers@=2024.2.1",
                                                              "intel-oneapi-compilers@2024.2.1"),
    ("%clang@17", "llvm@17.0.6"),
])
def test_a_compiler_version_query_finds_what_its_facet_value_counts(corpus: Corpus, typed: str, value: str) -> None:
    assert _count(corpus, typed) == all_facet_counts(corpus, Query())["compiler"][value]


def test_the_cli_compiler_option_counts_what_the_facet_counts(capsys: pytest.CaptureFixture[str],
                                                             sources: list[str], corpus: Corpus) -> None:
    facet = all_facet_counts(corpus, Query())["compiler"]
    for typed in ("oneapi@2024.2.1", "intel-oneapi-compilers@2024.2.1"):
        code, rows, _ = query(capsys, *sources, "--compiler", typed)
        assert code == 0 and len(rows) == facet["intel-oneapi-compilers@2024.2.1"] == 2
        # one binary from each kind of source, written each its own way, read the same
        assert {row["compiler"] for row in rows} == {"intel-oneapi-compilers@2024.2.1"}
        assert {row["tag"] for row in rows} == {"develop", "mirror"}


@pytest.mark.parametrize(("typed", "near"), [("%clnag", ["llvm"]), ("%oneap", ["intel-oneapi-compilers"])])
def test_a_near_miss_of_either_name_suggests_the_compiler_under_the_name_it_is_shown_by(
        corpus: Corpus, typed: str, near: list[str]) -> None:
    with pytest.raises(UnknownValue) as caught:
        _count(corpus, typed)
    assert caught.value.suggestions == near


def test_a_scope_without_the_compiler_says_so_under_the_name_typed(corpus: Corpus) -> None:
    with pytest.raises(UnknownValue, match="zlib has no binary built with %oneapi"):
        match(corpus, Query(spec=parse_spec_query("zlib %oneapi")))


def test_diff_sees_no_configuration_change_when_only_the_compiler_s_name_changed(write_doc: WriteDoc) -> None:
    for tag, compiler, label in (("old", "oneapi@=2024.2.1", "a"), ("new", "intel-oneapi-compilers@2024.2.1", "b")):
        write_doc(f"_cache/{tag}/hdf5/specs.md", listing("hdf5", tag, [spec_entry(label * 32, compiler=compiler)]))
    corpus = load_corpus([str(write_doc("x", "").parent)])
    (hdf5,) = diff(tag_side(corpus, "old"), tag_side(corpus, "new")).packages
    assert (len(hdf5.added), len(hdf5.removed), hdf5.gained, hdf5.lost) == (1, 1, [], [])
