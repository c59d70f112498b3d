"""The Spack commands users copy: installing one binary, adding a tag's mirror.

Shell-quoted, because the hash and tag come from documents nobody here controls
and the user pastes the result into a shell.
"""

from __future__ import annotations

import shlex

from cachetui.core.records import MirrorOrigin

MIRROR_ROOT = "https://binaries.spack.io"


def install_command(hash_: str) -> str:
    return f"spack install {shlex.quote('/' + hash_)}"


def mirror_url(tag: str) -> str:
    """As the public build-cache site shows it: develop at the root, every other tag under releases/."""
    return f"{MIRROR_ROOT}/{tag}" if tag == "develop" else f"{MIRROR_ROOT}/releases/{tag}"


def mirror_add_command(tag: str) -> str:
    return f"spack mirror add {shlex.quote('spack-build-cache-' + tag)} {shlex.quote(mirror_url(tag))}"


TRUST_KEYS_COMMAND = "spack buildcache keys --install --trust"


def mirror_add_url_command(name: str, url: str) -> str:
    """`spack mirror add NAME URL` for a mirror named by where it was loaded from."""
    return f"spack mirror add {shlex.quote(name)} {shlex.quote(url)}"


def origin_commands(hash_: str, origin: MirrorOrigin) -> list[tuple[str, str]]:
    """(what, command) for a binary of a mirror: one the user's Spack already knows installs as it is;
    any other is added, under its tag, from the location it was loaded from, and then installed."""
    install = install_command(hash_)
    if origin.configured:
        return [(f"install command (Spack knows mirror {origin.name})", install)]
    return [(f"add mirror {origin.name}", mirror_add_url_command(origin.name, origin.url)), ("install command", install)]
