"""The bundled sample (the five seed documents) loads completely and exactly."""

from __future__ import annotations

from collections import Counter

from cachetui.core.load.sample import sample_path
from cachetui.core.model.corpus import Corpus
from cachetui.core.query.query import Query, facet_counts, match
from cachetui.core.query.results import package_counts_for
from cachetui.core.spack.compilers import normalise_compiler
from tests.conftest import SEED_FILES, read_seed_specs

# The sample writes oneapi both ways; a compiler is counted under Spack 1.x's package name.
SPACK_1_NAMES = {"oneapi": "intel-oneapi-compilers"}


def independent_specs() -> list[tuple[str, dict]]:
    return [(title, spec) for path in SEED_FILES for title, specs in [read_seed_specs(path)] for spec in specs]


def test_the_sample_is_five_documents_four_packages_two_tags_362_specs(sample_corpus: Corpus) -> None:
    assert len(sample_corpus.documents) == 5
    assert len(sample_corpus.packages) == 4
    assert sample_corpus.tags == ["develop", "develop-2025-04-20"]
    assert sample_corpus.n_specs == 362
    assert sample_corpus.report.problems == []


def test_the_bundled_sample_matches_the_seed_list() -> None:
    assert [p.name for p in SEED_FILES] == sorted(p.name for p in sample_path().glob("*.txt"))
    assert len(SEED_FILES) == 5


def test_specs_per_package_match_an_independent_count(sample_corpus: Corpus) -> None:
    expected = Counter(title for title, _ in independent_specs())
    assert package_counts_for(sample_corpus, Query()) == dict(expected)


def test_every_single_valued_facet_matches_an_independent_count(sample_corpus: Corpus) -> None:
    specs = [spec for _, spec in independent_specs()]
    expected = {
        "os": Counter(s["os"] for s in specs),
        "platform": Counter(s["platform"] for s in specs),
        "target": Counter(s["target"] for s in specs),
        "version": Counter(s["versions"][0] for s in specs),
        "compiler": Counter(normalise_compiler(s["compiler"]) for s in specs),
        "compiler_name": Counter(SPACK_1_NAMES.get(n, n) for n in (s["compiler"].split("@")[0] for s in specs)),
    }
    for facet, counts in expected.items():
        assert facet_counts(sample_corpus, Query(), facet) == dict(counts), facet


def test_stack_and_tag_counts_match_an_independent_count(sample_corpus: Corpus) -> None:
    rows = independent_specs()
    stacks = Counter(stack for _, spec in rows for stack in spec["stacks"])
    assert facet_counts(sample_corpus, Query(), "stack") == dict(stacks)
    per_tag = Counter()
    for path in SEED_FILES:
        tag = next(line for line in path.read_text().splitlines() if line.startswith("categories:"))
        per_tag[tag.rstrip("]").rpartition(",")[2].strip()] += len(read_seed_specs(path)[1])
    assert facet_counts(sample_corpus, Query(), "tag") == dict(per_tag)


def test_at_equals_and_plain_compiler_spellings_are_one_compiler(sample_corpus: Corpus) -> None:
    compilers = sample_corpus.vocab["compiler"].values
    assert "gcc@13.2.0" in compilers
    assert not any("@=" in c for c in compilers)
    pdm = match(sample_corpus, Query("py-pdm-backend", {"compiler": frozenset({"gcc@13.2.0"})}))
    raw = [s for t, s in independent_specs() if t == "py-pdm-backend" and s["compiler"] == "gcc@=13.2.0"]
    assert len(pdm) == len(raw) > 0


def test_each_hash_knows_the_tags_it_appears_in(sample_corpus: Corpus) -> None:
    for i in range(sample_corpus.n_specs):
        spec = sample_corpus.spec(i)
        assert spec.tag in sample_corpus.tags_of_hash(spec.hash)
