"""The Spack commands users copy: installing one binary, adding a tag's mirror.

Shell-quoted, because the hash and tag come from documents nobody here controls
and the user pastes the result into a shell.
"""

from __future__ import annotations

import shlex

MIRROR_ROOT = "https://binaries.spack.io"


def install_command(hash_: str) -> str:
    return f"spack install {shlex.quote('/' + hash_)}"


def mirror_url(tag: str) -> str:
    """As the public build-cache site shows it: develop at the root, every other tag under releases/."""
    return f"{MIRROR_ROOT}/{tag}" if tag == "develop" else f"{MIRROR_ROOT}/releases/{tag}"


def mirror_add_command(tag: str) -> str:
    return f"spack mirror add {shlex.quote('spack-build-cache-' + tag)} {shlex.quote(mirror_url(tag))}"


TRUST_KEYS_COMMAND = "spack buildcache keys --install --trust"
