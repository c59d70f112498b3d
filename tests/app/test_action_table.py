"""A key is declared once, in its row: a row added to the browser's action table, naming the part that acts
on it, is a key in the footer, the help and the palette, listed by `cachetui config` and remapped by the
user's keymap; so is a row of one widget's keys (`present/browse/keys.py`: the spec table's), in the footer
and the help where that widget has the focus; the same app without the rows has them nowhere, and refuses a
keymap naming them.

Each run is a process of its own in which the rows are added to the tables before the app is imported, as
editing `present/browse/browser_actions.py` or `present/browse/keys.py` adds them: nothing else is edited
(the action of the part named is the one line a new key needs besides its row).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

RUN = r'''
import asyncio, contextlib, io, json, sys

from cachetui.present.browse import browser_actions, keys
from cachetui.present.browse.browser_actions import BODY, BrowserAction
from cachetui.present.browse.keys import Key

if sys.argv[1] == "with-row":
    # A throwaway row: the body acts on it, only while a filter narrows the answer.
    WAVE = BrowserAction("browser.wave", "wave", "o", "Wave", "view", "Wave hello", "say hello",
                         lambda context: context.narrowed, target=BODY)
    browser_actions.ACTIONS = (*browser_actions.ACTIONS, WAVE)
    keys.KEYS = (*keys.KEYS, Key("table.wave", "wave", "u", "Wave back", "table", show=True))  # the table's own

from cachetui.app.app import CacheTuiApp
from cachetui.app.commands import ActionCommands
from cachetui.app.dialogs.help import HelpScreen
from cachetui.app.user_settings import load_user_settings
from cachetui.app.widgets.browser_body import BrowserBody
from cachetui.app.widgets.key_footer import KeyFooter
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.cli.main import main
from cachetui.core.load.sample import sample_path
from tests.app.helpers import run_palette, toggle_facet, wait_loaded

BrowserBody.action_wave = lambda self: self.notify("hello", markup=False)
SpecTable.action_wave = lambda self: self.notify("waved back", markup=False)

out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    code = main(["config"])
seen = {"config": [code, out.getvalue(), err.getvalue()]}


async def palette(app):
    return {str(hit.match_display): hit.help or "" async for hit in ActionCommands(app.screen).search("Wave hello")}


def waved(app, words="hello"):
    return any(str(n.message) == words for n in app._notifications)


async def drive():
    app = CacheTuiApp([str(sample_path())], system_clipboard=False, settings=load_user_settings())
    async with app.run_test(size=(240, 40)) as pilot:
        await wait_loaded(pilot)
        screen = app.screen
        seen["before"] = ["f5" in screen.active_bindings and screen.active_bindings["f5"].enabled,
                          "Wave" in screen.query_one(KeyFooter).render().plain, "Wave hello" in await palette(app)]
        await pilot.press("f5")
        seen["before"].append(waved(app))
        await toggle_facet(pilot, "tag", "develop-2025-04-20")
        seen["footer"] = screen.query_one(KeyFooter).render().plain
        seen["palette"] = await palette(app)
        await pilot.press("question_mark")
        seen["help"] = [line.split() for line in app.screen.query_one("#help-body").render().plain.splitlines()]
        await pilot.press("escape")
        await pilot.press("o")  # the default key: remapped away
        seen["default key"] = waved(app)
        await pilot.press("f5")
        seen["remapped key"] = waved(app)
        if "Wave hello" in seen["palette"]:
            app._notifications.clear()
            await run_palette(pilot, "Wave hello", "Wave hello")
            seen["palette ran"] = waved(app)
        screen.set_focus(screen.query_one(SpecTable))
        await pilot.pause()
        seen["table footer"] = screen.query_one(KeyFooter).render().plain
        await pilot.press("u")  # the default key: remapped away
        seen["table default key"] = waved(app, "waved back")
        await pilot.press("f6")
        seen["table remapped key"] = waved(app, "waved back")
        await pilot.press("question_mark")
        seen["table help"] = [line.split() for line in app.screen.query_one("#help-body").render().plain.splitlines()]

asyncio.run(drive())
print(json.dumps(seen))
'''


def _run(row: str, config_home: Path) -> dict[str, object]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home),
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", RUN, row], capture_output=True, text=True, env=env, timeout=300,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_key_added_in_its_row_alone_is_everywhere_and_remapped_and_removed_with_it(tmp_path: Path) -> None:
    config = tmp_path / "cachetui" / "config.toml"
    config.parent.mkdir()
    config.write_text('[keymap]\n"browser.wave" = "f5"\n"table.wave" = "f6"\n')

    added = _run("with-row", tmp_path)
    code, out, err = added["config"]  # type: ignore[misc]
    assert code == 0 and not err
    assert '"browser.wave" = "f5"  # default: "o"' in out and '"table.wave" = "f6"  # default: "u"' in out, out
    assert added["before"] == [False, False, False, False]  # no filter yet: it cannot act, and is not offered
    assert " f5 Wave " in added["footer"]  # type: ignore[operator]
    assert added["palette"]["Wave hello"] == "say hello (f5)"  # type: ignore[index]
    assert ["f5", "Wave"] in added["help"]  # type: ignore[operator]
    assert added["default key"] is False and added["remapped key"] is True and added["palette ran"] is True
    assert " f6 Wave back " in added["table footer"]  # type: ignore[operator]
    assert ["f6", "Wave", "back"] in added["table help"]  # type: ignore[operator]
    assert added["table default key"] is False and added["table remapped key"] is True

    removed = _run("without-row", tmp_path)
    code, out, err = removed["config"]  # type: ignore[misc]
    assert code == 1 and "wave" not in out and "no binding id 'browser.wave'" in err and "'table.wave'" in err
    assert removed["before"] == [False, False, False, False]
    assert "Wave" not in removed["footer"] and "Wave hello" not in removed["palette"]  # type: ignore[operator]
    assert not any("Wave" in line for line in removed["help"])  # type: ignore[union-attr]
    assert removed["remapped key"] is False and removed["table remapped key"] is False
    assert "Wave" not in removed["table footer"]  # type: ignore[operator]
    assert not any("Wave" in line for line in removed["table help"])  # type: ignore[union-attr]
