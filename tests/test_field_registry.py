"""Spec fields are named only in the registry: no list of them elsewhere, and a field registered once shows in the
table, the facets, `query`'s JSON and CSV and `diff` with nothing else edited."""

from __future__ import annotations

import ast
import csv
import io
import json
import shutil
from pathlib import Path

import pytest
import yaml

import cachetui
from cachetui.app.widgets.facet_panel import FacetState, Kind, facet_entries
from cachetui.cli.main import main
from cachetui.core.load.sample import sample_path
from cachetui.core.model.corpus import Corpus
from cachetui.core.model.fields import BUILTIN, Field
from cachetui.core.query.query import Query, all_facet_counts
from cachetui.core.query.results import results_for
from cachetui.present.spec_table.table_cells import SpecRows
from cachetui.present.spec_table.table_layout import COLUMNS
from cachetui.present.spec_table.table_plan import measure, plan
from tests import throwaway_field
from tests.throwaway_field import DIGIT, LETTER, start_of

registered, corpus = throwaway_field.registered, throwaway_field.corpus  # its fixtures, for this module's tests

PACKAGE = Path(cachetui.__file__).parent

# Where a list of field names is not a list of the registry's: an outside format read as it is written, Spack's
# grammar, the registry itself.
EXEMPT_FOLDERS = ("core/load/sources/", "core/spack/")
EXEMPT_FILES = {
    "core/model/fields.py",
}


def field_names() -> frozenset[str]:
    """Every name a built-in field goes by: its own, its column's key, its output's name."""
    names = set()
    for field in BUILTIN:
        names |= {field.name, field.key} | ({field.output.name} if field.output else set())
    return frozenset(names)


def listed_names(node: ast.AST, names: frozenset[str]) -> list[str]:
    """The field names a tuple, list or set literal holds: its string constants and those of its tuple elements
    (`("version", "tag")`, `(("version", x), ("platform", y))`); [] for anything else."""
    if not isinstance(node, ast.Tuple | ast.List | ast.Set):
        return []
    constants = [e for e in node.elts if isinstance(e, ast.Constant)]
    constants += [inner for e in node.elts if isinstance(e, ast.Tuple) for inner in e.elts
                  if isinstance(inner, ast.Constant)]
    return [c.value for c in constants if isinstance(c.value, str) and c.value in names]


def lists_of_fields(source: str, names: frozenset[str]) -> list[tuple[int, list[str]]]:
    """(line, names) of each literal in `source` that lists two or more field names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        listed = listed_names(node, names)
        if len(listed) >= 2:
            found.append((getattr(node, "lineno", 0), listed))
    return sorted(found)


def exempt(relative: str) -> bool:
    return relative in EXEMPT_FILES or relative.startswith(EXEMPT_FOLDERS)


def test_the_check_sees_lists_comparisons_and_pairs_but_not_one_name_or_a_mapping() -> None:
    names = frozenset({"version", "tag", "platform"})
    flagged = lists_of_fields("if facet in ('version', 'tag'): pass\n"
                              "PAIRS = (('version', 1), ('platform', 2))\n"
                              "SHOWN = ['tag', 'platform']\n"
                              "HIDDEN = frozenset({'version', 'tag'})\n", names)
    assert [line for line, _ in flagged] == [1, 2, 3, 4]
    assert lists_of_fields("ONE = ('version',)\nBY = {'version': 1, 'tag': 2}\nif f == 'tag': pass\n", names) == []


def test_no_module_lists_spec_fields_but_the_registry() -> None:
    names = field_names()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if not exempt(relative):
            found += [f"cachetui/{relative}:{line}: {listed}"
                      for line, listed in lists_of_fields(path.read_text(encoding="utf-8"), names)]
    assert found == [], "name these as a view of REGISTRY (cachetui/core/model/fields.py):\n" + "\n".join(found)


def test_every_exempt_file_still_exists() -> None:
    """An exemption outliving its file would hide a new one of that name."""
    assert [name for name in sorted(EXEMPT_FILES) if not (PACKAGE / name).is_file()] == []




def test_a_throwaway_field_is_a_column_the_table_lays_out(corpus: Corpus) -> None:
    assert [c.key for c in COLUMNS][-1] == "hash_start"
    results = results_for(corpus, Query())
    rows = SpecRows(corpus, results.indices, common=results.common)
    laid_out = dict((c.key, width) for c, width in plan(measure(rows, frozenset()), 400).layout)
    assert laid_out.get("hash_start", 0) >= len(LETTER)


def test_a_throwaway_field_is_a_facet_with_its_counts(corpus: Corpus) -> None:
    counts = all_facet_counts(corpus, Query())
    digits = sum(h[0].isdigit() for h in corpus.hashes)
    assert counts["hash_start"] == {DIGIT: digits, LETTER: corpus.n_specs - digits}
    entries = facet_entries(FacetState(counts=counts))
    assert "Hash starts with" in [e.title for e in entries if e.kind is Kind.HEADING]
    assert {e.value for e in entries if e.kind is Kind.VALUE and e.facet == "hash_start"} == {DIGIT, LETTER}


def test_a_throwaway_field_is_in_query_json_and_csv(registered: Field, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", str(sample_path()), "--no-cache", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records and all(r["hash_start"] == start_of(r["hash"]) for r in records)
    assert main(["query", str(sample_path()), "--no-cache", "--format", "csv"]) == 0
    header, *rows = csv.reader(io.StringIO(capsys.readouterr().out))
    at, hash_at = header.index("hash_start"), header.index("hash")
    assert rows and all(row[at] == start_of(row[hash_at]) for row in rows)


@pytest.fixture
def one_package_gone(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The sample (old), the sample without one package's document (new), and that document."""
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(sample_path(), old, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    shutil.copytree(old, new)
    gone = sorted(new.glob("*.txt"))[-1]
    gone.unlink()
    return old, new, old / gone.name


def lost_with(document: Path) -> set[tuple[str, ...]]:
    """The configurations a package's document alone covers, read from its YAML (no cachetui code)."""
    data = yaml.safe_load(document.read_text(encoding="utf-8").split("---")[1])
    return {(spec["versions"][0], spec["compiler"].replace("@=", "@"),
             f"{spec['platform']}-{spec['os']}-{spec['target']}", start_of(spec["hash"]))
            for spec in data["spec_details"]}


def test_a_throwaway_configuration_field_is_in_diff(registered: Field, one_package_gone: tuple[Path, Path, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    old, new, gone = one_package_gone
    assert main(["diff", str(old), str(new), "--no-cache", "--format", "json"]) == 1
    lost = [config for p in json.loads(capsys.readouterr().out)["packages"] for config in p["lost"]]
    assert lost and all(list(config) == ["version", "compiler", "arch", "hash_start"] for config in lost)
    assert {tuple(config.values()) for config in lost} == lost_with(gone)
    assert main(["diff", str(old), str(new), "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "configurations (package@version %compiler arch hash_start):" in out
    lines = [line for line in out.splitlines() if line.startswith("- ")]
    assert len(lines) == len(lost)
    assert all(line.endswith((f" hash_start={DIGIT}", f" hash_start={LETTER}")) for line in lines)
