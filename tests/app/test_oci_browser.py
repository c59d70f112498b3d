"""The browser on an OCI registry and on the user's Spack mirrors: it opens, and copies the commands that fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from cachetui.app.app import CacheTuiApp
from cachetui.app.dialogs.copy_menu import CopyMenu
from cachetui.app.widgets.spec_table import SpecTable
from tests.app.helpers import open_package, wait_loaded
from tests.mirrors import DB8, expected_records, index_bytes
from tests.registry import serve_registry
from tests.spack_env import isolated_spack

LIBDWARF_M1 = "u5uz3dcch5if4eve4sef67o2rf2lbfgh"


async def _copy_menu(pilot) -> list[str]:  # noqa: ANN001
    table = pilot.app.screen.query_one(SpecTable)
    table.focus()
    table.select_spec(pilot.app.browser.corpus.occurrences(LIBDWARF_M1)[0])
    await pilot.pause()
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CopyMenu)
    return [value[1] for value in pilot.app.screen.values]


async def test_a_registry_opens_in_the_browser_and_offers_adding_it() -> None:
    with serve_registry(auth="bearer") as registry:
        registry.push_index("spack/buildcache", index_bytes(DB8))
        url = f"oci+http://{registry.host}/spack/buildcache"
        app = CacheTuiApp([url], system_clipboard=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_loaded(pilot)
            corpus = app.browser.corpus
            assert corpus.report.problems == [] and corpus.tags == ["buildcache"]
            assert set(corpus.hashes) == set(expected_records(index_bytes(DB8)))
            await open_package(pilot, "libdwarf")
            choices = await _copy_menu(pilot)
            assert choices[2:] == [f"spack mirror add buildcache {url}", "spack buildcache keys --install --trust",
                                   f"spack install /{LIBDWARF_M1}"]
            await pilot.press("3")
            await pilot.pause()
            assert app.clipboard == f"spack mirror add buildcache {url}"


async def test_a_configured_mirror_copies_just_the_install_line(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    spack = isolated_spack(tmp_path, monkeypatch)
    with serve_registry() as registry:
        registry.push_index("team/cache", index_bytes(DB8))
        spack.mirrors(spack.user, f"mirrors:\n  team: oci+http://{registry.host}/team/cache\n")
        app = CacheTuiApp(["spack-mirrors:"], system_clipboard=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_loaded(pilot)
            assert app.browser.corpus.tags == ["team"]
            await open_package(pilot, "libdwarf")
            choices = await _copy_menu(pilot)
            assert choices[2:] == ["spack buildcache keys --install --trust", f"spack install /{LIBDWARF_M1}"]
            assert not any("mirror add" in c for c in choices)
            await pilot.press("5")  # past the end of a shorter menu: nothing happens
            await pilot.pause()
            assert isinstance(app.screen, CopyMenu)
