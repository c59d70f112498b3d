"""`cachetui --want WANTED SOURCE...`: the coverage view shows what `cachetui coverage --format json` prints.

The environment is tests/wanted_files.py's: a Spack 1.0 lockfile and a mirror built from it with seven nodes
changed; the expected statuses and differences come from `coverage --format json`, run as a user would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.text import Text
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.commands import ActionCommands, FacetCommands, PackageCommands
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.widgets.coverage_view import (
    CoverageDetail,
    CoverageFacet,
    CoverageTree,
    CoverageView,
    FindLine,
    detail_rows,
)
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.cli.main import browse_parser, main, wanted_of
from cachetui.core.load import LoadOptions
from cachetui.present.browse.coverage_browsing import MARKS
from tests.app.helpers import open_package, run_palette, wait_compared, wait_loaded
from tests.wanted_files import write_changed_environment, write_deep_environment


@pytest.fixture()
def changed(tmp_path: Path) -> tuple[Path, Path]:
    lock, mirror, _ = write_changed_environment(tmp_path)
    return lock, mirror


def _app(lock: Path, mirror: Path) -> CacheTuiApp:
    """The browser as `cachetui --want LOCK MIRROR` builds it (WANTED read by the CLI's rule)."""
    args = browse_parser().parse_args(["--no-cache", "--want", str(lock), str(mirror)])
    return CacheTuiApp([str(mirror)], LoadOptions(use_cache=False), system_clipboard=False, wanted=wanted_of(args))


def _cli_json(capsys: pytest.CaptureFixture[str], lock: Path, mirror: Path) -> list[dict]:
    main(["coverage", "--no-cache", "--format", "json", str(lock), str(mirror)])
    return json.loads(capsys.readouterr().out)


def _cli_summary(capsys: pytest.CaptureFixture[str], lock: Path, mirror: Path) -> str:
    main(["coverage", "--no-cache", str(lock), str(mirror)])
    return next(line for line in capsys.readouterr().out.splitlines() if " specs: " in line)


async def _select(pilot: Pilot, package: str) -> None:
    """Put the tree's cursor on the first line of `package` with the keys a user presses."""
    view = pilot.app.screen.query_one(CoverageView)
    tree = view.query_one(CoverageTree)
    tree.focus()
    await pilot.press("home")
    while view.state.nodes[view.state.shown[tree.cursor].hash].package != package:
        await pilot.press("j")
    await pilot.pause()


async def test_every_node_shows_the_status_and_differences_coverage_json_prints(capsys, changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    expected = {row["hash"]: row for row in _cli_json(capsys, lock, mirror)}
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        tree, detail = view.query_one(CoverageTree), view.query_one(CoverageDetail)
        seen = {}
        for row, line in enumerate(view.state.shown):
            if line.repeated:
                continue
            tree.cursor = row
            await pilot.pause()
            shown = detail.detail
            assert shown is not None
            on_screen = tree.row_text(row, 100).plain
            seen[line.hash] = shown.node.status
            assert f"{MARKS[shown.node.status]} {shown.node.package}@" in on_screen
            want = expected[line.hash]
            assert shown.node.status == want["status"], shown.spec
            differences = [] if want["nearest"] is None else want["nearest"]["differences"]
            assert sorted((d.category, d.name, d.wanted, d.cached) for d in shown.differences) == sorted(
                (d["category"], d["name"], d["wanted"], d["cached"]) for d in differences), shown.spec
            # each difference is a marked line of the details, wanted and cached side by side
            marked = [r.plain for r in detail.source.rows[1:] if r.plain.startswith(("≠ ", "? "))]
            assert len(marked) == len(differences)
        assert seen.keys() == expected.keys()  # every wanted node is in the tree once in full
        assert {h: s for h, s in seen.items()} == {h: r["status"] for h, r in expected.items()}


async def test_the_status_line_says_the_clis_summary(capsys, changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    summary = _cli_summary(capsys, lock, mirror)
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        line = str(app.screen.query_one("#coverage-status").render())
        assert summary in line


async def test_the_facet_counts_each_status_and_narrows_the_tree_to_one(capsys, changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    rows = _cli_json(capsys, lock, mirror)
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        facet = view.query_one(CoverageFacet)
        for status, row in zip(("hit", "reusable", "differs", "absent", "external"), facet.source.rows):
            assert f"{status} " in row.plain and f" {sum(r['status'] == status for r in rows)} " in row.plain
        facet.focus()
        await pilot.press("home", "j", "j", "enter")  # differs
        await pilot.pause()
        differing = {r["hash"] for r in rows if r["status"] == "differs"}
        shown = view.state.shown
        assert {line.hash for line in shown if not line.context} == differing
        assert all(view.state.nodes[line.hash].status != "differs" for line in shown if line.context)
        assert "only differs" in str(app.screen.query_one("#coverage-status").render())


async def test_n_shows_the_nearest_binary_in_the_spec_table(capsys, changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    nearest = next(r["nearest"]["hash"] for r in _cli_json(capsys, lock, mirror) if r["package"] == "curl")
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "curl")
        await pilot.press("n")
        await wait_loaded(pilot)
        assert not app.screen.query_one("#coverage").display and app.screen.query_one("#spec-view").display
        table = app.screen.query_one(SpecTable)
        assert table.current_spec is not None and app.screen.corpus.hashes[table.current_spec] == nearest
        await pilot.press("w")  # and back to the coverage, where it was
        await pilot.pause()
        assert app.screen.query_one("#coverage").display and not app.screen.query_one("#spec-view").display


async def test_the_copy_menu_offers_the_nearest_install_line_and_its_spec(capsys, changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    rows = {r["package"]: r for r in _cli_json(capsys, lock, mirror)}
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "zlib-ng")
        await pilot.press("c")
        await pilot.pause()
        menu = app.screen
        assert isinstance(menu, CopyMenu)
        nearest = rows["zlib-ng"]["nearest"]["hash"]
        assert menu.values[0] == ("wanted hash", rows["zlib-ng"]["hash"])
        assert menu.values[1] == ("install the nearest binary", f"spack install /{nearest}")
        what, spec = menu.values[2]
        assert what == "spec of the nearest binary"
        # the binary's values, compiler last (Spack 1.x reads what follows %gcc as the compiler's)
        assert spec.startswith("zlib-ng@2.2.4 ") and spec.endswith(" arch=linux-ubuntu24.04-icelake %gcc@13.3.0")
        assert "+compat" in spec
        await pilot.press("2")
        await pilot.pause()
        assert any(n.message == f"spack install /{nearest}" for n in app._notifications)
        await _select(pilot, "cmake")  # a hit: its own install line, no spec to select
        await pilot.press("c")
        await pilot.pause()
        assert app.screen.values == [("wanted hash", rows["cmake"]["hash"]),
                                     ("install command", f"spack install /{rows['cmake']['hash']}")]


def test_want_from_standard_input_is_a_usage_error(capsys, changed) -> None:  # noqa: ANN001
    _, mirror = changed
    assert main(["--want", "-", str(mirror)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "standard input" in err


def test_an_unreadable_want_is_one_line_and_exit_2(capsys, changed, tmp_path) -> None:  # noqa: ANN001
    lock, mirror = changed
    cut = tmp_path / "cut.lock"
    cut.write_text(lock.read_text()[:200])
    assert main(["--want", str(cut), str(mirror)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(cut) in err


async def test_text_from_the_files_is_shown_as_it_is_never_as_markup(capsys, tmp_path) -> None:  # noqa: ANN001
    lock, mirror, _ = write_changed_environment(tmp_path / "[b]env[/b]")
    data = json.loads(lock.read_text())
    node = next(n for n in data["concrete_specs"].values() if n["name"] == "zlib-ng")
    node["version"] = "2.2.3[red]\x1b[2J"
    lock.write_text(json.dumps(data))
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        # the title as drawn: its markup (Textual's getter) read back is the path, brackets and all
        assert "[b]env[/b]/spack.lock" in Text.from_markup(str(view.query_one(CoverageTree).border_title)).plain
        await _select(pilot, "zlib-ng")
        rows = [r.plain for r in view.query_one(CoverageDetail).source.rows]
        assert any("2.2.3[red]" in row for row in rows)
        assert not any("\x1b" in row for row in rows)
        tree_rows = [view.query_one(CoverageTree).row_text(i, 100).plain for i in range(len(view.state.shown))]
        assert any("zlib-ng@2.2.3[red]" in row for row in tree_rows) and not any("\x1b" in r for r in tree_rows)


async def test_wanteds_warnings_are_among_the_problems_p_lists(capsys, changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    data = json.loads(lock.read_text())
    data["roots"][0]["spec"] = "not-cmake"
    lock.write_text(json.dumps(data))
    main(["coverage", "--no-cache", str(lock), str(mirror)])
    said = [line.removeprefix("cachetui: ") for line in capsys.readouterr().err.splitlines()]
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        problems = [p.described() for p in app.screen.corpus.report.problems]
        assert said and all(any(line in p or p in line for p in problems) for line in said), (said, problems)


async def test_narrowing_the_tree_keeps_the_cursor_on_the_node_it_was_on(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "ncurses")
        view = app.screen.query_one(CoverageView)
        view.query_one(CoverageFacet).focus()
        await pilot.press("home", "j", "j", "enter")  # differs: ncurses is one
        await pilot.pause()
        tree = view.query_one(CoverageTree)
        assert len(view.state.shown) < len(view.state.tree)
        assert view.state.nodes[view.state.shown[tree.cursor].hash].package == "ncurses"
        assert view.query_one(CoverageDetail).detail.node.package == "ncurses"


async def _palette_offers(app: CacheTuiApp, typed: str) -> set[str]:
    screen = app.screen
    found: set[str] = set()
    for provider in (ActionCommands(screen), PackageCommands(screen), FacetCommands(screen)):
        found |= {str(hit.text or hit.match_display) async for hit in provider.search(typed)}
    return found


async def test_the_palette_offers_the_coverage_views_keys_while_it_shows(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        # the spec table's own commands act on a table the coverage view hides: not offered there
        assert not {"Show all packages", "Sort by version", "curl"} & await _palette_offers(app, "curl")
        assert not await _palette_offers(app, "Sort by version") & {"Sort by version"}
        await pilot.press("w")  # the specs: the table's commands are back
        await wait_loaded(pilot)
        assert "curl" in await _palette_offers(app, "curl")
        assert "Sort by version" in await _palette_offers(app, "Sort by version")
        await pilot.press("w")
        await pilot.pause()
        await _select(pilot, "curl")
        await run_palette(pilot, "nearest binary", "Show the nearest binary")
        await wait_loaded(pilot)
        assert not app.screen.query_one("#coverage").display and app.screen.query_one("#spec-view").display
        assert app.screen.query_one(SpecTable).current_spec == view_nearest(app, "curl")


def view_nearest(app: CacheTuiApp, package: str) -> int:
    view = app.screen.query_one(CoverageView)
    return next(n.nearest.index for n in view.state.coverage.nodes if n.package == package)


async def test_the_binary_is_beside_the_node_when_wide_and_below_it_when_narrow(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "bzip2")
        detail = app.screen.query_one(CoverageDetail).detail
    wide = [row.plain for row in detail_rows(detail, 100)[1:]]  # under the node's status line
    assert [row.split() for row in wide if row.startswith("≠ ")] == [["≠", "target", "icelake", "skylake"]]
    narrow = [row.plain for row in detail_rows(detail, 40)[1:]]
    marked = [row.split() for row in narrow if row.startswith("≠ ")]
    assert marked == [["≠", "target", "icelake"], ["≠", "target", "skylake"]]  # the node's block, then the binary's
    assert narrow.index("wanted") < narrow.index("nearest")


async def test_a_source_that_failed_is_said_in_the_coverage_views_line(changed, tmp_path) -> None:  # noqa: ANN001
    lock, mirror = changed
    args = browse_parser().parse_args(["--want", str(lock)])
    app = CacheTuiApp([str(mirror), str(tmp_path / "nothing-here.json")], LoadOptions(use_cache=False),
                      system_clipboard=False, wanted=wanted_of(args))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        assert app.screen.corpus.report.problems
        line = str(app.screen.query_one("#coverage-status").render())
        assert f"⚠ {len(app.screen.corpus.report.problems)} problem" in line and "(p)" in line


async def test_several_wants_are_one_dag_a_shared_node_counted_once(capsys, changed, tmp_path) -> None:  # noqa: ANN001
    lock, mirror = changed
    whole = json.loads(lock.read_text())
    parts = []
    for root in whole["roots"]:
        part = tmp_path / f"{root['spec']}.lock"
        part.write_text(json.dumps({**whole, "roots": [root]}))
        parts.append(part)
    expected = _cli_summary(capsys, lock, mirror)  # the environment as one lockfile
    args = browse_parser().parse_args([arg for part in parts for arg in ("--want", str(part))])
    app = CacheTuiApp([str(mirror)], LoadOptions(use_cache=False), system_clipboard=False, wanted=wanted_of(args))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        assert view.state.summary() == expected
        assert [line.hash for line in view.state.tree if line.depth == 0][:2] == [r["hash"] for r in whole["roots"]]


def _help_keys(app: CacheTuiApp) -> set[str]:
    """The first word of each of the help's key lines: the keys it lists."""
    text = app.screen.query_one("#help-body").render().plain
    return {line.split()[0] for line in text.split("\n\n", 1)[1].splitlines() if line.startswith("  ")}


async def test_the_help_lists_w_and_n_only_where_they_act(changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    with_want = _app(lock, mirror)
    async with with_want.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await pilot.press("question_mark")
        assert {"w", "n"} <= _help_keys(with_want)  # the coverage view: both act
    without = CacheTuiApp([str(mirror)], LoadOptions(use_cache=False), system_clipboard=False)
    async with without.run_test(size=(120, 40)) as pilot:
        await wait_loaded(pilot)
        await pilot.press("question_mark")
        listed = _help_keys(without)
        assert "?" in listed and not {"w", "n"} & listed  # nothing wanted: neither can act


async def test_the_coverage_view_names_its_keys_as_bound(changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    app = _app(lock, mirror)
    app.set_keymap({"browser.nearest": "N", "pick.select": "space"})
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "curl")
        detail = app.screen.query_one(CoverageDetail)
        assert "(N: in the spec table)" in "\n".join(detail.render_line(y).text for y in range(detail.size.height))
        assert str(app.screen.query_one(CoverageFacet).border_title) == "Coverage (space: only these)"


def _screen_lines(app: CacheTuiApp) -> list[str]:
    """Every line the compositor would send for the screen now."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


def _package_under_cursor(app: CacheTuiApp) -> str:
    view = app.screen.query_one(CoverageView)
    return view.state.nodes[view.state.shown[view.tree_list.cursor].hash].package


async def test_slash_finds_a_node_by_name_enter_goes_on_escape_returns_and_n_stays_nearest(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        tree, find = view.tree_list, view.query_one(FindLine)
        await pilot.press("slash", *"gcc")  # typed at once: the box has the keys, the first match the cursor
        assert app.screen.focused is find and _package_under_cursor(app) == "gcc"
        gccs = list(view.state.matches)
        assert {view.state.nodes[view.state.shown[row].hash].package for row in gccs} == {"gcc", "gcc-runtime"}
        assert not any(view.state.shown[row].repeated for row in gccs)  # each node once, not its `↑ above` lines
        assert "1 of 2" in "\n".join(_screen_lines(app))
        await pilot.press("enter")
        assert tree.cursor == gccs[1] and _package_under_cursor(app) == "gcc-runtime"
        await pilot.press("enter")  # round the end, as less goes
        assert tree.cursor == gccs[0]
        await pilot.press("up")
        assert tree.cursor == gccs[1]
        await pilot.press("ctrl+u", *"ncurss")  # a typo: found as the package list finds it
        assert _package_under_cursor(app) == "ncurses"
        at = tree.cursor
        await pilot.press("ctrl+u", *"zzzz")  # nothing: back where the find began, and said
        assert "no match" in "\n".join(_screen_lines(app)) and tree.cursor == 0
        await pilot.press("ctrl+u", *"ncurses", "escape")
        assert app.screen.focused is tree and tree.cursor == at and not view.query_one("#coverage-find").display
        await pilot.press("n")  # `n` is still the nearest binary, never the next match
        await wait_loaded(pilot)
        assert app.screen.view == "spec-view"
        assert app.screen.query_one(SpecTable).current_spec == view_nearest(app, "ncurses")


async def test_backspace_after_n_returns_to_the_coverage_view_on_the_same_node(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        await pilot.press("w")  # the specs first: the table on a spec of its own
        await wait_loaded(pilot)
        table = app.screen.query_one(SpecTable)
        await open_package(pilot, "bzip2")
        before = table.current_spec
        await pilot.press("w")
        await _select(pilot, "curl")
        cursor = app.screen.query_one(CoverageView).tree_list.cursor
        await pilot.press("n")
        await wait_loaded(pilot)
        assert app.screen.focused is table and table.current_spec == view_nearest(app, "curl")
        await pilot.press("backspace")  # where the docs say: in the spec table, back where `n` came from
        await wait_loaded(pilot)
        view = app.screen.query_one(CoverageView)
        assert app.screen.view == "coverage" and app.screen.focused is view.tree_list
        assert view.tree_list.cursor == cursor and _package_under_cursor(app) == "curl"
        await pilot.press("w")  # and the table is as it was before the jump
        await wait_loaded(pilot)
        assert table.current_spec == before


async def test_every_line_the_view_cuts_ends_in_an_ellipsis(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "curl")
        view = app.screen.query_one(CoverageView)
        cut = 0
        for pane in (view.query_one(CoverageFacet), view.tree_list, view.query_one(CoverageDetail)):
            width = pane.content_width
            for y in range(pane.size.height):
                row = pane.row_at(y)
                if row is None:
                    continue
                whole = pane.source.text(row, 1000).plain.rstrip()
                painted = pane.render_line(y).text[:width].rstrip()
                if len(whole) > width:
                    cut += 1
                    assert painted.endswith("…"), (whole, painted)
                else:
                    assert painted == whole
        assert cut > 10  # at 80 columns the facet's meanings, long tree lines and the details' values
        status = view.query_one("#coverage-status")
        assert status.render().plain.endswith("…") and len(status.render().plain) <= status.content_size.width


async def test_a_node_31_levels_deep_keeps_its_name_in_sight_at_80_columns(tmp_path: Path) -> None:
    lock, mirror = write_deep_environment(tmp_path, depth=31)
    app = _app(lock, mirror)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        tree = view.tree_list
        tree.focus()
        for level in range(32):  # down the chain, a level a key, and back up
            await pilot.press("j" if level else "home")
            on_screen = tree.render_line(tree.cursor - int(tree.scroll_offset.y)).text
            assert f"layer-{tree.cursor:02d}-toolkit@1.0" in on_screen, on_screen
        assert tree.cursor == 31 and tree.scrolled_by > 0
        assert tree.render_line(tree.cursor - int(tree.scroll_offset.y)).text.startswith("‹")  # scrolled: marked
        await pilot.press("home")
        assert tree.scrolled_by == 0 and tree.render_line(0).text.startswith("✓ layer-00-toolkit@1.0")


async def test_the_status_chosen_in_the_facet_stays_in_the_trees_title(changed) -> None:  # noqa: ANN001
    app = _app(*changed)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        view = app.screen.query_one(CoverageView)
        view.query_one(CoverageFacet).focus()
        await pilot.press("home", "j", "j", "enter", "j", "enter")  # differs and absent
        await pilot.pause()
        tree = view.tree_list
        title_line = _screen_lines(app)[tree.region.y]  # the tree's top border, where its title is drawn
        assert "Wanted, only differs, absent" in title_line
        await pilot.press("enter")  # absent again: only differs
        await pilot.pause()
        assert "Wanted, only differs:" in _screen_lines(app)[tree.region.y]


async def test_the_spec_copied_for_a_dependency_difference_selects_the_binarys_dependency(changed) -> None:  # noqa: ANN001
    lock, mirror = changed
    app = _app(lock, mirror)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_compared(pilot)
        await _select(pilot, "curl")  # its nearest binary links nghttp2 1.64.0, the wanted 1.65.0
        corpus = app.screen.corpus
        nearest = view_nearest(app, "curl")
        older = next(d for d in corpus.dependencies(nearest) if d.name == "nghttp2")
        await pilot.press("c")
        await pilot.pause()
        what, spec = app.screen.values[2]
        assert what == "spec of the nearest binary"
        assert spec.endswith(f"%gcc@13.3.0 ^nghttp2@1.64.0/{older.hash}")  # after the compiler: the root's `^`
        assert spec.count("^") == 1  # the dependencies it shares with the wanted node select nothing more
