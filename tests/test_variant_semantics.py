"""Variant filters mean what Spack users mean.

Values of one variant are alternatives (`cuda_arch=80` or `cuda_arch=90`); different
variants must all hold (`+mpi ~cuda`). Documents' `key:=value` spelling is the same
variant as `key=value`, and the detail pane still shows it as written.
"""

from __future__ import annotations

import json
from itertools import product

import pytest

from cachetui.cli.main import main
from cachetui.core.load.sources.site.loader import load_paths
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query, facet_counts, match
from cachetui.core.spack.variants import VariantKind, atom_name, parse_variants, variant_atoms
from tests.conftest import WriteDoc, listing, spec_entry

# Every combination of mpi and cuda, twice (two cuda_arch spellings), like real py-torch listings.
COMBOS = [
    (mpi, cuda, arch)
    for (mpi, cuda), arch in product(product("+~", "+~"), ("cuda_arch=80,90", "cuda_arch:=80"))
]


def _hash(i: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz234567"[i] * 32


@pytest.fixture
def tree(write_doc: WriteDoc):  # noqa: ANN201
    specs = [
        spec_entry(_hash(i), variants=[f"{mpi}mpi", f"{cuda}cuda", arch, "build_type=Release"])
        for i, (mpi, cuda, arch) in enumerate(COMBOS)
    ]
    return write_doc("_cache/develop/py-torch/specs.md", listing("py-torch", "develop", specs)).parent


def _corpus(tree) -> Corpus:  # noqa: ANN001
    result = load_paths([tree])
    return build_corpus(result.documents, result.report)


def _expected(predicate) -> set[str]:  # noqa: ANN001
    return {_hash(i) for i, combo in enumerate(COMBOS) if predicate(*combo)}


def _hashes(corpus: Corpus, variants: set[str]) -> set[str]:
    return {corpus.hashes[i] for i in match(corpus, Query("py-torch", {"variant": frozenset(variants)}))}


def test_different_variants_must_all_hold(tree) -> None:  # noqa: ANN001
    corpus = _corpus(tree)
    assert _hashes(corpus, {"+mpi", "~cuda"}) == _expected(lambda m, c, a: m == "+" and c == "~")
    assert len(_hashes(corpus, {"+mpi", "~cuda"})) == 2


def test_values_of_one_variant_are_alternatives(tree) -> None:  # noqa: ANN001
    corpus = _corpus(tree)
    assert _hashes(corpus, {"+mpi", "~mpi"}) == _expected(lambda m, c, a: True)
    both = _hashes(corpus, {"+mpi", "~mpi", "~cuda"})
    assert both == _expected(lambda m, c, a: c == "~")


def test_colon_equals_is_the_same_multi_valued_variant(tree) -> None:  # noqa: ANN001
    corpus = _corpus(tree)
    assert _hashes(corpus, {"cuda_arch=80"}) == _expected(lambda m, c, a: True)  # both spellings hold 80
    assert _hashes(corpus, {"cuda_arch=90"}) == _expected(lambda m, c, a: a == "cuda_arch=80,90")
    counts = facet_counts(corpus, Query("py-torch"), "variant")
    assert counts["cuda_arch=80"] == 8 and counts["cuda_arch=90"] == 4
    assert not any(value.startswith("cuda_arch:") for value in counts)  # no second variant named `cuda_arch:`


def test_detail_keeps_the_document_spelling(tree) -> None:  # noqa: ANN001
    corpus = _corpus(tree)
    written = {v for i in range(corpus.n_specs) for v in corpus.spec(i).raw_variants}
    assert "cuda_arch:=80" in written
    (variant,) = parse_variants("cuda_arch:=80")
    assert (variant.name, variant.values, str(variant)) == ("cuda_arch", ("80",), "cuda_arch:=80")


def test_counts_keep_alternatives_of_a_chosen_variant_visible(tree) -> None:  # noqa: ANN001
    corpus = _corpus(tree)
    counts = facet_counts(corpus, Query("py-torch", {"variant": frozenset({"+mpi", "~cuda"})}), "variant")
    assert counts["~mpi"] == 2  # what choosing ~mpi as well would add: ~mpi ~cuda
    assert counts["+cuda"] == 2  # likewise +mpi +cuda
    assert counts["cuda_arch=90"] == 1  # other variants count under both filters: +mpi ~cuda with 90


def test_cli_variant_options_and_across_names(tree, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    main(["query", str(tree), "--variant", "+mpi", "--variant", "~cuda", "--format", "json", "--no-cache"])
    rows = json.loads(capsys.readouterr().out)
    assert {r["hash"] for r in rows} == _expected(lambda m, c, a: m == "+" and c == "~")
    main(["query", str(tree), "--variant", "cuda_arch=80", "--format", "json", "--no-cache"])
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 8 and any("cuda_arch:=80" in r["variants"] for r in rows)


@pytest.mark.parametrize(
    ("text", "atoms", "names"),
    [
        ("+mpi", ("+mpi",), {"mpi"}),
        ("~~cuda", ("~cuda",), {"cuda"}),
        ("cuda_arch:=80,90", ("cuda_arch=80", "cuda_arch=90"), {"cuda_arch"}),
        ("patches:=1d74a11,65f5630", ("patches=1d74a11", "patches=65f5630"), {"patches"}),
        ("build_type==Release", ("build_type=Release",), {"build_type"}),
    ],
)
def test_atoms_and_their_variant_names(text: str, atoms: tuple[str, ...], names: set[str]) -> None:
    assert variant_atoms((text,)) == atoms
    assert {atom_name(a) for a in atoms} == names


def test_colon_equals_parses_as_the_plain_kind() -> None:
    (multi,) = parse_variants("cuda_arch:=80,90")
    assert multi.kind is VariantKind.LIST and multi.exact and multi.values == ("80", "90")
