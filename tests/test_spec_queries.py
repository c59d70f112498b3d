"""Spec queries mean what they mean to Spack.

The expected answers below are written by hand from Spack's documented semantics
(spack.readthedocs.io "Spec syntax", `lib/spack/spack/spec_parser.py`, `version/`,
`variant.py`, and ArchSpec's target rules), one row per query, over a small corpus whose
binaries are named by what makes them special. They are not taken from cachetui's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachetui.cli.main import main
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.filters import UnknownValue
from cachetui.core.query.query import Query, RunsOn, match
from cachetui.core.query.specmatch import NoDependencyData, hash_matches
from cachetui.core.spack.specquery import NotRecorded, SpecSyntaxError, parse_spec_query
from cachetui.core.spack.targets import Host
from tests.spec_tree import BINARIES, hash_of, write_tree

HDF5 = {label for label, b in BINARIES.items() if b[0] == "hdf5"}
KOKKOS = {label for label, b in BINARIES.items() if b[0] == "kokkos"}
MPI = {label for label, b in BINARIES.items() if "+mpi" in b[3]}

# query -> the binaries that satisfy it (by label)
EXPECTED = {
    "hdf5": HDF5,
    "hdf5@1.14": HDF5 - {"hold"},  # 1.14 is the range 1.14 to 1.14.x
    "zlib@1.2": {"ztwo"},  # 1.2.13, not 1.20.1
    "zlib@1.2:1.3": {"ztwo", "zthree"},  # 1.20.1 > 1.3
    "zlib@1.2:": {"ztwo", "ztwenty", "zthree"},
    "@:1.0": {"zancient", "zzero"},  # the upper bound holds its children: 1.0.8
    "zlib@1.0.8,1.3": {"zzero", "zthree"},
    "kokkos@=4.3.01": {"kexact", "kboth"},  # exactly; not 4.3.01.1
    "kokkos@4.3.01": {"kexact", "kboth", "kpatch"},
    "hdf5@1.14: +mpi target=x86_64_v3 %gcc": {"hmpi", "hgcctwelve"},  # a target name is that target, not a zen3
    "%oneapi": {"hcuda", "kninety", "knewname"},  # either spelling of the compiler
    "%intel-oneapi-compilers": {"hcuda", "kninety", "knewname"},
    "%oneapi@2024": {"hcuda", "kninety"},
    "%clang": {"kold"},  # llvm's other name; apple-clang is another compiler
    "%llvm@17": {"kold"},
    "hdf5 %gcc@13": {"hmpi", "hzen", "hserial", "hold", "hvone", "hvtwo", "hnone"},
    "hdf5 %gcc@=13.2.0": {"hmpi", "hserial", "hold", "hvone", "hvtwo", "hnone"},
    "hdf5 %c,cxx=gcc@13": {"hmpi", "hzen", "hserial", "hold", "hvone", "hvtwo", "hnone"},
    "hdf5 %gcc@12:12.3.0": {"hgcctwelve"},
    "+mpi ~cuda": {"hmpi", "hzen", "hgcctwelve", "hold", "hvone"},  # a binary without the variant has neither
    "++mpi ~~cuda": {"hmpi", "hzen", "hgcctwelve", "hold", "hvone"},
    "hdf5 -cuda": {"hmpi", "hzen", "hgcctwelve", "hserial", "hold", "hvone"},
    "mpi=true": MPI,
    "mpi=false": {"hserial"},
    "cuda_arch=80": {"hcuda", "kexact", "kboth"},  # `:=80` in a document is the same variant
    "cuda_arch==80": {"hcuda", "kexact", "kboth"},
    "cuda_arch:=80": {"kexact"},  # exactly 80
    "cuda_arch=80,90": {"hcuda", "kboth"},  # at least both
    "kokkos cuda_arch:=80,90": {"kboth"},
    "build_type=Release": {"hmpi"},
    "target=x86_64_v3:": {"hmpi", "hzen", "hgcctwelve", "hserial", "hold", "hcuda", "kexact", "kboth", "kpatch",
                          "kninety", "pfxaaab", "pfxaaac"},
    "zlib target=:x86_64_v2": {"zancient", "zzero", "ztwo", "ztwenty", "zthree"},
    "target=:x86_64_v2 %oneapi": {"knewname"},
    "target=neoverse_v1,neoverse_v2": {"hvone", "hvtwo"},
    "target=aarch64:": {"hvone", "hvtwo", "hnone", "haarch", "hmac"},
    "arch=linux-rhel8-aarch64": {"haarch"},
    "platform=darwin": {"hmac"},
    "os=rhel8": {"hcuda", "haarch"},
    "hdf5 os=rhel8 +cuda": {"hcuda"},
    "/pfxaaa": {"pfxaaab", "pfxaaac"},  # a prefix, across the whole corpus
    "/pfxaaab": {"pfxaaab"},
    "py-numpy/pfxaaac": {"pfxaaac"},
    "hdf5 /pfxaaa": set(),  # a real prefix, but not of an hdf5
    "builtin.zlib@1.3": {"zthree"},  # a namespace is not part of the name
}

# machine -> binaries that run on it: the target is the machine or one of its ancestors (archspec)
RUNS_ON = {
    "zen3": {label for label, b in BINARIES.items() if b[6] in ("x86_64", "x86_64_v2", "x86_64_v3", "zen3")},
    "icelake": {label for label, b in BINARIES.items()
                if b[6] in ("x86_64", "x86_64_v2", "x86_64_v3", "x86_64_v4", "icelake")},
    # Graviton 2 binaries run on Graviton 3 and 4; Graviton 3's (neoverse_v1) not on Graviton 4's neoverse_v2
    "neoverse_v2": {"hvtwo", "hnone", "haarch"},
    "neoverse_v1": {"hvone", "hnone", "haarch"},
    "m1": {"haarch", "hmac"},
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("spec-queries"))


@pytest.fixture(scope="module")
def corpus(tree: Path) -> Corpus:
    result = load_paths([tree])
    assert not result.report.errors
    return build_corpus(result.documents, result.report)


def _labels(corpus: Corpus, query: Query) -> set[str]:
    by_hash = {hash_of(label): label for label in BINARIES}
    return {by_hash[corpus.hashes[i]] for i in match(corpus, query)}


@pytest.mark.parametrize("text", list(EXPECTED))
def test_a_spec_query_selects_what_spack_would(corpus: Corpus, text: str) -> None:
    assert _labels(corpus, Query(spec=parse_spec_query(text))) == EXPECTED[text]


@pytest.mark.parametrize("machine", list(RUNS_ON))
def test_runs_on_keeps_the_targets_a_machine_can_run(corpus: Corpus, machine: str) -> None:
    assert _labels(corpus, Query(runs_on=RunsOn(machine))) == RUNS_ON[machine]


def test_runs_on_the_host_also_needs_its_platform(corpus: Corpus) -> None:
    assert _labels(corpus, Query(runs_on=RunsOn("m1", "darwin"))) == {"hmac"}  # not the linux aarch64 one


def test_a_spec_query_is_anded_with_the_package_and_facets(corpus: Corpus) -> None:
    query = Query("hdf5", {"os": frozenset({"rhel8"})}, parse_spec_query("+mpi"), RunsOn("zen3"))
    assert _labels(corpus, query) == set()
    query = Query("hdf5", {"os": frozenset({"rhel8", "ubuntu22.04"})}, parse_spec_query("+mpi"), RunsOn("zen3"))
    assert _labels(corpus, query) == {"hmpi", "hzen", "hgcctwelve", "hold"}


def test_a_hash_prefix_is_found_across_the_corpus(corpus: Corpus) -> None:
    assert {corpus.hashes[i] for i in hash_matches(corpus, "pfxaaa")} == {hash_of("pfxaaab"), hash_of("pfxaaac")}
    assert len(hash_matches(corpus, hash_of("kexact"))) == 1
    assert len(hash_matches(corpus, "zzzz")) == 0


@pytest.mark.parametrize(
    ("text", "kind", "near"),
    [
        ("hfd5", "package", "hdf5"),  # a typo is said, with the near name, never an empty table
        ("%gnu", "compiler", None),
        ("%oneap", "compiler", "intel-oneapi-compilers"),  # suggested under the name it is shown by
        ("+mip", "variant", "mpi"),
        ("cuda_arch=70", "variant value", "cuda_arch=80"),
        ("target=zen9", "target", None),
        ("os=rhel9", "os", "rhel8"),
        ("kokkos@5", "version", None),
        ("target=x86_64_v9:", "target", None),
    ],
)
def test_names_the_corpus_does_not_know_are_errors(corpus: Corpus, text: str, kind: str, near: str | None) -> None:
    with pytest.raises(UnknownValue) as caught:
        match(corpus, Query(spec=parse_spec_query(text)))
    assert caught.value.what == kind
    if near:
        assert near in caught.value.suggestions


def test_dependencies_are_asked_of_sources_that_record_them(corpus: Corpus) -> None:
    with pytest.raises(NoDependencyData, match="site documents record none"):
        match(corpus, Query(spec=parse_spec_query("hdf5 ^zlib")))


@pytest.mark.parametrize(
    ("text", "column", "says"),
    [
        ("hdf5 @", 5, "unexpected"),
        ("hdf5 %", 5, "'%' must be followed by a compiler"),
        ("hdf5 %+mpi", 5, "'%' must be followed by a compiler"),
        ("hdf5@1.14@1.12", 9, "one version"),
        ("hdf5 ^", 5, "'^' must be followed by a package name"),
        ("hdf5 ^+mpi", 5, "'^' must be followed by a package name"),
        ("arch=linux-x86_64", 0, "platform-os-target"),
        ("hdf5 /ABC", 5, "base32"),
        ("hdf5 $x", 5, "unexpected '$'"),
        ("hdf5 zlib", 5, "unexpected 'zlib'"),
        ("cuda_arch=", 0, "needs a value"),
        ("hdf5@1.2:1.1", 4, "empty range"),
        ("^[when=x] zlib", 0, "edge attributes"),
    ],
)
def test_a_malformed_query_says_what_and_where(text: str, column: int, says: str) -> None:
    with pytest.raises(SpecSyntaxError) as caught:
        parse_spec_query(text)
    assert caught.value.position == column and says in caught.value.message


def test_the_parts_are_read_as_spack_reads_them() -> None:
    query = parse_spec_query("hdf5@1.14: +mpi ~cuda cuda_arch:=80 target=x86_64_v3: %c,cxx=gcc@13 ^[deptypes=link] zlib@1.3")
    root = query.root
    assert root.name == "hdf5" and str(root.versions) == "1.14:"
    assert [(v.name, v.values, v.exact) for v in root.variants] == [
        ("mpi", ("true",), False), ("cuda", ("false",), False), ("cuda_arch", ("80",), True)]
    ((compiler),) = root.compilers
    assert (compiler.name, str(compiler.versions), compiler.languages) == ("gcc", "13", ("c", "cxx"))
    assert [(a.key, a.values) for a in root.arch] == [("target", ("x86_64_v3:",))]
    (dependency,) = query.dependencies
    assert dependency.node.name == "zlib" and dependency.deptypes == ("link",)


def test_options_after_a_compiler_are_the_compilers_as_spack_1_reads_them_and_refused() -> None:
    # Spack 1.x: `%` names a direct dependency, and what follows it is that dependency's (gcc's +mpi and
    # target), which build caches do not record: refused, saying how it was read, before any corpus is asked.
    with pytest.raises(NotRecorded) as caught:
        parse_spec_query("hdf5 %gcc@13 +mpi target=zen3")
    message = caught.value.message
    assert "Spack 1.x" in message and "'+mpi target=zen3' after '%gcc'" in message
    assert "'hdf5 +mpi target=zen3 %gcc@13'" in message  # the other reading
    assert caught.value.position == len("hdf5 %gcc@13 ")  # where the compiler's options start


# -- the command line --------------------------------------------------------------------------------------


def _cli(capsys: pytest.CaptureFixture[str], tree: Path, *options: str) -> tuple[int, set[str], str]:
    code = main(["query", str(tree), "--no-cache", "--format", "json", *options])
    out, err = capsys.readouterr()
    by_hash = {hash_of(label): label for label in BINARIES}
    return code, {by_hash[row["hash"]] for row in json.loads(out)} if out else set(), err


@pytest.mark.parametrize("text", ["hdf5@1.14: +mpi target=x86_64_v3 %gcc", "%oneapi", "@:1.0", "kokkos@=4.3.01",
                                  "+mpi ~cuda", "cuda_arch=80", "/pfxaaa"])
def test_query_spec_answers_as_the_core_does(capsys: pytest.CaptureFixture[str], tree: Path, text: str) -> None:
    assert _cli(capsys, tree, "--spec", text) == (0, EXPECTED[text], "")


def test_query_spec_is_anded_with_the_other_options(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    code, found, _ = _cli(capsys, tree, "--spec", "hdf5 +mpi", "--target", "x86_64_v3", "--runs-on", "zen3")
    assert (code, found) == (0, {"hmpi", "hgcctwelve", "hold"})


def test_runs_on_a_named_machine(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    assert _cli(capsys, tree, "--runs-on", "neoverse_v2")[:2] == (0, RUNS_ON["neoverse_v2"])
    assert _cli(capsys, tree, "--runs-on", "zen3")[:2] == (0, RUNS_ON["zen3"])


def test_runs_on_host_is_this_machine_and_its_platform(capsys: pytest.CaptureFixture[str], tree: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cachetui.cli.query.host", lambda: Host("darwin", "m2"))
    assert _cli(capsys, tree, "--runs-on", "host")[:2] == (0, {"hmac"})  # aarch64 runs on an m2, but linux's doesn't


def test_a_malformed_query_is_a_usage_error_that_points_at_the_fault(capsys: pytest.CaptureFixture[str],
                                                                    tree: Path) -> None:
    code = main(["query", str(tree), "--spec", "hdf5 %+mpi"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "'%' must be followed by a compiler" in err and "\n  hdf5 %+mpi\n       ^" in err


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (("--spec", "hfd5 +mpi"), "did you mean: hdf5"),
        (("--spec", "hdf5 ^zlib"), "site documents record none"),
        (("--runs-on", "zen9"), "unknown microarchitecture 'zen9'"),
    ],
)
def test_what_the_corpus_cannot_answer_exits_1_and_says_why(capsys: pytest.CaptureFixture[str], tree: Path,
                                                            options: tuple[str, ...], says: str) -> None:
    code, found, err = _cli(capsys, tree, *options)
    assert (code, found) == (1, set()) and says in err
