"""`cachetui --plan ENV [--arch …] [SOURCE...]`: the plan view shows what `cachetui plan --format json` prints.

The environments are tests/fixtures/plan's: `example` against Spack's test mirror (its own `mirrors:`, read when no
SOURCE is named), planned for m1 (cached, external, a root with no binary) and core2 (roots to build, each binary
excluded by `target=m1`), `example-partly` (a closure failing a requirement), and ICON's against the bundled
sample (a partly root with 40 candidates, and what is not evaluated).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.widgets.plan_view import PlanDetail, PlanFacet, PlanNotes, PlanRoots, PlanView
from cachetui.app.widgets.spec_table import SpecTable
from cachetui.app.widgets.status_line import StatusLine
from cachetui.cli.main import browse_parser, main, plan_of
from cachetui.core.load import LoadOptions, sample_path
from cachetui.core.query.plan import NOT_MODELLED
from cachetui.present.browse.plan_browsing import MARKS
from tests.app.helpers import wait_for, wait_loaded

PLANS = Path(__file__).parents[1] / "fixtures" / "plan"
EXAMPLE, PARTLY, ICON = PLANS / "example", PLANS / "example-partly", PLANS / "real" / "icon-santis"
M1, CORE2, X86 = "test-debian6-m1", "test-debian6-core2", "linux-ubuntu22.04-x86_64_v3"


def _app(env: Path, arch: str, *sources: str) -> CacheTuiApp:
    """The browser as `cachetui --plan ENV --arch ARCH [SOURCE...]` builds it (ENV and its sources read by the
    CLI's rule: with no SOURCE, the environment's mirrors)."""
    args = browse_parser().parse_args(["--no-cache", "--plan", str(env), "--arch", arch, *sources])
    planned = plan_of(args)
    return CacheTuiApp(list(args.inputs), LoadOptions(use_cache=False), system_clipboard=False, planned=planned)


def _cli_json(capsys: pytest.CaptureFixture[str], env: Path, arch: str, *sources: str) -> list[dict]:
    main(["plan", "--no-cache", "--format", "json", str(env), *sources, "--arch", arch])
    return json.loads(capsys.readouterr().out)


def _cli_summary(capsys: pytest.CaptureFixture[str], env: Path, arch: str, *sources: str) -> str:
    main(["plan", "--no-cache", str(env), *sources, "--arch", arch])
    return next(line for line in capsys.readouterr().out.splitlines() if " roots: " in line)


async def _planned(pilot: Pilot) -> PlanView:
    await wait_loaded(pilot)
    view = pilot.app.screen.query_one(PlanView)
    await wait_for(pilot, lambda: view.state.plan is not None)
    await pilot.pause()
    return view


def _lines(widget) -> list[str]:  # noqa: ANN001 - a widget
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def _select(pilot: Pilot, spec: str) -> None:
    """The roots' cursor on the root written `spec`, with the keys a user presses."""
    view = pilot.app.screen.query_one(PlanView)
    view.roots_list.focus()
    await pilot.press("home")
    while view.root is None or view.root.spec != spec:
        await pilot.press("j")
    await pilot.pause()


async def test_the_summary_platform_and_every_root_are_what_plan_prints(capsys) -> None:  # noqa: ANN001
    expected = _cli_json(capsys, EXAMPLE, M1)
    summary = _cli_summary(capsys, EXAMPLE, M1)
    app = _app(EXAMPLE, M1)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _planned(pilot)
        status = str(app.screen.query_one("#plan-status").render())
        assert summary == "5 roots: 3 cached, 0 partly, 1 external, 1 to build"
        assert status == f"plan  {summary}  │  for {M1}"
        said = str(app.screen.query_one("#plan-notes-line").render())
        assert "everything in the environment was evaluated" in said and "reading the environment's 1 mirror" in said
        footnote = app.screen.query_one("#plan-footnote")
        assert str(footnote.said).lower() == NOT_MODELLED + "."  # type: ignore[attr-defined]
        shown = str(footnote.render())
        assert len(shown) == 118 and shown.endswith("…") and NOT_MODELLED.startswith(shown[:-1].lower())  # cut, said
        roots = _lines(view.roots_list)
        for row, root in enumerate(expected):
            assert roots[row].startswith(f"{MARKS[root['status']]} {root['status']:<9}{root['spec']}")
            if root["binary"]:
                assert roots[row].endswith(f"/{root['binary']['hash'][:7]}")


async def test_the_facet_narrows_the_roots_to_the_statuses_chosen_and_keeps_the_cursors_root() -> None:
    app = _app(EXAMPLE, M1)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _planned(pilot)
        await _select(pilot, "zlib")
        facet = app.screen.query_one(PlanFacet)
        assert [line.split()[1:3] for line in _lines(facet)[:4]] == [
            ["cached", "3"], ["partly", "0"], ["external", "1"], ["build", "1"]]
        facet.focus()
        await pilot.press("home", "j", "j", "j", "enter")  # build
        await pilot.pause()
        assert [root.spec for root in (view.state.root(r) for r in range(len(view.state.shown)))] == ["zlib"]
        assert view.root is not None and view.root.spec == "zlib"
        assert "only build" in str(view.roots_list.border_title)
        assert _lines(facet)[3].startswith("✓ ✗ build")
        await pilot.press("k", "enter")  # and external
        await pilot.pause()
        assert [view.state.root(r).spec for r in range(len(view.state.shown))] == ["zlib", "cmake"]  # type: ignore[union-attr]
        await pilot.press("enter", "j", "enter")  # neither: every root
        await pilot.pause()
        assert len(view.state.shown) == 5 and view.root is not None and view.root.spec == "zlib"


async def test_the_details_of_a_cached_root_an_external_one_and_one_without_binary(capsys) -> None:  # noqa: ANN001
    rows = {row["spec"]: row for row in _cli_json(capsys, EXAMPLE, M1)}
    app = _app(EXAMPLE, M1)
    async with app.run_test(size=(120, 40)) as pilot:
        await _planned(pilot)
        detail = app.screen.query_one(PlanDetail)
        await _select(pilot, "libdwarf")
        shown = "\n".join(_lines(detail))
        binary = rows["libdwarf"]["binary"]
        assert "✓ cached" in shown and f"binary      /{binary['hash']}" in shown
        assert f"selected by {binary['spec']}"[:60] in shown and f"tag         {binary['tag']}" in shown
        assert "closure     complete" in shown and "candidates  1  (n: in the spec table)" in shown
        await _select(pilot, "cmake")
        shown = "\n".join(_lines(detail))
        assert "⌂ external" in shown and f"note        {rows['cmake']['note']}" in shown and "binary" not in shown
        await _select(pilot, "zlib")
        shown = "\n".join(_lines(detail))
        assert "✗ build" in shown and "candidates  none: Spack builds it" in shown
        assert "note        no binary of zlib in the sources" in shown


async def test_a_root_to_build_lists_every_reason_each_nearest_binary_is_excluded(capsys) -> None:  # noqa: ANN001
    rows = {row["spec"]: row for row in _cli_json(capsys, EXAMPLE, CORE2)}
    app = _app(EXAMPLE, CORE2)
    async with app.run_test(size=(80, 24)) as pilot:
        await _planned(pilot)
        await _select(pilot, "libdwarf")
        detail = app.screen.query_one(PlanDetail)
        shown = [detail.row_text(row, detail.content_width).plain.rstrip() for row in range(detail.row_count)]
        why = rows["libdwarf"]["why"]
        assert len(why) == 2
        whole = "".join("".join(shown).split())  # a value longer than the pane goes on under it, whole
        for exclusion in why:
            assert "".join(f"/{exclusion['hash'][:7]} {exclusion['spec']}".split()) in whole
            assert "".join(f"{exclusion['category']}: {exclusion['excluded_by']}".split()) in whole
        assert not any(line.endswith("…") for line in shown)
        assert "n" not in app.screen.active_bindings or not app.screen.active_bindings["n"].enabled
        await pilot.press("n")  # no candidates: refused, the plan stays
        await pilot.pause()
        assert app.screen.query_one(PlanView).display and app.screen.focused is app.screen.query_one(PlanRoots)


async def test_a_partly_root_says_which_dependency_fails_and_what_excludes_it(capsys) -> None:  # noqa: ANN001
    rows = {row["spec"]: row for row in _cli_json(capsys, PARTLY, M1)}
    app = _app(PARTLY, M1)
    async with app.run_test(size=(160, 40)) as pilot:
        await _planned(pilot)
        await _select(pilot, "libdwarf")
        shown = [line.strip() for line in _lines(app.screen.query_one(PlanDetail))]
        assert rows["libdwarf"]["status"] == "partly"
        assert "≈ partly" in shown and "closure     incomplete" in shown
        assert "failing     1 dependency failing its package's requirements" in shown
        assert any(line.startswith("/izgzpze gcc-runtime@10.2.1") for line in shown)
        assert any(line.startswith("excluded by require '@11:' (packages:gcc-runtime in") for line in shown)


async def test_n_opens_exactly_the_candidates_the_chosen_binary_selected_and_backspace_returns(capsys) -> None:  # noqa: ANN001
    sample = str(sample_path())
    app = _app(ICON, X86, sample)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _planned(pilot)
        await _select(pilot, "py-mpi4py")
        root = view.root
        assert root is not None and root.binary is not None and root.candidates == 40
        position = view.position
        await pilot.press("n")
        await wait_loaded(pilot)
        assert not view.display and app.screen.query_one("#spec-view").display
        table, corpus = app.screen.query_one(SpecTable), app.browser.corpus
        assert table.data is not None and sorted(table.data.indices.tolist()) == sorted(root.candidate_indices)
        package = corpus.package_slice("py-mpi4py")
        assert len(root.candidate_indices) < package.stop - package.start  # exactly these: not the whole package
        assert table.current_spec == root.binary.index
        status = str(app.screen.query_one(StatusLine).render())
        assert status.startswith("candidates for py-mpi4py (plan)  py-mpi4py  │  40 of ")
        await pilot.press("backspace")
        await wait_loaded(pilot)
        assert view.display and view.position == position and app.screen.focused is view.roots_list
        assert app.browser.browsing.view.among is None  # the table as it was before


async def test_not_evaluated_is_listed_in_the_view_never_dropped(capsys) -> None:  # noqa: ANN001
    sample = str(sample_path())
    main(["plan", "--no-cache", str(ICON), sample, "--arch", X86])
    said = [line.removeprefix("cachetui: ") for line in capsys.readouterr().err.splitlines()
            if "not evaluated" in line or "not modelled" in line or "not read" in line]
    app = _app(ICON, X86, sample)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _planned(pilot)
        notes = view.state.plan.notes  # type: ignore[union-attr]
        assert len(notes) >= 3 and set(said) <= set(notes)
        line = str(app.screen.query_one("#plan-notes-line").render())
        assert line.startswith(f"⚠ {len(notes)} things not evaluated (listed under the roots)")
        listed = app.screen.query_one(PlanNotes)
        assert listed.display and listed.row_count == len(notes)
        assert [listed.row_text(row, 10_000).plain for row in range(len(notes))] == list(notes)
        listed.focus()  # in the list each note is cut to the pane; the one under the cursor shows whole beside it
        await pilot.press("end")
        await pilot.pause()
        beside = " ".join(line.strip() for line in _lines(app.screen.query_one(PlanDetail))[1:] if line.strip())
        assert beside == notes[-1] and len(notes[-1]) > listed.size.width
        view.roots_list.focus()
        await pilot.pause()
        assert _lines(app.screen.query_one(PlanDetail))[1].startswith("root")


async def test_c_copies_the_pinned_spec_and_install_line(capsys) -> None:  # noqa: ANN001
    rows = {row["spec"]: row for row in _cli_json(capsys, EXAMPLE, M1)}
    app = _app(EXAMPLE, M1)
    async with app.run_test(size=(120, 40)) as pilot:
        await _planned(pilot)
        await _select(pilot, "libelf@0.8.13")
        await pilot.press("c")
        await pilot.pause()
        menu = app.screen
        assert isinstance(menu, CopyMenu)
        binary = rows["libelf@0.8.13"]["binary"]["hash"]
        assert menu.values[:2] == [("pinned spec", f"libelf@0.8.13/{binary}"),
                                   ("install command", f"spack install /{binary}")]
        await pilot.press("1")
        await pilot.pause()
        assert any(n.message == f"libelf@0.8.13/{binary}" for n in app._notifications)


async def test_o_switches_between_the_plan_and_the_specs_and_its_keys_are_remapped() -> None:
    app = _app(EXAMPLE, M1)
    app.set_keymap({"browser.plan": "P", "browser.plan-candidates": "C", "browser.plan-copy": "Y"})
    async with app.run_test(size=(120, 40)) as pilot:
        view = await _planned(pilot)
        await _select(pilot, "libdwarf")
        assert "candidates  1  (C: in the spec table)" in "\n".join(_lines(app.screen.query_one(PlanDetail)))
        await pilot.press("o", "n", "c")  # the defaults do nothing now
        await pilot.pause()
        assert view.display and app.screen is app.browser
        await pilot.press("Y")
        await pilot.pause()
        assert isinstance(app.screen, CopyMenu)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("P")
        await pilot.pause()
        assert not view.display and app.screen.focused is app.screen.query_one(SpecTable)
        await pilot.press("P")
        await pilot.pause()
        assert view.display
        await pilot.press("C")
        await wait_loaded(pilot)
        assert not view.display and app.screen.query_one(SpecTable).current_spec == view.root.binary.index  # type: ignore[union-attr]


def test_an_unreadable_or_malformed_environment_exits_2_with_one_line(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    bad = tmp_path / "spack.yaml"
    bad.write_text("spack:\n  specs: [zlib\n")
    assert main(["--plan", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("cachetui: ") and "spack.yaml" in err
    assert main(["--plan", str(tmp_path / "absent")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["--arch", X86, str(sample_path())]) == 2  # --arch alone
    assert "--arch goes with --plan" in capsys.readouterr().err
