"""Building the corpus from documents: what the layout step itself reports, and the order a site is read in."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cachetui.core.load import LoadOptions, load_corpus
from cachetui.core.load.sources.site.loader import load_bytes, load_file
from cachetui.core.load.sources.site.walk import find_candidates
from cachetui.core.model import build
from cachetui.core.model.arrays import gathered
from cachetui.core.model.build import build_corpus
from cachetui.core.model.corpus import UNIQUE_HASHES, Corpus, Vocabulary
from cachetui.core.model.fields import REGISTRY
from cachetui.core.model.problems import LoadReport
from tests.conftest import listing, spec_entry


def _write(root: Path, tag: str, directory: str, package: str, hash_letter: str) -> str:
    path = root / "_cache" / tag / directory / "specs.md"
    path.parent.mkdir(parents=True)
    path.write_text(listing(package, tag, [spec_entry(hash_letter * 32)]))
    return str(path)


def test_a_package_listed_twice_in_one_tag_is_said_for_each_later_file(tmp_path: Path) -> None:
    later = _write(tmp_path, "develop", "zlib", "zlib", "a")
    first = _write(tmp_path, "develop", "zlib-again", "zlib", "b")
    also = _write(tmp_path, "develop", "zlib-copy", "zlib", "c")
    _write(tmp_path, "v1.0", "zlib", "zlib", "d")  # another tag: no repeat
    _write(tmp_path, "develop", "zstd", "zstd", "e")
    corpus = load_corpus([tmp_path], LoadOptions(workers=1))
    said = [(p.path, p.reason) for p in corpus.report.problems]
    assert said == [(also, f"zlib in tag develop also comes from {first}"),
                    (later, f"zlib in tag develop also comes from {first}")]
    assert len(corpus.documents) == 5 and corpus.n_specs == 5


def _site(root: Path) -> list[str]:
    """Three packages over four tags (not in display order by name), and a document whose title names another
    package than its directory: written in no particular order."""
    for tag, directory, package, letter in [("v0.21.0", "b", "b", "a"), ("develop", "c", "c", "b"),
                                            ("develop-2024-01-01", "a", "a", "c"), ("v0.22.0", "a", "a", "d"),
                                            ("develop", "a", "a", "e"), ("v0.21.0", "a", "a", "f"),
                                            ("develop", "b", "zz-not-b", "g"), ("develop-2024-01-01", "c", "c", "h")]:
        path = root / "_cache" / tag / directory / "specs.md"
        path.parent.mkdir(parents=True)
        path.write_text(listing(package, tag, [spec_entry(letter * 32), spec_entry(letter * 31 + "2", target=f"t{letter}")]))
    return [str(root / "_cache" / tag / directory / "specs.md") for tag, directory in [
        ("develop", "a"), ("v0.22.0", "a"), ("v0.21.0", "a"), ("develop-2024-01-01", "a"),
        ("develop", "b"), ("v0.21.0", "b"), ("develop", "c"), ("develop-2024-01-01", "c")]]


def test_a_site_is_walked_package_by_package_each_in_tag_display_order(tmp_path: Path) -> None:
    expected = _site(tmp_path)
    assert [c.path for c in find_candidates([tmp_path], LoadReport())] == expected
    assert [c.path for c in find_candidates([tmp_path / "_cache"], LoadReport())] == expected
    # a tag's own directory is walked as any directory is: in name order
    assert [c.path for c in find_candidates([tmp_path / "_cache" / "develop"], LoadReport())] == \
        [p for p in expected if "/develop/" in p]
    # files beside the tags and beside the packages come first, hidden entries never
    cache = tmp_path / "_cache"
    for hidden in (cache / ".git" / "specs.md", cache / "develop" / ".draft" / "specs.md", cache / "v0.21.0" / ".x.md"):
        hidden.parent.mkdir(parents=True, exist_ok=True)
        hidden.write_text("---\n")
    beside = [cache / "README.md", cache / "v0.22.0" / "index.md", cache / "develop" / "index.md"]
    for path in beside:
        path.write_text("---\n")
    assert [c.path for c in find_candidates([tmp_path], LoadReport())] == \
        [str(p) for p in (beside[0], beside[2], beside[1])] + expected  # develop, then v0.22.0: display order


def test_documents_read_in_place_are_laid_out_without_moving_any_column(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _site(tmp_path)
    reordered = build_corpus(reversed([r.document for r in map(load_file, find_candidates([tmp_path], LoadReport()))
                                       if r.document is not None]))
    # The one document whose title names another package than its directory ("zz-not-b") is out of place: every
    # other is read where the corpus keeps it, so the builder gathers the columns as they are, then moves them once.
    moves = []
    monkeypatch.setattr(build, "gathered", lambda *args: moves.append(args) or gathered(*args))
    in_place = load_corpus([tmp_path], LoadOptions(workers=1))
    assert len(moves) == 1
    _assert_same_layout(in_place, reordered)
    for path in (tmp_path / "_cache" / "develop" / "b" / "specs.md",):
        path.unlink()
    moves.clear()
    all_in_place = load_corpus([tmp_path], LoadOptions(workers=1))
    assert moves == [] and all_in_place.n_specs == 14
    _assert_same_layout(all_in_place, build_corpus(reversed([r.document for r in map(
        load_file, find_candidates([tmp_path], LoadReport())) if r.document is not None])))


def _assert_same_layout(corpus: Corpus, other: Corpus) -> None:
    assert corpus.packages == other.packages and corpus.package_ranges == other.package_ranges
    assert list(corpus.documents) == list(other.documents)
    assert list(corpus.hashes) == list(other.hashes)
    assert [corpus.spec(i) for i in range(corpus.n_specs)] == [other.spec(i) for i in range(other.n_specs)]
    for facet in REGISTRY.single():
        assert [corpus.value(facet, i) for i in corpus.single[facet]] == \
            [other.value(facet, i) for i in other.single[facet]], facet
    assert (corpus.package_of == other.package_of).all() and (corpus.document_of == other.document_of).all()
    for name, column in corpus.multi.items():
        theirs = other.multi[name]
        assert (column.offsets == theirs.offsets).all() and (column.owner == theirs.owner).all()
        assert [corpus.vocab[name].values[i] for i in column.flat] == [other.vocab[name].values[i] for i in theirs.flat]


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8), max_size=6))
def test_values_interned_a_batch_at_a_time_get_the_ids_they_get_one_at_a_time(batches: list[list[str]]) -> None:
    """`ids_of` interns a batch's new values in C (every value new and distinct: the next ids outright); the ids are
    those of interning each value in turn."""
    batched, one_by_one = Vocabulary(), Vocabulary()
    for batch in batches:
        assert batched.ids_of(batch).tolist() == [one_by_one.intern(value) for value in batch]
    assert batched.values == one_by_one.values and batched.ids == one_by_one.ids


@given(st.lists(st.sets(st.sampled_from("abcdef"), min_size=1, max_size=4), min_size=1, max_size=8),
       st.lists(st.booleans(), min_size=8, max_size=8))
def test_distinct_hashes_are_counted_as_documents_and_parts_come(hash_sets: list[set[str]], as_part: list[bool]
                                                                 ) -> None:
    """The count `unique_hashes` gives is the builder's, counted as documents are added and parts merged (the same
    binary in many tags, and in many parts, once); a builder whose documents leave as parts counts nothing."""
    corpus_builder, parts_builder = build.CorpusBuilder(), build.CorpusBuilder(distinct=False)
    for i, (letters, elsewhere) in enumerate(zip(hash_sets, as_part)):
        text = listing(f"p{i % 3}", f"v{i}", [spec_entry(letter * 32) for letter in sorted(letters)])
        document = load_bytes(f"/site/_cache/v{i}/p{i % 3}/specs.md", text.encode()).document
        assert document is not None
        if elsewhere:
            parts_builder.add(document)
            corpus_builder.merge(parts_builder.part())
        else:
            corpus_builder.add(document)
    corpus = corpus_builder.finish()
    assert corpus.memo[UNIQUE_HASHES] == len(set(corpus.hashes)) == len(set().union(*hash_sets))
    assert parts_builder._distinct is None


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=6))
def test_provenance_and_push_times_are_kept_whichever_documents_of_a_batch_record_them(
        records: list[tuple[bool, bool]]) -> None:
    """A batch of documents none of which records build provenance or push times (a site's) is laid out without a
    step per spec; one that mixes them keeps each spec's own, and unknown where its document records none."""
    from cachetui.core.model.corpus import BUILD_PROVENANCE
    from cachetui.core.model.records import UNKNOWN_PUSHED, ParsedDocument, RawSpec, SpecColumns

    builder, expected = build.CorpusBuilder(), []
    for i, (provenance, pushed) in enumerate(records):
        hashes = [chr(97 + i) * 31 + letter for letter in "ab"]
        columns = SpecColumns.from_rows([RawSpec(h, "1.0", "gcc@13", "linux", "rhel8", "zen4", (), (), 1)
                                         for h in hashes])
        columns.build_provenance = [f"{h}-built" for h in hashes] if provenance else None
        columns.pushed = [1_700_000_000 + k for k in range(2)] if pushed else None
        builder.add(ParsedDocument(f"/d{i}", f"pkg{i}", "develop", f"pkg{i}", "current", columns))
        expected += [(f"{h}-built" if provenance else "", 1_700_000_000 + k if pushed else UNKNOWN_PUSHED)
                     for k, h in enumerate(hashes)]
    corpus = builder.finish()
    texts = corpus.vocab[BUILD_PROVENANCE].values
    assert [(texts[p], int(t)) for p, t in zip(corpus.build_provenance.tolist(), corpus.pushed)] == expected


_ROWS = st.lists(st.tuples(st.sampled_from(["/a", "/b", "/c"]), st.sampled_from(["p", "q", "r"]),
                           st.sampled_from(["develop", "v1", "v2"]), st.integers(0, 9)), max_size=12)


@given(_ROWS, st.permutations(["develop", "v1", "v2"]))
def test_documents_are_put_in_display_order_as_a_stable_sort_would(rows: list[tuple[str, str, str, int]],
                                                                   tags: list[str]) -> None:
    """Keys compared in C, documents already in order left as they are: the order `sorted` gives with the key
    (package, tag in display order, path), ties (the same file twice) as they came."""
    rank = {tag: i for i, tag in enumerate(tags)}
    docs = [(path, package, tag, package, "current", i, i + 1) for i, (path, package, tag, _) in enumerate(rows)]
    assert build._in_display_order(docs, rank) == sorted(docs, key=lambda row: (row[1], rank[row[2]], row[0]))


@given(_ROWS)
def test_a_package_repeated_in_a_tag_is_said_for_each_later_document_with_the_first_ones_path(
        rows: list[tuple[str, str, str, int]]) -> None:
    docs = sorted((path, package, tag, package, "current", 0, 1) for path, package, tag, _ in rows)
    docs = sorted(docs, key=lambda row: (row[1], row[2]))
    report = LoadReport()
    documents, packages, ranges = build._lay_out(docs, np.ones(len(docs), dtype=np.int64), report)
    expected, first = [], None
    for path, package, tag, *_ in docs:  # the rule, one document at a time
        if first is not None and first[:2] == (package, tag):
            expected.append((path, f"{package} in tag {tag} also comes from {first[2]}"))
        else:
            first = (package, tag, path)
    assert [(p.path, p.reason) for p in report.problems] == expected
    runs = [(package, len(list(run))) for package, run in groupby(row[1] for row in docs)]
    starts = [sum(n for _, n in runs[:k]) for k in range(len(runs))]
    assert packages == [package for package, _ in runs]
    assert ranges == [(start, start + n) for start, (_, n) in zip(starts, runs)]
