"""Splitting and parsing front matter: the JSON fast path, safe YAML, and line numbers."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from cachetui.core.load.sources.site.frontmatter import FrontMatterError, has_front_matter, split_front_matter
from cachetui.core.load.sources.site.parse import parse_front_matter
from tests.conftest import SEED_FILES


def test_split_returns_the_lines_between_delimiters() -> None:
    assert split_front_matter("---\na: 1\nb: 2\n---\nbody\n") == ["a: 1", "b: 2"]


def test_split_accepts_crlf_and_dots_closer() -> None:
    assert split_front_matter("---\r\na: 1\r\n...\r\n") == ["a: 1"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "empty file"), ("title: x\n", "no front matter"), ("---\na: 1\n", "never closed")],
)
def test_split_errors(text: str, reason: str) -> None:
    with pytest.raises(FrontMatterError, match=reason):
        split_front_matter(text)


_line = st.text(alphabet=st.characters(blacklist_characters="\r\n"), max_size=40).filter(
    lambda s: s.rstrip() not in ("---", "...")
)


@given(st.lists(_line, max_size=20), st.text(max_size=100), st.sampled_from(["\n", "\r\n"]))
def test_split_recovers_exactly_the_lines_written(lines: list[str], body: str, newline: str) -> None:
    text = newline.join(["---", *lines, "---", body])
    assert split_front_matter(text) == lines


@given(st.binary(max_size=64))
def test_has_front_matter_never_raises(head: bytes) -> None:
    assert has_front_matter(head) in (True, False)


def test_fast_path_agrees_with_safe_load_on_every_seed() -> None:
    for path in SEED_FILES:
        lines = split_front_matter(path.read_text())
        parsed, _ = parse_front_matter(lines)
        assert parsed == yaml.safe_load("\n".join(lines)), path.name


def test_yaml_flow_lists_that_are_not_json_still_parse() -> None:
    parsed, lines = parse_front_matter(["title: x", "categories: [package, develop]", 'meta: {"a": [1]}'])
    assert parsed == {"title": "x", "categories": ["package", "develop"], "meta": {"a": [1]}}
    assert lines["meta"] == 4


def test_invalid_json_is_reported_with_its_key_and_line() -> None:
    with pytest.raises(FrontMatterError) as info:
        parse_front_matter(["title: x", 'meta: {"a": [1,, 2]}'])
    assert "meta" in info.value.reason
    assert info.value.line == 3


def test_block_style_yaml_values_parse() -> None:
    parsed, _ = parse_front_matter(["spec_details:", "  - hash: abc", "    versions: [1.0]"])
    assert parsed == {"spec_details": [{"hash": "abc", "versions": [1.0]}]}


@given(st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
), max_size=5))
def test_json_valued_keys_parse_as_json(data: dict) -> None:
    lines = [f"{key}: {json.dumps(value)}" for key, value in data.items() if isinstance(value, (list, dict))]
    expected = {k: v for k, v in data.items() if isinstance(v, (list, dict))}
    parsed, _ = parse_front_matter(lines)
    assert parsed == expected
