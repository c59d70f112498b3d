"""Building the corpus from documents: what the layout step itself reports."""

from __future__ import annotations

from pathlib import Path

from cachetui.core.load import LoadOptions, load_corpus
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
