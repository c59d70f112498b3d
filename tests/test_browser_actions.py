"""The browser's action table (`cachetui.present.browse.browser_actions`), read without Textual."""

from __future__ import annotations

from cachetui.present.browse.browser_actions import ACTIONS, KeyContext, by_action, can_act

# Users' config.toml [keymap] names these: they never change.
IDS = {"browser.search", "browser.facets", "browser.help", "browser.quit", "browser.copy-hash", "browser.copy-menu",
       "browser.clear", "browser.tag", "browser.runs-on", "browser.columns", "browser.find-view", "browser.compare",
       "browser.export", "browser.problems", "browser.back", "browser.coverage", "browser.nearest",
       "browser.coverage-copy"}


def test_every_binding_id_users_may_have_remapped_is_still_there_once() -> None:
    ids = [row.id for row in ACTIONS]
    assert set(ids) == IDS and len(ids) == len(set(ids))


def test_before_a_corpus_arrives_only_what_needs_none_can_act() -> None:
    acting = {row.id for row, acts in zip(ACTIONS, can_act(ACTIONS, KeyContext())) if acts}
    assert acting == {"browser.search", "browser.facets", "browser.help", "browser.quit", "browser.columns",
                      "browser.back"}


def test_what_each_key_needs_to_act() -> None:
    rows = by_action()
    loaded = KeyContext(loaded=True, tags=1)
    assert not rows["copy_hash"].acts(loaded) and rows["copy_hash"].acts(KeyContext(spec_selected=True))
    assert not rows["clear_filters"].acts(loaded) and rows["clear_filters"].acts(KeyContext(narrowed=True))
    assert not rows["compare"].acts(loaded) and rows["compare"].acts(KeyContext(loaded=True, tags=2))
    assert rows["choose_tag"].acts(loaded) and not rows["choose_tag"].acts(KeyContext(loaded=True, comparing=True))
    assert not rows["export"].acts(loaded) and rows["export"].acts(KeyContext(rows=1))


def test_the_focus_keys_act_as_they_arrive_and_escape_stays_out_of_the_footer() -> None:
    rows = by_action()
    assert [row.id for row in ACTIONS if row.priority] == ["browser.search", "browser.facets"]
    assert not rows["back"].show and rows["back"].palette is None


def test_each_group_of_keys_sits_together_in_the_footers_order() -> None:
    groups = [row.group for row in ACTIONS]
    seen = list(dict.fromkeys(groups))
    assert groups == [group for group in seen for _ in range(groups.count(group))]


def test_the_coverage_view_offers_its_keys_and_none_of_the_spec_tables() -> None:
    in_view = KeyContext(loaded=True, tags=2, wanted=True, coverage=True, spec_selected=True, nearest=True)
    acting = {row.id for row, acts in zip(ACTIONS, can_act(ACTIONS, in_view)) if acts}
    assert acting == {"browser.help", "browser.quit", "browser.coverage", "browser.nearest", "browser.coverage-copy",
                      "browser.problems"}
    rows = by_action()
    assert not rows["nearest"].acts(KeyContext(coverage=True, wanted=True, spec_selected=True))  # absent: no binary
    assert not rows["coverage"].acts(KeyContext(loaded=True))  # without --want there is nothing to show
    # the specs' context with --want: `w` goes to the coverage, `c` is the spec table's copy menu
    specs = KeyContext(loaded=True, wanted=True, spec_selected=True)
    assert rows["coverage"].acts(specs) and rows["copy_menu"].acts(specs) and not rows["coverage_copy"].acts(specs)
