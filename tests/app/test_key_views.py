"""The views config.toml's keymap is checked by (`present/config/key_views.py`) are what the app binds: in every
screen and pane, the binding ids whose keys act at once are those of exactly one view, and each view is seen.
A key the user moves onto another binding of the same view is then refused, and none of another view is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from cachetui.app.actions import declared_bindings
from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.columns_dialog import ColumnsDialog
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.dialogs.export_dialog import ExportDialog
from cachetui.app.dialogs.help import HelpScreen
from cachetui.app.dialogs.problems import ProblemsScreen
from cachetui.app.dialogs.tag_picker import TagPicker
from cachetui.cli.main import browse_parser, plan_of, wanted_of
from cachetui.core.load import LoadOptions
from cachetui.present.browse.browser_actions import ACTIONS
from cachetui.present.config.key_views import rows_acting, views
from cachetui.present.config.known import known
from tests.wanted_files import write_changed_environment


def _acting_now(app: App[None]) -> frozenset[str]:
    """The binding ids of the focused pane, what holds it, the screen and the app; of the browser's rows,
    those that can act in the view it shows (the coverage view, or the specs)."""
    screen = app.screen
    nodes = [*(screen.focused.ancestors_with_self if screen.focused else [screen]), app]
    ids = {binding.id for node in nodes for _, binding in node._bindings if binding.id}
    if screen is app.browser:  # type: ignore[attr-defined]
        rows = {row.id for row in ACTIONS}
        context = app.browser.key_context()  # type: ignore[attr-defined]
        ids = (ids - rows) | (ids & rows_acting(context.coverage, plan=context.plan))
    return frozenset(ids)


async def _every_pane(app: App[None], pilot) -> set[frozenset[str]]:  # noqa: ANN001 - a Pilot
    seen = set()
    for widget in list(app.screen.focus_chain):
        assert isinstance(widget, Widget)
        app.screen.set_focus(widget)
        await pilot.pause()
        seen.add(_acting_now(app))
    return seen


def _wanting_app(tmp_path: Path) -> CacheTuiApp:
    """The browser as `cachetui --want spack.lock MIRROR` opens it: both views in its DOM."""
    lock, mirror, _ = write_changed_environment(tmp_path)
    args = browse_parser().parse_args(["--no-cache", "--want", str(lock), str(mirror)])
    return CacheTuiApp([str(mirror)], LoadOptions(use_cache=False), system_clipboard=False, wanted=wanted_of(args))


def _planning_app() -> CacheTuiApp:
    """The browser as `cachetui --plan ENV` opens it (the environment's mirror): the plan view and the specs."""
    example = Path(__file__).parents[1] / "fixtures" / "plan" / "example"
    args = browse_parser().parse_args(["--no-cache", "--plan", str(example), "--arch", "test-debian6-m1"])
    planned = plan_of(args)
    return CacheTuiApp(list(args.inputs), LoadOptions(use_cache=False), system_clipboard=False, planned=planned)


def _dialogs(app: CacheTuiApp) -> tuple[Screen[Any], ...]:
    """One of each dialog the browser opens."""
    assert app.browser.corpus is not None
    return (HelpScreen([]), ProblemsScreen(app.browser.corpus.report), ColumnsDialog(frozenset()),
            TagPicker(["develop"], {"develop": 1}, None), CopyMenu([("hash", "abc")]), ExportDialog("specs.csv", 1, []))


async def test_every_pane_of_every_screen_binds_the_ids_of_one_view(tmp_path: Path) -> None:
    app = _wanting_app(tmp_path)
    seen: set[frozenset[str]] = set()
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("slash")  # its find box: in the focus chain while it shows
        seen |= await _every_pane(app, pilot)  # the coverage view, as `--want` opens
        await pilot.press("w")
        await pilot.pause()
        seen |= await _every_pane(app, pilot)  # the specs
        for screen in _dialogs(app):
            await app.push_screen(screen)
            await pilot.pause()
            seen |= await _every_pane(app, pilot)
            app.pop_screen()
            await pilot.pause()
    planning = _planning_app()
    async with planning.run_test(size=(160, 50)) as pilot:
        await planning.workers.wait_for_complete()
        await pilot.pause()
        seen |= await _every_pane(planning, pilot)  # the plan view, as `--plan` opens
    ids = set(known().bindings)  # every binding id the key rows declare
    declared = {view.name: frozenset(i for i in ids if view.holds(i)) for view in views()}
    assert seen == set(declared.values()), {view: sorted(held) for view, held in declared.items() if held not in seen}
    assert len(set(declared.values())) == len(views())  # no two views alike: each names one moment


def _merged_as_textual_keeps(app: App[None]) -> None:
    for node in [app, *app.screen.walk_children(with_self=True)]:
        # `_bindings`: what Textual merged for the node, read here only to hold the help's reading to it
        assert declared_bindings(node).key_to_bindings == node._bindings.key_to_bindings, type(node)


async def test_the_help_reads_each_nodes_bindings_as_textual_merged_them(tmp_path: Path) -> None:
    app = _wanting_app(tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        _merged_as_textual_keeps(app)  # the browser: both views are in its DOM
        for screen in _dialogs(app):
            await app.push_screen(screen)
            await pilot.pause()
            _merged_as_textual_keeps(app)
            app.pop_screen()
            await pilot.pause()
