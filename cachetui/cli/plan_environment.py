"""What `cachetui plan` and the browser's `--plan` read alike, before anything loads: the platform (`--arch`), the
environment (unreadable or malformed: exit 2, one line) and, when no SOURCE is named, its mirrors as the sources."""

from __future__ import annotations

import argparse
import re

from cachetui.cli.options import SHOWN_MIRRORS, fail_usage, load_options, names_a_source
from cachetui.core.load import UnreadableEnvironment, read_environment
from cachetui.core.model.environment import Environment
from cachetui.core.spack.arch import Arch, MalformedArch, host_arch, parse_arch
from cachetui.core.spack.words import counted
from cachetui.present.inert import inert

_MIRROR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


def arch_of(text: str | None) -> Arch:
    """`--arch PLATFORM-OS-TARGET`, else this host; a typo is a usage error."""
    if text is None:
        return host_arch()
    try:
        return parse_arch(text)
    except MalformedArch as exc:
        fail_usage(f"--arch: {exc}")


def environment_of(args: argparse.Namespace, location: str, arch: Arch) -> Environment:
    """The environment at `location` (a spack.yaml or its directory): unreadable or malformed is one line, exit 2."""
    try:
        return read_environment(location, load_options(args).max_file_bytes, arch)
    except UnreadableEnvironment as exc:
        fail_usage(str(exc))


def environment_mirrors(args: argparse.Namespace, environment: Environment) -> str | None:
    """With no SOURCE named, the environment's mirrors are what loads: written into `args.inputs`, and the line
    saying so returned (None: a SOURCE is named, or the environment names no mirror; `args` is left as it was)."""
    if names_a_source(args) or not environment.mirrors:
        return None
    names = [mirror.name for mirror in environment.mirrors]
    more = f" and {len(names) - SHOWN_MIRRORS} more" if len(names) > SHOWN_MIRRORS else ""
    args.inputs = [f"{m.name}={m.url}" if _MIRROR_NAME.fullmatch(m.name) else m.url for m in environment.mirrors]
    return inert(f"no SOURCE named: reading the environment's {counted(len(names), 'mirror')}: "
                 f"{', '.join(names[:SHOWN_MIRRORS])}{more}")
