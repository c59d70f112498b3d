"""SVG snapshots of the main screens at 120x40, 80x24 and 60x15 (pytest-textual-snapshot).

Regenerate after an intended change: `.venv/bin/pytest tests/app/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.pilot import Pilot

from cachetui.app.app import CacheTuiApp
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import open_package, sample_app, toggle_facet, type_query, wait_loaded
from tests.app.width_tree import write_width_tree

SIZES = [(120, 40), (80, 24)]


async def _opened(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await open_package(pilot, "mpi4")


async def _filtered(pilot: Pilot) -> None:
    await _opened(pilot)
    pilot.app.screen.query_one(SpecTable).focus()
    if not pilot.app.screen.has_class("-narrow"):
        await toggle_facet(pilot, "compiler", "gcc@13.2.0")
        await toggle_facet(pilot, "target", "aarch64")
        pilot.app.screen.query_one(SpecTable).focus()
    await pilot.press("j")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_start_screen(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    assert snap_compare(sample_app(), terminal_size=size, run_before=wait_loaded)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_package_filtered(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    assert snap_compare(sample_app(), terminal_size=size, run_before=_filtered)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_facets_shown_on_narrow_or_hidden_on_wide(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot)
        await pilot.press("f")

    assert snap_compare(sample_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_spec_query(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await wait_loaded(pilot)
        await type_query(pilot, "py-mpi4py target=aarch64 %gcc@13")

    assert snap_compare(sample_app(), terminal_size=size, run_before=run_before)


def test_spec_query_problem(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await wait_loaded(pilot)
        await type_query(pilot, "py-mpi4py %gnu")

    assert snap_compare(sample_app(), terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("keys", ["c", "t", "question_mark", "v"], ids=["copy-menu", "tag-picker", "help", "columns"])
def test_dialogs(snap_compare, keys: str) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot)
        await pilot.press(keys)
        await pilot.pause()

    assert snap_compare(sample_app(), terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare_mode(snap_compare, size: tuple[int, int]) -> None:  # noqa: ANN001
    """The sample's two tags compared: marks in the table, +added −removed in the package list."""
    async def run_before(pilot: Pilot) -> None:
        await wait_loaded(pilot)
        await pilot.press("d", "down", "enter", "enter")  # older: develop-2025-04-20; newer: develop
        await wait_loaded(pilot)

    assert snap_compare(sample_app(), terminal_size=size, run_before=run_before)


def test_find_view(snap_compare) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot) -> None:
        await _opened(pilot)
        await pilot.press("l")
        await wait_loaded(pilot)

    assert snap_compare(sample_app(), terminal_size=(120, 40), run_before=run_before)


WIDTH_SIZES = [(120, 40), (80, 24), (60, 15)]


async def _hdf5_answer(pilot: Pilot) -> None:
    await wait_loaded(pilot)
    await type_query(pilot, "hdf5 +mpi %gcc")
    await wait_loaded(pilot)


async def _hdf5_find(pilot: Pilot) -> None:
    await _hdf5_answer(pilot)
    await pilot.press("l")
    await wait_loaded(pilot)


@pytest.mark.parametrize("view", [_hdf5_answer, wait_loaded, _hdf5_find], ids=["hdf5", "all-packages", "find"])
@pytest.mark.parametrize("size", WIDTH_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_width(snap_compare, size: tuple[int, int], view) -> None:  # noqa: ANN001
    """Issue 21: 20 hdf5 binaries told apart by a variant or two, six of them listed in two tags.

    The tree is written under build/ (one per test) so the source path in the details is the same every run.
    """
    root = Path("build") / f"width-tree-{size[0]}x{size[1]}-{view.__name__}"
    shutil.rmtree(root, ignore_errors=True)
    app = CacheTuiApp([str(write_width_tree(root))], system_clipboard=False)
    assert snap_compare(app, terminal_size=size, run_before=view)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_coverage_view(snap_compare, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """`cachetui --want spack.lock mirror` on tests/wanted_files.py's changed environment, curl (differs) selected."""
    from cachetui.cli.main import browse_parser, wanted_of
    from cachetui.core.load import LoadOptions
    from tests.app.helpers import wait_compared
    from tests.wanted_files import write_changed_environment

    write_changed_environment(tmp_path)
    monkeypatch.chdir(tmp_path)  # the paths the view names are relative: the same in every run
    app = CacheTuiApp(["mirror"], LoadOptions(use_cache=False), system_clipboard=False,
                      wanted=wanted_of(browse_parser().parse_args(["--want", "spack.lock"])))

    async def run_before(pilot: Pilot) -> None:
        await wait_compared(pilot)
        await pilot.press("j", "j")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_plan_view(snap_compare, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """`cachetui --plan tests/fixtures/plan/real/icon-santis --arch linux-ubuntu22.04-x86_64_v3 SAMPLE`: the partly
    root py-mpi4py selected, what is not evaluated listed under the roots."""
    from cachetui.app.widgets.plan_view import PlanView
    from cachetui.cli.main import browse_parser, plan_of
    from cachetui.core.load import LoadOptions, sample_path
    from tests.app.helpers import wait_for

    monkeypatch.chdir(Path(__file__).parents[2])  # the environment named as a user names it: the same in every run
    args = browse_parser().parse_args(["--plan", "tests/fixtures/plan/real/icon-santis",
                                       "--arch", "linux-ubuntu22.04-x86_64_v3", str(sample_path())])
    planned = plan_of(args)
    app = CacheTuiApp(list(args.inputs), LoadOptions(use_cache=False), system_clipboard=False, planned=planned)

    async def run_before(pilot: Pilot) -> None:
        await wait_loaded(pilot)
        view = pilot.app.screen.query_one(PlanView)
        await wait_for(pilot, lambda: view.state.plan is not None)
        await pilot.press("j", "j", "j")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
