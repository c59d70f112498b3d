"""The coverage view's plain parts: the wanted tree, the status facet's narrowing, merged WANTED files, the spec
a copy menu offers for a binary."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cachetui.core.load import LoadOptions, load_corpus, read_wanted
from cachetui.core.model.wanted import MixedHashes, WantedDag, merged
from cachetui.core.query.common import common_to
from cachetui.core.query.coverage import coverage
from cachetui.present.browse.coverage_browsing import (
    INDENT,
    CoverageBrowsing,
    compared,
    find_typed,
    found_packages,
    match_said,
    next_match,
    sideways,
    status_toggled,
    tree_lines,
)
from tests.wanted_files import write_changed_environment


@pytest.fixture()
def found(tmp_path: Path):  # noqa: ANN201
    lock, mirror, _ = write_changed_environment(tmp_path)
    return coverage(load_corpus([str(mirror)], LoadOptions(use_cache=False)), read_wanted(str(lock), 2**30))


def test_the_tree_shows_each_node_once_in_full_roots_first_then_as_references(found) -> None:  # noqa: ANN001
    lines = tree_lines(found)
    full = [line.hash for line in lines if not line.repeated]
    assert sorted(full) == sorted(found.wanted.nodes) and len(full) == len(set(full))
    assert [line.hash for line in lines if line.depth == 0] == list(found.wanted.roots)
    nodes = found.wanted.nodes
    for i, line in enumerate(lines):  # what a full line has under it: its dependencies, each once
        if line.repeated:
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].depth <= line.depth), len(lines))
        under = [n.hash for n in lines[i + 1:end] if n.depth == line.depth + 1]
        assert under == list(dict.fromkeys(e.hash for e in nodes[line.hash].edges if e.hash in nodes))
    assert all(not line.repeated or line.hash in full[: full.index(line.hash) + 1] for line in lines)


def test_choosing_a_status_keeps_its_nodes_and_the_paths_to_them(found) -> None:  # noqa: ANN001
    state = compared(CoverageBrowsing("spack.lock"), found)
    assert state.shown == state.tree and state.counts == found.counts
    narrowed = status_toggled(state, "absent")
    absent = {n.hash for n in found.nodes if n.status == "absent"}
    assert {line.hash for line in narrowed.shown if not line.context} == absent
    assert narrowed.shown[0].hash == found.wanted.roots[0] and narrowed.shown[0].context  # the root above it
    assert narrowed.counts == state.counts  # counts are every node's, whatever is chosen
    assert status_toggled(narrowed, "absent").shown == state.tree


def _dag(label: str, old: bool, nodes: dict, roots: tuple[str, ...]) -> WantedDag:
    return WantedDag(label, "lockfile v6", nodes, roots, old)


def test_several_wanted_files_are_one_dag_and_old_hashes_are_never_mixed_in(found) -> None:  # noqa: ANN001
    nodes = found.wanted.nodes
    cmake, kokkos = found.wanted.roots
    one = _dag("a.lock", False, {h: n for h, n in nodes.items() if h != kokkos}, (cmake,))
    two = _dag("b.lock", False, dict(nodes), (kokkos, cmake))
    both = merged([one, two])
    assert both.roots == (cmake, kokkos) and both.nodes.keys() == nodes.keys() and both.label == "a.lock + b.lock"
    with pytest.raises(MixedHashes, match="old.lock"):
        merged([one, _dag("old.lock", True, dict(nodes), (cmake,))])


def test_spec_syntax_and_spec_text_say_the_same_values_in_their_orders(tmp_path: Path) -> None:
    _, mirror, _ = write_changed_environment(tmp_path)
    corpus = load_corpus([str(mirror)], LoadOptions(use_cache=False))
    i = corpus.occurrences(next(h for h in corpus.hashes if h.startswith("tbzip2")))[0]
    shared = common_to(corpus, np.array([i]))
    assert shared.spec_syntax() == ("bzip2@1.0.8 build_system=generic ~debug ~pic +shared "
                                    "arch=linux-ubuntu24.04-skylake %gcc@13.3.0")
    assert sorted(shared.spec_text().removesuffix(" (tag mirror)").split()) == sorted(shared.spec_syntax().split())


def test_the_spec_to_paste_names_no_patches(tmp_path: Path) -> None:
    _, mirror, _ = write_changed_environment(tmp_path)
    corpus = load_corpus([str(mirror)], LoadOptions(use_cache=False))
    i = corpus.occurrences(next(h for h in corpus.hashes if h.startswith("vncurses")))[0]
    shared = common_to(corpus, np.array([i]))
    assert "patches=" in shared.spec_text() and "patches=" not in shared.spec_syntax()
    assert shared.spec_syntax().startswith("ncurses@6.5 abi=none build_system=autotools +symlinks +termlib ")


def test_narrowing_a_deep_chain_marks_each_line_above_once(tmp_path: Path) -> None:
    """A 400-node chain, every other node absent: the lines above a kept one are marked up to one kept before,
    so narrowing costs the lines, not lines x depth (a 20,000-node chain took seconds). Counted as lines run."""
    import sys

    from benchmarks.coverage_bench import adversarial_lock
    from cachetui.core.load.sample import sample_path
    from tests.wanted_files import nodes

    templates = [nodes()["zlib-ng"], {**nodes()["zlib-ng"], "name": "py-mpi4py"}]  # the sample holds py-mpi4py
    lock = tmp_path / "chain.lock"
    lock.write_text(__import__("json").dumps(adversarial_lock("fan", 800, templates)))  # 400 roots, a 400-node chain
    found = coverage(load_corpus([str(sample_path())], LoadOptions(use_cache=False)), read_wanted(str(lock), 2**30))
    state = CoverageBrowsing("x", found, frozenset({"absent"}))
    state.tree  # noqa: B018 - built before counting
    code, ran = CoverageBrowsing.shown.func.__code__, [0]

    def count(frame, event, arg):  # noqa: ANN001, ANN202
        if frame.f_code is code:
            ran[0] += event == "line"
        return count

    sys.settrace(count)
    try:
        shown = state.shown
    finally:
        sys.settrace(None)
    assert {found.wanted.nodes[line.hash].name for line in shown if not line.context} == {"zlib-ng"}
    assert ran[0] < 20 * len(state.tree)


def test_a_find_names_what_holds_the_text_else_the_best_fuzzy_matches() -> None:
    packages = ("cmake", "curl", "gcc", "gcc-runtime", "ncurses", "py-ml-dtypes", "zlib-ng")
    assert found_packages("GCC ", packages) == {"gcc", "gcc-runtime"}  # as typed, case and spaces aside
    assert found_packages("mldtypes", packages) == {"py-ml-dtypes"}  # separators aside
    assert found_packages("ncurss", packages) == {"ncurses"}  # a typo: the best the fuzzy search ranks, not curl too
    assert found_packages("", packages) == found_packages("qqqqqq", packages) == frozenset()


def test_enter_goes_round_the_matches_in_the_trees_order(found) -> None:  # noqa: ANN001
    state = find_typed(compared(CoverageBrowsing("spack.lock"), found), "gcc")
    matches = state.matches
    assert len(matches) == 2 and all(not state.shown[row].repeated for row in matches)
    first, second = matches
    assert next_match(state, 0, 1, here=True) == first and next_match(state, first, 1, here=True) == first
    assert next_match(state, first, 1) == second and next_match(state, second, 1) == first  # round the end
    assert next_match(state, first, -1) == second and next_match(state, second, -1) == first
    assert match_said(state, second) == "2 of 2" and match_said(state, 0) == "2 matches"
    nothing = find_typed(state, "qqqq")
    assert next_match(nothing, 3, 1) is None and match_said(nothing, 3) == "no match"
    assert find_typed(state, "").matches == () and match_said(find_typed(state, ""), 0) == ""


def test_typing_a_find_lays_the_tree_out_once(found) -> None:  # noqa: ANN001
    """Each key typed is a new state: the tree of a 50,000-node lockfile is not laid out again for it."""
    state = compared(CoverageBrowsing("spack.lock"), found)
    tree, shown = state.tree, state.shown
    typed = find_typed(find_typed(state, "z"), "zl")
    assert typed.tree is tree and typed.shown is shown and typed.matches
    assert status_toggled(typed, "differs").tree is tree


def test_the_tree_scrolls_sideways_only_to_keep_the_cursors_name_in_sight() -> None:
    width, label = 34, 24  # the tree at 80 columns; `✓ layer-31-toolkit@1.0`
    assert sideways(0, 3, label, width) == 0  # in sight: not scrolled
    deep = sideways(0, 31, label, width)
    assert deep % INDENT == 0 and deep + 1 <= INDENT * 31 and INDENT * 31 + label <= deep + width - 1
    assert sideways(deep, 30, label, width) == deep  # a level up, still in sight: the lines stay where they are
    assert sideways(deep, 0, label, width) == 0  # back at the root
    assert sideways(0, 0, 200, width) == 0  # a name wider than the pane shows its start
