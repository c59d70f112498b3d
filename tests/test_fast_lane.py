"""The fast lane reads a document exactly as the general path does, or leaves it to the general path.

Every document the fast lane takes must come out equal (specs, package, tag, problems) to
what the general path makes of the same bytes; the property test mutates real documents to
find a difference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cachetui.core.load.sources.site.fast import fast_document
from cachetui.core.load.sources.site.loader import read_in_general
from tests.conftest import SEED_FILES, listing, spec_entry

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from generate_varied import generate  # noqa: E402


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("varied")
    generate(root, "S", seed=3)
    return sorted(root.rglob("specs.md"))


def _same(path: Path, data: bytes) -> bool | None:
    """True when both lanes agree, None when the fast lane declined."""
    fast = fast_document(str(path), data)
    if fast is None:
        return None
    general = read_in_general(str(path), data).document
    assert general == fast, path
    return True


def test_the_lanes_agree_on_every_real_and_generated_document(varied: list[Path]) -> None:
    taken = [_same(path, path.read_bytes()) for path in [*SEED_FILES, *varied]]
    assert all(taken[: len(SEED_FILES)])  # the site's real documents are all in the fast lane's shape
    assert taken.count(True) >= 0.95 * len(varied)  # and so is nearly everything generated


@pytest.mark.parametrize(
    "change",
    [
        {"size": 1234},
        {"size": True},
        {"size": "12"},
        {"size": 2**63},
        {"hash": "NOT-BASE32" + "a" * 22},
        {"hash": "abc"},
        {"versions": []},
        {"compiler": None},
        {"variants": "+mpi ~cuda"},
        {"variants": ["+mpi", 3]},
        {"stacks": None},
        {"extra": {"nested": [1, 2]}},
    ],
)
def test_odd_entries_agree_or_go_the_general_way(tmp_path: Path, change: dict) -> None:
    specs = [spec_entry("a" * 32), {**spec_entry("b" * 32), **change}]
    path = tmp_path / "_cache" / "develop" / "pkg" / "specs.md"
    data = listing("pkg", "develop", specs).encode()
    assert _same(path, data) in (True, None)


@pytest.mark.parametrize(("first", "second", "taken"), [
    (10, 2**40, True), (0, "-", True), ("-", "-", True),  # every size known; some; none
    (10, -1, None), (10, 2**62, None), (10, True, None), (True, False, None), (1.5, 2, None), ("12", 3, None),
])
def test_sizes_the_fast_lane_takes_it_reads_as_the_general_path_does(tmp_path: Path, first: object, second: object,
                                                                     taken: bool | None) -> None:
    specs = [{**spec_entry("a" * 32), "size": first}, {**spec_entry("b" * 32), "size": second}]
    path = tmp_path / "_cache" / "develop" / "pkg" / "specs.md"
    assert _same(path, listing("pkg", "develop", specs).encode()) is taken


def test_meta_that_disagrees_is_said_the_same_way(tmp_path: Path) -> None:
    text = listing("pkg", "develop", [spec_entry("a" * 32), spec_entry("b" * 32)])
    text = text.replace('"num_specs": 2', '"num_specs": 3, "versions": ["9.9"], "num_specs_by_stack": {"e4s": 1}')
    path = tmp_path / "specs.md"
    assert _same(path, text.encode())
    reasons = [p.reason for p in fast_document(str(path), text.encode()).problems]
    assert len(reasons) == 3 and "meta.num_specs says 3" in reasons[0]


@given(st.data())
def test_a_mutated_document_is_read_alike_or_declined(data: st.DataObject) -> None:
    original = SEED_FILES[data.draw(st.integers(0, len(SEED_FILES) - 1))].read_bytes()
    head = original.index(b"spec_details") + 400  # the keys and the first entries
    text = bytearray(original)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, head))
        what = data.draw(st.sampled_from([b'"', b"{", b"}", b"[", b"]", b",", b":", b"\\", b" ", b"-", b"0", b"a",
                                          b"\n", b"\r", b"\xff", b"null", b"true", b'"x"', b"1e400", b"\xc3\xa9"]))
        if data.draw(st.booleans()):
            text[at : at + 1] = what
        else:
            text[at:at] = what
    assert _same(Path("_cache/develop/pkg/specs.md"), bytes(text)) in (True, None)


@given(st.lists(st.lists(st.sampled_from(["e4s", "radiuss", "root", "ml"]), max_size=3), max_size=8))
def test_stacks_are_counted_as_counter_counts_them_with_or_without_its_loop_in_c(stacks: list[list[str]]) -> None:
    from collections import Counter
    from itertools import chain

    from cachetui.core.load.sources.site.listing import count_elements, counted_in_python

    expected = Counter(chain.from_iterable(stacks))
    for count in (count_elements, counted_in_python):
        found: dict[str, int] = {}
        count(found, chain.from_iterable(stacks))
        assert found == expected
        more = {"ml": 2}  # counts are added to what is there
        count(more, chain.from_iterable(stacks))
        assert more == expected + Counter({"ml": 2})
