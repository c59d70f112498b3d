"""The footer: one line drawn from the keys that can act now, clickable, redrawn only when they change."""

from __future__ import annotations

from cachetui.app.dialogs.help import HelpScreen
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import open_package, sample_app, toggle_facet, wait_loaded


def _offered(footer: KeyFooter) -> dict[str, str]:
    return {key.key: key.description for key in footer.keys}


def _drawn(footer: KeyFooter) -> str:
    return footer.render().plain


async def test_footer_draws_what_check_action_allows_and_follows_it() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        footer = app.screen.query_one(KeyFooter)
        assert _offered(footer) == {key: active.binding.description
                                    for key, active in app.screen.active_bindings.items()
                                    if active.binding.show and key != app.COMMAND_PALETTE_BINDING}
        assert "y" in _offered(footer) and "x" not in _offered(footer)  # specs shown, no filter yet
        assert " y Copy hash " in _drawn(footer) and "Clear" not in _drawn(footer)
        await toggle_facet(pilot, "tag", "develop-2025-04-20")
        assert _offered(footer)["x"] == "Clear" and " x Clear " in _drawn(footer)
        await open_package(pilot, "mpi4py")  # not in that snapshot: nothing to copy
        assert len(app.screen.query_one(SpecTable).data.indices) == 0
        assert "y" not in _offered(footer) and "Copy hash" not in _drawn(footer)
        assert not footer.children  # one widget: nothing mounted per key


async def test_footer_is_not_redrawn_while_its_keys_stay_the_same() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await open_package(pilot, "mpi4py")
        footer = app.screen.query_one(KeyFooter)
        keys = footer.keys
        app.screen.refresh_bindings()  # what focus changes and filters do
        await pilot.press("j", "j", "k")
        assert footer.keys is keys  # the same tuple: nothing was recomputed into a new line


async def test_clicking_a_key_in_the_footer_presses_it() -> None:
    app = sample_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        footer = app.screen.query_one(KeyFooter)
        start, _end, _key = next(span for span in footer.shown if span[2].key == "question_mark")
        await pilot.click(KeyFooter, offset=(start + 1, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_keys_that_do_not_fit_are_left_out_whole() -> None:
    app = sample_app()
    async with app.run_test(size=(60, 15)) as pilot:
        await wait_loaded(pilot)
        footer = app.screen.query_one(KeyFooter)
        drawn = _drawn(footer)
        shown = [key for _start, _end, key in footer.shown]
        assert drawn.endswith("▏^p palette ") and len(drawn) == 60
        assert [key.key for key in shown[:-1]] == [key.key for key in footer.keys[:len(shown) - 1]]
        for key in shown:
            assert f" {key.display} {key.description} " in drawn or key is footer.palette
        left_out = footer.keys[len(shown) - 1:]
        assert left_out and all(key.description not in drawn for key in left_out)
