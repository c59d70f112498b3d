"""Fuzzing the loader: structured documents with arbitrary values, and raw bytes.

Bounded in `make test` (the "ci" hypothesis profile); `make fuzz` runs the long profile.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cachetui.core.load.sources.site.loader import FileResult, load_bytes
from cachetui.core.model.build import build_corpus
from cachetui.core.model.records import RawSpec
from cachetui.core.query.query import Query, all_facet_counts, match

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
field_values = {
    "hash": st.one_of(st.from_regex(r"[a-z2-7]{32}", fullmatch=True), json_values),
    "versions": st.one_of(st.lists(st.text(max_size=10), max_size=3), json_values),
    "compiler": st.one_of(st.from_regex(r"[a-z]{2,6}@=?[0-9.]{1,6}", fullmatch=True), json_values),
    "platform": st.one_of(st.sampled_from(["linux", "darwin"]), json_values),
    "os": st.one_of(st.text(max_size=12), json_values),
    "target": st.one_of(st.text(max_size=12), json_values),
    "variants": st.one_of(st.lists(st.text(max_size=16), max_size=5), json_values),
    "stacks": st.one_of(st.lists(st.text(max_size=10), max_size=3), json_values),
    "size": st.one_of(st.just("-"), st.integers(), json_values),
}
spec_entries = st.one_of(st.fixed_dictionaries({}, optional=field_values), json_values)


def _check(result: FileResult) -> None:
    if result.document is None:
        assert result.problems, "a file that yields no document must say why"
        return
    for spec in result.document.specs:
        assert isinstance(spec, RawSpec)
        assert all(isinstance(v, str) for v in spec[:6])
        assert all(isinstance(v, str) for v in spec.variants + spec.stacks)
        assert isinstance(spec.size, int)
    corpus = build_corpus([result.document])
    assert len(match(corpus, Query())) == corpus.n_specs
    all_facet_counts(corpus, Query())


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    title=json_values,
    categories=json_values,
    meta=json_values,
    details=st.one_of(st.lists(spec_entries, max_size=6), json_values),
)
def test_structured_documents_never_raise(title, categories, meta, details) -> None:  # noqa: ANN001
    lines = ["---", f"title: {json.dumps(title)}", f"categories: {json.dumps(categories)}",
             f"meta: {json.dumps(meta)}", f"spec_details: {json.dumps(details)}", "---"]
    _check(load_bytes("fuzz.md", "\n".join(lines).encode()))


@given(st.binary(max_size=400))
def test_raw_bytes_after_a_delimiter_never_raise(data: bytes) -> None:
    _check(load_bytes("fuzz.md", b"---\n" + data + b"\n---\n"))


@given(st.lists(st.sampled_from([
    "---", "title: x", "meta: {", "spec_details: [", "- a", "  b: c", "&a [1]", "*a", "!!python/name:os.system",
    "categories: [package, develop]", '{"hash": "abc"}', "]", "}", "\t", "\x00", "\ufeff", "key: 'unterminated",
]), max_size=12))
def test_yaml_shaped_noise_never_raises(lines: list[str]) -> None:
    _check(load_bytes("fuzz.md", ("---\n" + "\n".join(lines) + "\n---\n").encode()))


_hash32 = st.from_regex(r"[a-z2-7]{32}", fullmatch=True)
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.-=+~@", min_size=0, max_size=12)
well_formed_entries = st.fixed_dictionaries({
    "hash": _hash32,
    "versions": st.lists(_word, min_size=1, max_size=2),
    "compiler": st.one_of(_word, st.from_regex(r"[a-z]{2,5}@=?[0-9.]{1,5}", fullmatch=True)),
    "platform": _word, "os": _word, "target": _word,
    "variants": st.lists(_word, max_size=5),
    "stacks": st.lists(_word, max_size=3),
    "size": st.one_of(st.just("-"), st.integers(min_value=0, max_value=2**40)),
})


@given(st.lists(well_formed_entries, min_size=1, max_size=8, unique_by=lambda e: e["hash"]))
def test_the_column_fast_path_agrees_with_the_careful_path(details: list[dict]) -> None:
    from cachetui.core.load.sources.site.document import _columns_at_once, _columns_entry_by_entry, _Warner
    from cachetui.core.model.records import ParsedDocument

    doc = ParsedDocument("x", "p", "t", "p", "current")
    warn = _Warner(doc, {})
    careful = _columns_entry_by_entry(details, warn)
    warn.flush()
    assert _columns_at_once(details) == careful
    assert doc.problems == []


# -- WANTED (`coverage`, `--want`): any shape of DAG, any scalar ----------------------------------------------

_PACKAGES = ["zlib", "cmake", "py-mpi4py", "py-pdm-backend"]  # two the bundled sample holds, two it does not


def _sample_corpus():  # noqa: ANN202 - loaded once for every example
    from cachetui.core.load import LoadOptions, load_corpus
    from cachetui.core.load.sample import sample_path

    global _SAMPLE
    if _SAMPLE is None:
        _SAMPLE = load_corpus([str(sample_path())], LoadOptions(use_cache=False))
    return _SAMPLE


_SAMPLE = None


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(min_value=1, max_value=80).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.lists(st.integers(min_value=0, max_value=n), max_size=4), min_size=n, max_size=n),
    st.lists(st.integers(min_value=0, max_value=n), max_size=n))))
def test_any_shape_of_wanted_dag_is_answered_node_for_node_with_bounded_warnings(shape) -> None:  # noqa: ANN001
    """Cycles, self-loops, dangling edges (index n), any roots: every node answered once, each root said, and
    what is warned of bounded in lines and in each line's length, whatever the shape (warnings once grew
    with cycles x their length, and each root's closure was walked on its own)."""
    import tempfile
    from pathlib import Path

    from cachetui.core.load import read_wanted
    from cachetui.core.query.coverage import coverage

    n, edges, roots = shape
    hash_of = [f"{i:032d}"[::-1].translate(str.maketrans("0123456789", "abcdefghij")) for i in range(n + 1)]
    specs = {hash_of[i]: {"name": _PACKAGES[i % 4], "version": "1.0", "hash": hash_of[i], "dependencies": [
        {"name": _PACKAGES[j % 4], "hash": hash_of[j], "parameters": {"deptypes": ["link"], "virtuals": []}}
        for j in targets]} for i, targets in enumerate(edges)}
    lock = {"_meta": {"lockfile-version": 6}, "roots": [{"hash": hash_of[r]} for r in roots],
            "concrete_specs": specs}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "spack.lock"
        path.write_text(json.dumps(lock))
        dag = read_wanted(str(path), 2**24)
    found = coverage(_sample_corpus(), dag)
    assert sorted(node.hash for node in found.nodes) == sorted(specs)
    assert {root.hash for root in found.roots} == {hash_of[r] for r in roots if r < n} or not any(r < n for r in roots)
    assert len(dag.problems) <= 2 * 21 and all(len(p.reason) < 300 for p in dag.problems)


_scalars = st.one_of(
    st.text(max_size=30),
    st.tuples(st.sampled_from(["!!int", "!!float", "!!bool", "!!timestamp", "!!str", "!!null", "!!binary"]),
              st.text(max_size=30)).map(" ".join),
    st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}( [0-9]{1,2}:[0-9]{2}:[0-9]{2}( ?[+-][0-9]{1,2}(:[0-9]{2})?)?)?",
                  fullmatch=True),
    st.from_regex(r"[-+]?(0x[0-9a-f]{1,5000}|0o[0-7]{1,5000}|0b[01]{1,5000}|[1-9][0-9:]{0,5000})", fullmatch=True),
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(_scalars)
def test_any_scalar_in_a_yaml_specfile_is_read_or_is_one_unreadable_line(scalar: str) -> None:
    """A value YAML cannot make (`!!int abc`, a 30 February, a 5,000-digit hex) is UnreadableWanted (exit 2, one
    line), never another exception (once: exit 3)."""
    import tempfile
    from pathlib import Path

    from cachetui.core.load import UnreadableWanted, read_wanted

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "zlib.spec.yaml"
        path.write_text(f"spec:\n  - zlib:\n      version: {scalar}\n      variants: {{a: {scalar}}}\n",
                        encoding="utf-8", errors="surrogatepass")
        try:
            read_wanted(str(path), 2**24)
        except UnreadableWanted as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 400 + len(str(path))
