"""The browser's action table (`cachetui.present.browse.browser_actions`), read without Textual."""

from __future__ import annotations

from cachetui.present.browse.browser_actions import ACTIONS, KeyContext, by_id, can_act

# Users' config.toml [keymap] names these: they never change.
IDS = {"browser.search", "browser.facets", "browser.help", "browser.quit", "browser.copy-hash", "browser.copy-menu",
       "browser.clear", "browser.tag", "browser.runs-on", "browser.columns", "browser.find-view", "browser.compare",
       "browser.export", "browser.problems", "browser.back", "browser.coverage", "browser.nearest",
       "browser.coverage-copy", "browser.coverage-find", "browser.plan", "browser.plan-candidates", "browser.plan-copy",
       "browser.reload"}


def test_every_binding_id_users_may_have_remapped_is_still_there_once() -> None:
    ids = [row.id for row in ACTIONS]
    assert set(ids) == IDS and len(ids) == len(set(ids))


def test_before_a_corpus_arrives_only_what_needs_none_can_act() -> None:
    acting = {row.id for row, acts in zip(ACTIONS, can_act(ACTIONS, KeyContext())) if acts}
    assert acting == {"browser.search", "browser.facets", "browser.help", "browser.quit", "browser.columns",
                      "browser.back"}


def test_what_each_key_needs_to_act() -> None:
    rows = by_id()
    loaded = KeyContext(loaded=True, tags=1)
    assert not rows["browser.copy-hash"].acts(loaded) and rows["browser.copy-hash"].acts(KeyContext(spec_selected=True))
    assert not rows["browser.clear"].acts(loaded) and rows["browser.clear"].acts(KeyContext(narrowed=True))
    assert not rows["browser.compare"].acts(loaded) and rows["browser.compare"].acts(KeyContext(loaded=True, tags=2))
    assert rows["browser.tag"].acts(loaded) and not rows["browser.tag"].acts(KeyContext(loaded=True, comparing=True))
    assert not rows["browser.export"].acts(loaded) and rows["browser.export"].acts(KeyContext(rows=1))
    plan, root = KeyContext(loaded=True, planned=True, plan=True), KeyContext(loaded=True, plan=True, candidates=True)
    assert not rows["browser.plan"].acts(loaded) and rows["browser.plan"].acts(KeyContext(planned=True))
    for key in ("browser.plan-candidates", "browser.plan-copy"):  # a root to build has neither
        assert not rows[key].acts(plan) and rows[key].acts(root) and not rows[key].acts(KeyContext(candidates=True))
    assert not rows["browser.copy-menu"].acts(KeyContext(spec_selected=True, plan=True))  # the table's keys rest


def test_the_focus_keys_act_as_they_arrive_and_escape_stays_out_of_the_footer() -> None:
    rows = by_id()
    assert [row.id for row in ACTIONS if row.priority] == ["browser.search", "browser.coverage-find", "browser.facets"]
    assert not rows["browser.back"].show and rows["browser.back"].palette is None


def test_each_group_of_keys_sits_together_in_the_footers_order() -> None:
    groups = [row.group for row in ACTIONS]
    seen = list(dict.fromkeys(groups))
    assert groups == [group for group in seen for _ in range(groups.count(group))]


def test_the_coverage_view_offers_its_keys_and_none_of_the_spec_tables() -> None:
    in_view = KeyContext(loaded=True, tags=2, wanted=True, coverage=True, spec_selected=True, nearest=True)
    acting = {row.id for row, acts in zip(ACTIONS, can_act(ACTIONS, in_view)) if acts}
    assert acting == {"browser.help", "browser.quit", "browser.coverage", "browser.nearest", "browser.coverage-copy",
                      "browser.problems", "browser.coverage-find", "browser.reload"}  # the sources read again
    rows = by_id()
    assert not rows["browser.nearest"].acts(KeyContext(coverage=True, wanted=True, spec_selected=True))  # absent: no binary
    assert not rows["browser.coverage"].acts(KeyContext(loaded=True))  # without --want there is nothing to show
    # the specs' context with --want: `w` goes to the coverage, `c` is the spec table's copy menu
    specs = KeyContext(loaded=True, wanted=True, spec_selected=True)
    assert rows["browser.coverage"].acts(specs) and rows["browser.copy-menu"].acts(specs) and not rows["browser.coverage-copy"].acts(specs)
    # `/` finds a wanted node in the coverage view, and searches packages in the specs'
    assert rows["browser.search"].acts(specs) and not rows["browser.coverage-find"].acts(specs)
    assert rows["browser.coverage-find"].acts(in_view) and not rows["browser.search"].acts(in_view)
