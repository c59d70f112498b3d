"""The Spack commands users copy: installing one binary, adding a tag's mirror.

Shell-quoted, because the hash and tag come from documents nobody here controls
and the user pastes the result into a shell.
"""

from __future__ import annotations

import shlex
import urllib.parse

from cachetui.core.model import Document

PUBLIC_MIRROR = "https://binaries.spack.io"


def install_command(hash_: str) -> str:
    return f"spack install {shlex.quote('/' + hash_)}"


def public_mirror_url(tag: str) -> str:
    """The public cache's mirror of a tag, as its instructions give it for develop, develop-YYYY-MM-DD
    and vX.Y.Z alike (`spack mirror add v0.22.1 https://binaries.spack.io/v0.22.1`)."""
    return f"{PUBLIC_MIRROR}/{tag}"


def mirror_of(document: Document) -> tuple[str, str] | None:
    """(name, location) of the mirror a binary was loaded from; None when no one mirror holds it.

    A mirror index names its mirror; a site document lists a tag of the public cache. The
    location never carries credentials: Spack takes those from its own configuration.
    """
    if not document.from_mirror:
        return f"spack-build-cache-{document.tag}", public_mirror_url(document.tag)
    if "#" in document.path:  # read through an index of indexes that has no whole-tag index
        return None
    return document.tag, without_credentials(document.path)


def without_credentials(location: str) -> str:
    """`https://user:secret@host/x` -> `https://host/x`; anything else unchanged."""
    parts = urllib.parse.urlsplit(location)
    if not parts.scheme or "@" not in parts.netloc:
        return location
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def mirror_add_command(name: str, location: str) -> str:
    return f"spack mirror add {shlex.quote(name)} {shlex.quote(location)}"


TRUST_KEYS_COMMAND = "spack buildcache keys --install --trust"
