"""Headless commands never import the browser's or the server's libraries: start-up as a user feels it.

The commands are read from the CLI's own parser, so a command added later is checked without
touching this file; only `serve` (whose job is the web server) may import them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cachetui.cli.main import _command_parser
from cachetui.core.load import sample_path

HEAVY = ("textual", "aiohttp", "textual_serve")  # the browser's and the web server's
NEEDS_THEM = {"serve"}
# How a command is run here when it needs more than a source (any other command gets the sample).
ARGUMENTS = {"diff": ["develop-2025-04-20", "develop", str(sample_path())], "config": []}

_RUN = """
import json, sys
from cachetui.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
heavy = sorted(name for name in sys.modules if name.split(".")[0] in {heavy!r})
open(sys.argv[1], "w").write(json.dumps(heavy))
"""


def _commands() -> list[str]:
    (subcommands,) = (a for a in _command_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(subcommands.choices)


def test_the_commands_are_read_from_the_cli() -> None:
    assert {"check", "query", "diff", "config", "serve"} <= set(_commands())


@pytest.mark.parametrize("command", [c for c in _commands() if c not in NEEDS_THEM])
def test_a_headless_command_imports_neither_textual_nor_aiohttp(command: str, tmp_path: Path,
                                                                 private_cache_home: Path) -> None:
    found = tmp_path / "modules.json"
    argv = [command, *ARGUMENTS.get(command, [str(sample_path())])]
    env = {**os.environ, "XDG_CACHE_HOME": str(private_cache_home)}
    done = subprocess.run([sys.executable, "-c", _RUN.format(heavy=set(HEAVY)), str(found), *argv], env=env,
                          capture_output=True, text=True, cwd=tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    assert json.loads(found.read_text()) == [], f"cachetui {' '.join(argv)} imported them"


# What only a miss uses: the document and index parsers (and YAML, msgspec), the builder, the workers;
# and what `check` never uses: provenance (Sequoia) and the readers of wanted files.
MISS_ONLY = ("yaml", "msgspec", "cachetui.core.load.sources.site.loader", "cachetui.core.load.sources.site.parallel",
             "cachetui.core.load.sources.spack_db", "cachetui.core.model.build", "cachetui.core.load.provenance",
             "cachetui.core.load.sources.wanted")
_IMPORTED = """
import json, sys
from cachetui.cli.main import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
json.dump(sorted(sys.modules), open(sys.argv[1], "w"))
"""


def _imported_by(argv: list[str], found: Path, cwd: Path) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _IMPORTED, str(found), *argv], capture_output=True, text=True,
                          cwd=cwd)
    assert "Traceback" not in done.stderr, done.stderr
    return set(json.loads(found.read_text()))


def test_a_warm_check_imports_no_parser_builder_or_provenance(tmp_path: Path, private_cache_home: Path) -> None:
    source = str(sample_path())
    cold = _imported_by(["check", source], tmp_path / "cold.json", tmp_path)
    assert {"msgspec", "cachetui.core.model.build"} <= cold  # the cold load parses and builds: the check can fail
    warm = _imported_by(["check", "--json", source], tmp_path / "warm.json", tmp_path)
    assert sorted(name for name in warm if name.split(".")[0] in MISS_ONLY or name.startswith(MISS_ONLY)) == []


_THREADS = """
import os, sys
import cachetui.core.model.corpus  # numpy, as a load imports it
print(len(os.listdir("/proc/self/task")), os.environ["OPENBLAS_NUM_THREADS"])
"""


@pytest.mark.parametrize(("asked", "expected"), [(None, "1 1"), ("2", "2 2")])  # (its caller's thread and one more)
def test_numpy_starts_no_thread_of_its_own_unless_the_user_asks(asked: str | None, expected: str) -> None:
    """numpy's OpenBLAS would start a thread per core that spins ~0.1 CPU s (cachetui does no linear algebra); a
    process of one thread is also what lets a command fork its parsing worker. A user's own setting stands.
    (The process's threads are counted in /proc: Linux, as CI.)"""
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    if asked is not None:
        env["OPENBLAS_NUM_THREADS"] = asked
    done = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, env=env, timeout=120,
                          check=True)
    assert done.stdout.split() == expected.split()
