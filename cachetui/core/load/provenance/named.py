"""Which binary a record is about: the root node of the spec it carries, against the binary it is filed under.

A signature vouches for the text it covers, not for the file name the mirror stores it under: zlib's
validly signed record copied over bzip2's still verifies. So a record counts only for the binary
whose hash, name and version its spec's root node gives (a specfile's first node is its root;
specfile v1's `{name: node}` is read too). The index and the record's path name the same binary,
since cachetui looks for the record under the name the index gives it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cachetui.core.spack.words import echo


@dataclass(frozen=True)
class Named:
    """The binary a spec names: its root's package, version and hash (empty when the node gives none)."""

    package: str
    version: str
    hash: str

    def __str__(self) -> str:  # the record's own words: cut, as every echo of others' text is
        return f"{echo(self.package)}@{echo(self.version) if self.version else '?'}/{self.hash[:7] or '?'}"


def named_by(text: bytes | None) -> Named | None:
    """The binary the spec JSON in `text` names; None when it holds no spec with a root node."""
    # Imported here: the browser's first frame imports provenance, and spack_node brings msgspec with it.
    from cachetui.core.load.sources.spack_node import unwrapped

    try:
        document = json.loads(text) if text is not None else None
    except (ValueError, RecursionError):
        return None
    spec = document.get("spec") if isinstance(document, dict) else None
    nodes = spec.get("nodes") if isinstance(spec, dict) else spec  # specfile v1: a list of {name: node}
    root = unwrapped(nodes[0]) if isinstance(nodes, list) and nodes else None
    if root is None:
        return None
    return Named(root["name"], _text(root.get("version")), _text(root.get("hash")))


def names_other(package: str, version: str, hash_: str, named: Named) -> bool:
    """Whether `named` is another binary than the one filed as package@version/hash (a version's `=` aside)."""
    return (named.hash != hash_ or named.package != package
            or named.version.removeprefix("=") != version.removeprefix("="))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
