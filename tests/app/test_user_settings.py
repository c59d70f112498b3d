"""The browser with the user's config.toml: remapped keys act and are shown, the theme is applied and
saved, hidden columns hide, and a bad entry is said without stopping the app."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from textual.command import CommandList
from textual.widgets import Input

from cachetui.app.app import CacheTuiApp
from cachetui.app.commands import ActionCommands
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.dialogs.help import HelpScreen, help_sections
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.widgets.facet_panel import FacetPanel
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.cli.main import browse_parser, browser_app
from cachetui.core.load.sample import sample_path
from cachetui.present.spec_table.table_cells import SpecRows
from tests.app.helpers import run_palette, toggle_facet, wait_loaded, wait_until


def _app_with(config_home: Path, text: str) -> CacheTuiApp:
    """The browser as `cachetui SAMPLE` starts it, with this config.toml."""
    path = config_home / "cachetui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    app = browser_app(browse_parser().parse_args([str(sample_path()), "--no-cache"]))
    app.system_clipboard = False
    return app


async def test_help_mapped_to_f2_opens_with_f2_and_the_footer_and_help_say_so(private_config_home: Path) -> None:
    app = _app_with(private_config_home, '[keymap]\nbrowser.help = "f2"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        footer = app.screen.query_one(KeyFooter).render().plain
        assert " f2 Help " in footer and " ? Help" not in footer
        assert footer.index("f2 Help") < footer.index("q Quit")  # its place in the footer, not moved to the end
        hints = {str(hit.match_display): hit.help async for hit in ActionCommands(app.screen).search("Help")}
        assert hints["Help"] == "keys and how to use cachetui (f2)"  # the palette names the key bound now
        await pilot.press("question_mark")
        assert app.screen is app.browser  # `?` no longer opens it
        await pilot.press("f2")
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.query_one("#help-body").render().plain
        assert any(line.split() == ["f2", "Help"] for line in help_text.splitlines())


async def test_the_palette_and_the_status_line_name_remapped_keys(private_config_home: Path) -> None:
    # the unknown id is a problem of the file: the status line counts it and says which key lists it
    app = _app_with(private_config_home, '[keymap]\n"browser.problems" = "f3"\n'
                                         '"browser.nosuch" = "z"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert "⚠ 1 problem (f3)" in app.screen.query_one(StatusLine).render().plain
        hints = {str(hit.match_display): hit.help async for hit in ActionCommands(app.screen).search("problems")}
        assert hints["Show problems"] == "files that could not be loaded, and warnings (f3)"
        await pilot.press("f3")
        assert isinstance(app.screen, ProblemsScreen)


async def test_keys_remapped_show_in_the_helps_introduction_and_in_another_panes_keys(
        private_config_home: Path) -> None:
    app = _app_with(private_config_home, '[keymap]\n"table.sort" = "u"\n"browser.copy-hash" = "ctrl+y,Y"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("question_mark")  # the focus is on the package list: the table's keys are another pane's
        text = app.screen.query_one("#help-body").render().plain
        assert "^y or Y copies the hash" in text.split("\n\n")[0]
        sections = text.split("\n\nSpecs\n")[1]
        assert any(line.split()[:1] == ["u"] and "Sort" in line for line in sections.splitlines())
        assert not any(line.split()[:1] == ["s"] for line in sections.splitlines())


async def test_the_theme_and_hidden_columns_of_the_file_apply_at_start(private_config_home: Path) -> None:
    app = _app_with(private_config_home, 'theme = "nord"\nhidden_columns = ["variants", "os", "cache-only"]\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert app.theme == "nord"
        assert app.screen.query_one(SpecTable).hidden == {"variants", "os", "installable"}
        assert (private_config_home / "cachetui" / "config.toml").read_text().startswith('theme = "nord"\n')


async def test_a_theme_chosen_in_the_palette_is_saved_rewriting_only_its_line(private_config_home: Path) -> None:
    original = '# mine\ntheme = "nord"  # dark\n\n[keymap]\n"browser.help" = "f2"\n'
    app = _app_with(private_config_home, original)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await run_palette(pilot, "theme", "Theme")
        await pilot.press(*"dracula")

        def dracula_on_top() -> bool:
            lists = app.screen.query(CommandList)
            return bool(lists) and lists.first().option_count > 0 and \
                "dracula" in str(lists.first().get_option_at_index(0).prompt)

        await wait_until(pilot, dracula_on_top)
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "dracula"
    saved = (private_config_home / "cachetui" / "config.toml").read_text()
    assert saved == original.replace('"nord"', '"dracula"')


async def test_a_bad_entry_is_on_the_problems_screen_with_a_notification_and_the_app_starts(
        private_config_home: Path) -> None:
    app = _app_with(private_config_home, 'theme = "nord"\n[keymap]\nbrowser.hlep = "f2"\n')
    path = private_config_home / "cachetui" / "config.toml"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert app.theme == "nord"  # the rest of the file applies
        said = f"{path}:3: keymap.browser.hlep: no binding id 'browser.hlep'"
        assert any(said in n.message for n in app._notifications)
        assert app.browser.corpus is not None and app.browser.corpus.report.problems[0].path == str(path)
        await pilot.press("p")
        assert isinstance(app.screen, ProblemsScreen)
        detail = app.screen.query_one("#problem-detail")
        await wait_until(pilot, lambda: detail.render().plain.startswith(f"{path}:3\nkeymap.browser.hlep: no binding"))


async def test_a_file_that_is_not_toml_leaves_every_default_and_is_said(private_config_home: Path) -> None:
    app = _app_with(private_config_home, '[keymap]\nbrowser.help = f2\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert any("config.toml:2: not valid TOML" in n.message for n in app._notifications)


async def test_an_app_without_settings_saves_no_theme(private_config_home: Path) -> None:
    app = CacheTuiApp([str(sample_path())], system_clipboard=False)  # as `serve` starts a visitor's session
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        app.theme = "nord"
        await pilot.pause()
    assert not (private_config_home / "cachetui").exists()


async def test_a_fifo_for_a_settings_file_opens_the_browser_on_every_default_and_says_so(
        private_config_home: Path) -> None:
    path = private_config_home / "cachetui" / "config.toml"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)  # before, the browser waited for a writer before it opened
    app = browser_app(browse_parser().parse_args([str(sample_path()), "--no-cache"]))
    app.system_clipboard = False
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert any(f"{path}: a FIFO (named pipe), not a regular file" in n.message for n in app._notifications)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_a_key_that_does_not_exist_or_clashes_leaves_its_binding_on_its_default(
        private_config_home: Path) -> None:
    app = _app_with(private_config_home, '[keymap]\n"browser.help" = "ctlr+h"\n"browser.clear" = "s"\n'
                                         '"browser.tag" = "ctrl+t"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        assert app._keymap == {"browser.tag": "ctrl+t"}
        said = "\n".join(n.message for n in app._notifications)
        assert "keymap.\"browser.help\": 'ctlr' is not a modifier (did you mean 'ctrl+h'?)" in said
        assert "'s' is bound to both browser.clear and table.sort, which act together in the spec table" in said
        footer = app.screen.query_one(KeyFooter).render().plain
        assert " ? Help " in footer and " ^t Tag " in footer
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


async def test_a_key_shown_in_the_footer_help_and_palette_is_inert(private_config_home: Path) -> None:
    # config.toml's keys are checked before they are bound; this is the app's own last word, whatever it binds
    app = CacheTuiApp([str(sample_path())], system_clipboard=False)
    app.set_keymap({"browser.help": "\x1b]2;owned\x07"})
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_loaded(pilot)
        footer = app.screen.query_one(KeyFooter)
        assert any(key.display == "\\x1b]2;owned\\x07" for key in footer.keys)
        assert "\x1b" not in footer.render().plain and "\x07" not in footer.render().plain
        hints = {str(hit.match_display): hit.help async for hit in ActionCommands(app.screen).search("Help")}
        assert hints["Help"] == "keys and how to use cachetui (\\x1b]2;owned\\x07)"
        app.push_screen(HelpScreen(help_sections(app.screen, [])))
        await pilot.pause()
        text = app.screen.query_one("#help-body").render().plain
        assert "\x1b" not in text and "\\x1b]2;owned\\x07" in text


async def test_search_and_clear_moved_are_named_as_moved_wherever_a_hint_names_them(private_config_home: Path) -> None:
    app = _app_with(private_config_home, '[keymap]\n"browser.search" = "ctrl+f"\n"browser.clear" = "X"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        line, facet_filter = app.screen.query_one("#query-line", Input), app.screen.query_one("#facet-filter", Input)
        assert line.placeholder.startswith("^f search packages") and "/ search" not in line.placeholder
        assert facet_filter.placeholder == "^f filter facets"
        await toggle_facet(pilot, "os", "ubuntu22.04")
        panel = app.screen.query_one(FacetPanel)
        assert panel.entries[0].title == "Active filters (X: clear)"
        footer = app.screen.query_one(KeyFooter).render().plain
        assert " X Clear" in footer and " x Clear" not in footer and " / Search" not in footer
        await pilot.press("f1")  # a key bound to nothing: the focus stays on the facets
        await pilot.press("question_mark")
        lines = app.screen.query_one("#help-body").render().plain.splitlines()
        assert any(line.split()[:2] == ["X", "Clear"] for line in lines)
        assert not any(line.split()[:1] in (["x"], ["/"]) for line in lines)
        assert "^f searches packages" in lines[1]


async def test_the_key_that_opens_a_screen_closes_it_as_the_user_bound_it(private_config_home: Path) -> None:
    app = _app_with(private_config_home,
                    '[keymap]\n"browser.help" = "f2"\n"browser.problems" = "f3"\n"browser.columns" = "f4"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        for key, screen in (("f2", HelpScreen), ("f3", ProblemsScreen), ("f4", ColumnsDialog)):
            await pilot.press(key)
            assert isinstance(app.screen, screen)
            await pilot.press(key)
            assert app.screen is app.browser, key  # closed, and nothing under it closed too


async def test_the_find_view_and_an_emptied_table_name_their_keys_as_bound(private_config_home: Path) -> None:
    app = _app_with(private_config_home, '[keymap]\n"browser.find-view" = "L"\n"browser.clear" = "X"\n')
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        table.focus()
        await pilot.press("L")
        await pilot.pause()
        assert table.header_text(1, 200).plain.startswith("spack find -lv  (L: columns, ←/→: scroll)")
        await pilot.press("L")
        await pilot.pause()
        assert app.browser.corpus is not None
        table.data = SpecRows(app.browser.corpus, np.zeros(0, dtype=np.int64), clearable=True)  # filtered to none
        assert "(X clears the filters)" in table.header_text(0, 200).plain
