"""The browser's action table is the one place an action is declared: a row added there is a key,
checked, in the footer, in the help and in the palette, with no other list to edit."""

from __future__ import annotations

from cachetui.app.actions import bindings
from cachetui.app.commands import ActionCommands
from cachetui.app.dialogs.help import HelpScreen
from cachetui.app.screens.browser import BrowserScreen
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.present.browse.browser_actions import ACTIONS, BrowserAction
from tests.app.helpers import run_palette, sample_app, toggle_facet, wait_loaded

# A throwaway row: it acts only while a filter narrows the answer.
WAVE = BrowserAction("browser.wave", "wave", "w", "Wave", "view", "Wave hello", "say hello",
                     lambda context: context.narrowed)


class WavingBrowser(BrowserScreen):
    """The browser with one more row (its BINDINGS merge with the browser's, as Textual merges a subclass's)."""

    ACTIONS = (*ACTIONS, WAVE)
    BINDINGS = bindings((WAVE,))

    def action_wave(self) -> None:
        self.notify("hello", markup=False)


async def _palette(app: object) -> dict[str, str]:
    return {str(hit.match_display): hit.help or "" async for hit in ActionCommands(app.screen).search("Wave hello")}  # type: ignore[attr-defined]


async def test_a_row_added_to_the_action_table_is_a_key_in_the_footer_help_and_palette() -> None:
    app = sample_app()
    app.browser = WavingBrowser()
    async with app.run_test(size=(240, 40)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        assert screen.check_action("wave", ()) is False  # no filter yet: it cannot act
        assert "w" not in screen.active_bindings
        assert " w Wave " not in screen.query_one(KeyFooter).render().plain
        assert "Wave hello" not in await _palette(app)
        await pilot.press("w")
        assert not any("hello" in str(n.message) for n in app._notifications)

        await toggle_facet(pilot, "tag", "develop-2025-04-20")
        assert screen.check_action("wave", ()) is True
        assert screen.active_bindings["w"].binding.id == "browser.wave"
        assert " w Wave " in screen.query_one(KeyFooter).render().plain
        assert (await _palette(app))["Wave hello"] == "say hello (w)"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one("#help-body").render().plain
        assert any(line.split() == ["w", "Wave"] for line in help_text.splitlines())
        await pilot.press("escape")
        await run_palette(pilot, "Wave hello", "Wave hello")
        assert any("hello" == str(n.message) for n in app._notifications)
