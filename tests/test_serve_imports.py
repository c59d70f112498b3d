"""`cachetui serve` imports only the installed package, whatever directory it was started in.

`python -m` puts the working directory first on the import path: a `cachetui/` (or `textual/`)
folder there would be imported in place of the installed package, once per visitor. The tests
start from a directory holding such folders, each of which leaves a mark if it is ever imported.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestServer

from cachetui.cli import web
from cachetui.cli.main import main
from cachetui.cli.web import ENDED, SessionServer, session_pythonpath
from cachetui.core.load.sample import sample_path
from cachetui.present.serve.served import ServeConfig
from tests.test_serve import DEADLINE_S, _loaded, _visit

PLANTED = 'open({mark!r}, "a").write(__name__ + "\\n")\nraise SystemExit("a planted module ran")\n'


def _plant(directory: Path, mark: Path, *packages: str) -> Path:
    directory.mkdir()
    for package in packages:
        (directory / package).mkdir()
        (directory / package / "__init__.py").write_text(PLANTED.format(mark=str(mark)))
    return directory


async def _serve_sample() -> tuple[TestServer, SessionServer]:
    server = SessionServer(ServeConfig([str(sample_path())]), host="127.0.0.1", port=0, public_url=None,
                           title="cachetui: sample", max_sessions=1)
    test_server = TestServer(await server.make_app(), host="127.0.0.1", port=0)
    await test_server.start_server()
    return test_server, server


async def test_a_session_started_beside_a_planted_cachetui_folder_runs_the_installed_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark = tmp_path / "planted-modules-ran"
    monkeypatch.chdir(_plant(tmp_path / "started-here", mark, "cachetui", "textual"))
    # As `export PYTHONPATH=$PYTHONPATH:/opt/x` leaves it when it was unset: its empty entry is the working directory.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", ".", str(tmp_path / "elsewhere")]))
    test_server, _ = await _serve_sample()
    try:
        async with aiohttp.ClientSession() as http:
            visitor = await _visit(http, test_server)
            await visitor.until(_loaded, "the session's packages")
            await visitor.ws.close()
    finally:
        await test_server.close()
    assert not mark.exists(), mark.read_text()


async def test_a_session_that_cannot_start_closes_its_page_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "COMMAND", shlex.join([sys.executable, "-c", "raise SystemExit('No module named x')"]))
    test_server, server = await _serve_sample()
    try:
        async with aiohttp.ClientSession() as http:
            visitor = await _visit(http, test_server)
            await visitor.until(lambda v: v.closed is not None, "the page closed")
            assert visitor.closed == (WSCloseCode.INTERNAL_ERROR, ENDED)
    finally:
        await test_server.close()
    assert not server.sessions


def test_python_m_cachetui_imports_nothing_else_from_the_working_directory(tmp_path: Path) -> None:
    """The package itself is found before `__main__` runs (so `cachetui`, or `python -P -m`, is how to start it
    among folders others write); every other module comes from the installed ones, as with the console script."""
    mark = tmp_path / "planted-modules-ran"
    here = _plant(tmp_path / "started-here", mark, "textual", "aiohttp")
    (here / "json.py").write_text(PLANTED.format(mark=str(mark)))
    done = subprocess.run([sys.executable, "-m", "cachetui", "check", str(sample_path())], cwd=here,
                          capture_output=True, text=True, timeout=DEADLINE_S)
    assert done.returncode == 0, done.stderr
    assert "0 errors" in done.stdout
    assert not mark.exists(), mark.read_text()


def test_a_session_imports_only_from_the_absolute_entries_of_pythonpath(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert session_pythonpath(os.pathsep.join(["", "/opt/x", "src", "."])) == ("/opt/x", ["", "src", "."])
    assert session_pythonpath("") == ("", [])
    monkeypatch.setattr(SessionServer, "run", lambda self, started: None)
    monkeypatch.setenv("PYTHONPATH", os.pathsep + "/opt/x")
    assert main(["serve", "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert "PYTHONPATH has entries relative to the working directory (''), where this server looks" in err
    monkeypatch.setenv("PYTHONPATH", "/opt/x")
    assert main(["serve", "--no-cache"]) == 0
    assert "PYTHONPATH" not in capsys.readouterr().err
