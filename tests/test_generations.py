"""Older generations of the site's documents load what they provide."""

from __future__ import annotations

import json

from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from tests.conftest import WriteDoc, front_matter

HASH_A = "a" * 32
HASH_B = "b" * 32


def test_architecture_triple_bare_variants_and_numeric_size(write_doc: WriteDoc) -> None:
    entry = {"hash": HASH_A, "versions": ["1.0"], "compiler": "gcc@9.3.0", "architecture": "linux-ubuntu20.04-x86_64",
             "variants": ["mpi", "shared"], "stacks": ["e4s"], "size": 123456}
    doc = front_matter(
        title='"zlib"', layout="cache", categories="[package, v0.18.1]",
        meta={"arches": ["linux-ubuntu20.04-x86_64"], "versions": ["1.0"], "compilers": ["gcc@9.3.0"]},
        spec_names=["zlib@1.0%gcc@9.3.0 arch=linux-ubuntu20.04-x86_64"], spec_files=["spec-0.json"],
        spec_details=[entry],
    )
    path = write_doc("_cache/v0.18.1/zlib/specs.md", doc)
    result = load_paths([path])
    (loaded,) = result.documents
    assert loaded.generation == "spec_names"
    (spec,) = loaded.specs
    assert (spec.platform, spec.os, spec.target) == ("linux", "ubuntu20.04", "x86_64")
    assert spec.variants == ("mpi", "shared")
    assert spec.size == 123456
    assert result.report.problems == []


def _spec_json(hash_: str, version: str) -> str:
    node = {
        "name": "adiak", "version": version, "hash": hash_,
        "arch": {"platform": "linux", "platform_os": "ubuntu20.04", "target": {"name": "x86_64"}},
        "compiler": {"name": "gcc", "version": "9.3.0"},
        "parameters": {"mpi": True, "shared": False, "build_type": "RelWithDebInfo", "cflags": [],
                       "cuda_arch": ["70", "80"]},
    }
    return json.dumps({"spec": {"_meta": {"version": 3}, "nodes": [node]}})


def test_oldest_generation_reads_spec_files_beside_the_index(write_doc: WriteDoc) -> None:
    doc = front_matter(
        title='"adiak"', layout="cache", category="package",
        meta={"versions": ["0.1.1", "0.2.1"], "compilers": ["gcc@9.3.0"]},
        spec_files=[{"adiak@0.1.1%gcc@9.3.0 +mpi": "spec-0.json"}, {"adiak@0.2.1": "spec-1.json"}],
    )
    index = write_doc("_cache/adiak/index.md", doc)
    write_doc("_cache/adiak/spec-0.json", _spec_json(HASH_A, "0.1.1"))
    write_doc("_cache/adiak/spec-1.json", _spec_json(HASH_B, "0.2.1"))
    result = load_paths([index.parent.parent])  # spec-N.json are walked too, and skipped as non-documents
    corpus = build_corpus(result.documents, result.report)
    assert corpus.report.problems == []
    assert corpus.packages == ["adiak"] and corpus.tags == ["unknown"]
    spec = corpus.spec(0)
    assert spec.hash == HASH_A and spec.compiler == "gcc@9.3.0" and spec.target == "x86_64"
    assert spec.raw_variants == ("build_type=RelWithDebInfo", "cuda_arch=70,80", "+mpi", "~shared")


def test_a_spec_file_is_read_by_the_rules_of_a_database_node(write_doc: WriteDoc) -> None:
    """Values sorted, patches cut to 7 characters, a value with a space quoted, a name Spack could not have
    written left out, and fields of the wrong type empty (not their Python text), as for a mirror's index."""
    node = json.loads(_spec_json(HASH_A, "0.1.1"))["spec"]["nodes"][0]
    node["parameters"] = {"patches": ["bb" * 32, "aa" * 32], "cuda_arch": ["80", "70"], "flags": "-O2 -g",
                          "mpi +cuda": True, "ldflags": ["-s"]}
    node["arch"]["platform"] = 5
    write_doc("_cache/adiak/spec-0.json", json.dumps({"spec": {"nodes": [node]}}))
    index = write_doc("_cache/adiak/index.md", front_matter(title='"adiak"', category="package",
                                                            spec_files=["spec-0.json"]))
    (loaded,) = load_paths([index]).documents
    (spec,) = loaded.specs
    assert spec.variants == ("cuda_arch=70,80", 'flags="-O2 -g"', "patches=aaaaaaa,bbbbbbb")
    assert (spec.platform, spec.os, spec.compiler) == ("", "ubuntu20.04", "gcc@9.3.0")


def test_spec_files_that_escape_the_directory_are_refused(write_doc: WriteDoc) -> None:
    doc = front_matter(title='"x"', category="package", spec_files=["../secret.json"])
    path = write_doc("_cache/x/index.md", doc)
    write_doc("_cache/secret.json", _spec_json(HASH_A, "1"))
    result = load_paths([path])
    assert result.documents == []
    (problem,) = result.report.errors
    assert "unsupported format" in problem.reason


def test_a_listing_with_neither_details_nor_files_is_unsupported(write_doc: WriteDoc) -> None:
    path = write_doc("_cache/develop/x/specs.md", front_matter(title='"x"', layout="cache"))
    (problem,) = load_paths([path]).report.errors
    assert problem.reason.startswith("unsupported format")


def test_tag_falls_back_to_the_cache_path(write_doc: WriteDoc) -> None:
    entry = {"hash": HASH_A, "versions": ["1"], "compiler": "gcc@1", "platform": "linux", "os": "o",
             "target": "t", "variants": [], "stacks": [], "size": "-"}
    path = write_doc("_cache/v0.20.1/pkg/specs.md", front_matter(title='"pkg"', spec_details=[entry]))
    (doc,) = load_paths([path]).documents
    assert doc.tag == "v0.20.1"


def test_the_spec_names_generation_per_entry_arches_triple(write_doc: WriteDoc) -> None:
    """The spec_names-era generator wrote `"arches": "linux-ubuntu20.04-x86_64"` in each entry."""
    entry = {"hash": HASH_A, "versions": ["1.0"], "compiler": "gcc@9.3.0", "arches": "linux-ubuntu18.04-skylake",
             "variants": ["+mpi"], "stacks": ["e4s"], "size": 1}
    doc = front_matter(title='"zlib"', layout="cache", categories="[package, v0.18.1]",
                       spec_names=["zlib@1.0"], spec_details=[entry])
    (loaded,) = load_paths([write_doc("_cache/v0.18.1/zlib/specs.md", doc)]).documents
    (spec,) = loaded.specs
    assert (spec.platform, spec.os, spec.target) == ("linux", "ubuntu18.04", "skylake")
    assert loaded.problems == []
