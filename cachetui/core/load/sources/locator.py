"""What a location names, from its spelling alone: a mirror's root, one of its indexes, or an index of indexes.

Spack's layouts (`lib/spack/spack/binary_distribution.py`, `url_buildcache.py`):

- layout v3 (Spack >= 1.0): `v3/manifests/index/index.manifest.json` (a view's under
  `v3/manifests/index/<view>/`) names the index blob, `blobs/sha256/<first two>/<checksum>`;
- layout v2 (Spack <= 0.23): `build_cache/index.json`, its sha256 in `index.json.hash`;
- the public cache's index of indexes, `cache_spack_io_index.json`.

A file is recognised by its whole name (`my-index.json` is not an index), and a blob by the
whole of Spack's blob path (a `/blobs/` elsewhere in a location is not one). Some names leave
open whether a file is an index of indexes (saved under another name): only its content tells
(`content_decides`).
"""

from __future__ import annotations

import re
from enum import Enum

SPACK_MIRRORS = "spack-mirrors:"  # the input `--spack-mirrors` adds; `spack-mirrors:NAME` for one
OCI_PREFIXES = {"oci://": "https", "oci+http://": "http"}  # a registry's build cache, and the scheme it is read over
V3_MANIFEST = "v3/manifests/index/index.manifest.json"
V2_INDEX = "build_cache/index.json"
INDEX_OF_INDEXES = "cache_spack_io_index.json"
_MANIFEST_NAME = "index.manifest.json"
_V2_INDEX_NAME = "index.json"
_SHA256 = re.compile(r"[0-9a-f]{64}")  # as Spack writes a sha256: lowercase hex
_BLOB_PATH = r"blobs/sha256/[0-9a-f]{2}/(?P<checksum>[0-9a-f]{64})"
_BLOB = re.compile(f"/{_BLOB_PATH}$")
# What follows a mirror's root in the location of its index (a view's manifest is the view's own, kept).
_LAYOUT_TAIL = re.compile(f"/(?:{re.escape(V2_INDEX)}|{re.escape(V3_MANIFEST)}|{_BLOB_PATH})$")


class Named(Enum):
    """What a location names."""

    INDEX_OF_INDEXES = "index of indexes"
    MANIFEST = "v3 index manifest"
    V2_INDEX = "v2 index.json"
    BLOB = "index blob"
    ROOT = "mirror root"  # or a directory of site documents: only a look inside tells



def is_oci(text: str) -> bool:
    """An OCI registry's build cache (`oci://HOST/NAME`, `oci+http://HOST/NAME`), read by `oci`."""
    return text.startswith(tuple(OCI_PREFIXES))

def named(location: str) -> Named:
    bare = location.rstrip("/")
    name = bare.rpartition("/")[2]
    if name == INDEX_OF_INDEXES:
        return Named.INDEX_OF_INDEXES
    if name == _MANIFEST_NAME:
        return Named.MANIFEST
    if name == _V2_INDEX_NAME:
        return Named.V2_INDEX
    return Named.BLOB if blob_checksum(bare) is not None else Named.ROOT


def content_decides(location: str) -> bool:
    """Whether only a look inside tells an index of indexes from what the name says: an `index.json` that
    is not at Spack's layout path (`…/build_cache/index.json`), or another `.json` file."""
    bare = location.rstrip("/")
    kind = named(bare)
    return (kind is Named.V2_INDEX and mirror_root(bare) is None) or (kind is Named.ROOT and bare.endswith(".json"))


def is_sha256(text: str) -> bool:
    return _SHA256.fullmatch(text) is not None


def blob_checksum(location: str) -> str | None:
    """The sha256 a blob location names (its name is its checksum); None when it is not Spack's blob path."""
    match = _BLOB.search(location.rstrip("/"))
    return match.group("checksum") if match else None


def layout_root(location: str) -> str:
    """The location without the layout's path to an index (`…/develop/build_cache/index.json` -> `…/develop`)."""
    return _LAYOUT_TAIL.sub("", location.rstrip("/"))


def mirror_root(location: str) -> str | None:
    """The mirror an index named directly belongs to (what `spack mirror add` takes); None if it says not."""
    root = layout_root(location)
    return root if root != location.rstrip("/") else None


def manifest_root(location: str) -> str:
    """The mirror a v3 manifest belongs to (a view's too): where its blobs are."""
    bare = location.rstrip("/")
    root = bare[: -len(V3_MANIFEST)] if bare.endswith(V3_MANIFEST) else bare.rsplit("/v3/", 1)[0]
    return root.rstrip("/")


def store_root(location: str) -> str:
    """Where the binaries of the index at `location` are: the mirror's root (a view's manifest: its mirror's)."""
    bare = location.rstrip("/")
    return manifest_root(bare) if named(bare) is Named.MANIFEST else layout_root(bare)


def view_manifest(view: str) -> str:
    """The path of a view's manifest below its mirror's root."""
    return f"v3/manifests/index/{view}/{_MANIFEST_NAME}"
