"""The Spack commands users copy: installing one binary, adding a tag's mirror.

Shell-quoted, because the hash and tag come from documents nobody here controls
and the user pastes the result into a shell.
"""

from __future__ import annotations

import shlex
import urllib.parse

from cachetui.core.model.corpus import Document
from cachetui.core.model.records import MirrorOrigin
from cachetui.core.spack.tags import PUBLIC_MIRROR


def install_command(hash_: str) -> str:
    return f"spack install {shlex.quote('/' + hash_)}"


def public_mirror_url(tag: str) -> str:
    """The public cache's mirror of a tag, for develop, develop-YYYY-MM-DD and vX.Y.Z alike
    (`spack mirror add spack-build-cache-v0.22.1 https://binaries.spack.io/v0.22.1`)."""
    return f"{PUBLIC_MIRROR}/{tag}"


def mirror_of(document: Document, origins: dict[str, MirrorOrigin]) -> MirrorOrigin | None:
    """The mirror a binary was loaded from; None when no one mirror holds it.

    A mirror's load records it (`origins`, by document path: a configured mirror under its
    name); else a mirror index names its mirror, and a site document lists a tag of the public
    cache. The location never carries credentials (Spack takes those from its own configuration);
    the origin says when some were left out, so the user knows to give Spack theirs.
    """
    found = origins.get(document.path)
    if found is not None:
        return _credentials_left_out(found)
    if not document.from_mirror:
        return MirrorOrigin(f"spack-build-cache-{document.tag}", public_mirror_url(document.tag), False)
    if "#" in document.path:  # read through an index of indexes that has no whole-tag index
        return None
    return _credentials_left_out(MirrorOrigin(document.tag, document.path, False))


def _credentials_left_out(origin: MirrorOrigin) -> MirrorOrigin:
    url = without_credentials(origin.url)
    return origin._replace(url=url, credentials_left_out=origin.credentials_left_out or url != origin.url)


def without_credentials(location: str) -> str:
    """`https://user:secret@host/x` -> `https://host/x`; anything else unchanged."""
    parts = urllib.parse.urlsplit(location)
    if not parts.scheme or "@" not in parts.netloc:
        return location
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def mirror_add_command(name: str, location: str) -> str:
    return f"spack mirror add {shlex.quote(name)} {shlex.quote(location)}"


TRUST_KEYS_COMMAND = "spack buildcache keys --install --trust"


def origin_commands(hash_: str, origin: MirrorOrigin | None) -> list[tuple[str, str]]:
    """(what, command) for a binary, in the order they are run: from a mirror the user's Spack already
    knows, it installs as it is; from any other, the mirror is added, under its name, from where it was
    loaded (said when its credentials were left out). Then the keys, before the install line: Spack checks
    a signed binary against the keys it trusts."""
    install = install_command(hash_)
    keys = ("key trust command", TRUST_KEYS_COMMAND)
    if origin is None:
        return [keys, ("install command", install)]
    if origin.configured:
        return [keys, (f"install command (Spack knows mirror {origin.name})", install)]
    add = f"add mirror {origin.name}" + (" (credentials left out of its URL)" if origin.credentials_left_out else "")
    return [(add, mirror_add_command(origin.name, origin.url)), keys, ("install command", install)]
