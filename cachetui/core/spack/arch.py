"""A platform to plan for, as Spack writes an architecture: `linux-ubuntu22.04-x86_64_v3` (`arch=` in a spec).

A binary runs there when its platform and OS are the platform's and its target is the platform's or one of its
ancestors (cachetui.core.spack.targets). This host's architecture is read as Spack reads it: the platform and
microarchitecture as `runs here` reads them (`targets.host`), the OS from `/etc/os-release` as Spack's
`LinuxDistro` names it (`ubuntu22.04`, `debian12`, `rhel8`); where that cannot be read (another system, no such
file), the OS is None and is not checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from cachetui.core.spack.targets import host, known
from cachetui.core.spack.words import echo

OS_RELEASE = "/etc/os-release"
_MAX_OS_RELEASE = 64 * 1024
_PART = re.compile(r"[A-Za-z0-9_.]+")


class MalformedArch(ValueError):
    """An `--arch` that is not `PLATFORM-OS-TARGET`, or names a target archspec does not know."""


@dataclass(frozen=True, slots=True)
class Arch:
    platform: str
    os: str | None  # None: not known (this host's could not be read), so not checked
    target: str
    host: bool = False  # this machine, as read here (said beside the plan)

    def __str__(self) -> str:
        return f"{self.platform}-{self.os or '?'}-{self.target}"


def parse_arch(text: str) -> Arch:
    """`linux-ubuntu22.04-x86_64_v3` (an `arch=` prefix is read too); MalformedArch when it is not one."""
    triple = text.strip().removeprefix("arch=")
    parts = triple.split("-")
    if len(parts) != 3 or not all(_PART.fullmatch(part) for part in parts):
        raise MalformedArch(f"{echo(text, quoted=True)} is not an architecture: write PLATFORM-OS-TARGET, "
                            "as Spack does (e.g. linux-ubuntu22.04-x86_64_v3)")
    platform, os_, target = parts
    if not known(target):
        raise MalformedArch(f"{echo(target, quoted=True)} is not a microarchitecture archspec knows "
                            "(e.g. x86_64_v3, zen3, neoverse_v2, m1)")
    return Arch(platform, os_, target)


def host_arch() -> Arch:
    """This machine: its platform and microarchitecture as `runs here` reads them, its OS as Spack names it."""
    machine = host()
    return Arch(machine.platform, host_os() if machine.platform == "linux" else None, machine.target, host=True)


@lru_cache(maxsize=1)
def host_os() -> str | None:
    """This Linux host's OS as Spack's LinuxDistro names it (the ID and the version's first part; an Ubuntu's
    first two), from /etc/os-release; None when it cannot be read."""
    try:
        with open(OS_RELEASE, "rb") as handle:
            text = handle.read(_MAX_OS_RELEASE).decode("utf-8", "replace")
    except OSError:
        return None
    return os_from_release(text)


def os_from_release(text: str) -> str | None:
    """`ID=ubuntu` and `VERSION_ID="22.04"` -> `ubuntu22.04`; `debian` 12 -> `debian12`; `rhel` 8.9 -> `rhel8`."""
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip().strip("'\"")
    name = fields.get("ID", "").lower()
    version = re.split(r"[^\w-]", fields.get("VERSION_ID", ""))
    if not name or not _PART.fullmatch(name.replace("-", "_")):
        return None
    kept = ".".join(version[0:2]) if "ubuntu" in name else version[0]
    spelled = (name + kept).replace("-", "_")
    return spelled if _PART.fullmatch(spelled) else None
