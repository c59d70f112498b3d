"""`cachetui config`: where the browser's settings file is, and the settings in effect with their defaults."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cachetui.cli.options import EXIT_OK, EXIT_PROBLEMS
from cachetui.core.model.problems import PathNotFound, UnusableInput
from cachetui.core.spack.words import echo
from cachetui.present.config.known import known
from cachetui.present.config.settings import UserSettings, config_path, effective_toml, read_settings
from cachetui.present.config.settings_declared import SOURCES
from cachetui.present.inert import inert


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "config",
        help="the browser's settings file and the settings in effect",
        description="Print the path of the browser's settings file ($XDG_CONFIG_HOME/cachetui/config.toml) and "
                    "the settings in effect, as TOML, with their defaults. A bad entry is one line on stderr naming "
                    "the file, line and key (exit 1); the browser uses that setting's default, except for a source "
                    "that does not exist: opened with no SOURCE, the browser refuses to start, naming it (exit 2).",
    )
    parser.add_argument("--debug", action="store_true", help="show a traceback for internal errors")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The app's binding ids from its key rows, Textual's key names and themes as written down: a headless
    # command never imports Textual.
    app_keys = known()
    user = _sources_checked(read_settings(config_path(), app_keys))
    sys.stdout.write(effective_toml(user, app_keys))
    sys.stdout.flush()
    for problem in user.problems():
        print(f"cachetui: {inert(problem.described())}", file=sys.stderr)
    return EXIT_PROBLEMS if user.bad else EXIT_OK


def _sources_checked(user: UserSettings) -> UserSettings:
    """Each source of the file that the browser could not open, as a bad entry: by the rule the browser's
    command line checks its sources with (`require_inputs`), which fetches nothing and never opens a FIFO."""
    from cachetui.core.load import require_inputs

    for source in user.settings[SOURCES]:
        try:
            require_inputs([source])
        except PathNotFound:
            user = user.refused(("sources",), f"no such file or directory: {echo(source)}")
        except UnusableInput as exc:
            user = user.refused(("sources",), echo(str(exc)))
    return user
