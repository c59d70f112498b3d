"""Every kind of input, recognised from what the user typed, and turned into the same records.

- site documents: files and directories of `_cache/<tag>/<package>/specs.md` listings;
- a Spack mirror: its root as a directory, `file://`, `http(s)://` or `s3://spack-binaries/…`
  URL (layout v3 or v2), or one of its indexes named directly (`index.json`,
  `index.manifest.json`, a `blobs/sha256/…` index blob);
- the index of indexes `cache_spack_io_index.json` (path or URL): one tag per ref, one
  stack per label;
- an OCI registry's build cache, `oci://HOST/NAME` or `oci+http://HOST/NAME` (see `oci`);
- the binary mirrors of the user's own Spack configuration, `spack-mirrors:` (all) or
  `spack-mirrors:NAME` (see `spack_config`; what `--spack-mirrors` and `--spack-mirror` add).

`NAME=SOURCE` names the tag of a mirror or index (for an index of indexes: the only ref to
read); otherwise a mirror's tag is the last component of its location. Whatever the kind,
each yields `ParsedDocument`s (one per package and tag), so the model, facets, queries, CLI
and app do not care where a spec came from.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from cachetui.core.load.sources.indexes import IndexGroup, Member, group_tag, root_location
from cachetui.core.load.sources.locator import INDEX_OF_INDEXES, V2_INDEX, V3_MANIFEST, Named, mirror_root, named
from cachetui.core.load.sources.mirror import finder
from cachetui.core.load.sources.oci import is_oci, oci_group
from cachetui.core.load.sources.redact import remember
from cachetui.core.load.sources.spack_config import SPACK_MIRRORS, SpackMirrors, configured_mirrors
from cachetui.core.load.sources.transport import FetchError, is_url, local_path, public_url
from cachetui.core.model.problems import PathNotFound, UnusableInput
from cachetui.core.model.records import MirrorOrigin

PUBLIC_INDEX_OF_INDEXES = f"https://binaries.spack.io/{INDEX_OF_INDEXES}"
__all__ = ["PathNotFound", "SPACK_MIRRORS", "Source", "identity", "recognise", "public_sources", "spack_mirror_inputs"]
_NAMED = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.+-]*)=(?P<source>.+)")


@dataclass(frozen=True)
class SiteDocuments:
    path: str


@dataclass(frozen=True)
class IndexOfIndexes:
    location: str
    only: frozenset[str] = frozenset()  # refs to read; empty: all


Source = SiteDocuments | IndexGroup | IndexOfIndexes | SpackMirrors


def recognise(typed: str) -> Source:
    """The source `typed` names. Raises PathNotFound for a local path that does not exist."""
    if typed.startswith(SPACK_MIRRORS):
        return configured_mirrors(typed.removeprefix(SPACK_MIRRORS))
    name, text = _split_name(typed)
    if is_oci(text):
        try:
            return oci_group(text, name)
        except ValueError as exc:
            raise UnusableInput(str(exc)) from None
    try:
        location = remember(public_url(text)) if is_url(text) else text  # a password is kept, never shown
    except FetchError as exc:
        raise UnusableInput(str(exc)) from None
    path = local_path(location)
    if path is not None and not os.path.lexists(path):
        raise PathNotFound(text)
    if path is not None and not is_url(location) and not _is_site_documents(path):
        location = os.path.abspath(location)  # one identity per mirror or index, whatever the working directory
    kind = named(location)
    if kind is Named.INDEX_OF_INDEXES:
        return IndexOfIndexes(location, frozenset({name}) if name else frozenset())
    if kind is not Named.ROOT:
        return _index_named(location, name)
    if path is None or _is_mirror_directory(path):
        root = location.rstrip("/")
        tag = name or group_tag(root)
        return IndexGroup(root, tag, [Member(None, root, finder(root))], MirrorOrigin(tag, root, False))
    return SiteDocuments(location)


def identity(source: Source) -> str:
    """What a source is, whatever it was called: one location, however it was spelled or labelled."""
    if isinstance(source, SiteDocuments):
        return "site:" + os.path.realpath(source.path)
    if isinstance(source, IndexOfIndexes):
        return "indexes:" + root_location(source.location) + "#" + ",".join(sorted(source.only))
    if isinstance(source, SpackMirrors):
        return "spack-mirrors:" + ",".join(sorted(source.only))
    return "group:" + ",".join(sorted(root_location(member.key) for member in source.members))


def local_input(typed: str) -> str | None:
    """The file-system path an input names (after any `NAME=`, a `file://` URL decoded); None for the network."""
    text = _split_name(typed)[1]
    return None if is_oci(text) or typed.startswith(SPACK_MIRRORS) else local_path(text)


def spack_mirror_inputs(every: bool, names: list[str]) -> list[str]:
    """What `--spack-mirrors` and `--spack-mirror NAME` open: the binary mirrors the user's Spack knows."""
    return ([SPACK_MIRRORS] if every else []) + [SPACK_MIRRORS + name for name in names]


def public_sources(tag: str | None) -> list[str]:
    """What `--public [TAG]` opens: the public cache's index of indexes, or one tag of it."""
    return [f"{tag}={PUBLIC_INDEX_OF_INDEXES}" if tag else PUBLIC_INDEX_OF_INDEXES]


def _split_name(typed: str) -> tuple[str | None, str]:
    """`develop=https://…` -> ("develop", "https://…"), unless `typed` is itself an existing path."""
    match = _NAMED.fullmatch(typed)
    if match is None or os.path.lexists(typed):
        return None, typed
    return match.group("name"), match.group("source")


def _index_named(location: str, name: str | None) -> IndexGroup:
    """An index named directly: a v2 `index.json`, a v3 `index.manifest.json`, or an index blob."""
    bare = location.rstrip("/")
    tag = name or group_tag(bare)
    root = mirror_root(bare)  # what `spack mirror add` takes: the mirror, not its index
    origin = MirrorOrigin(tag, root, False) if root is not None else None
    return IndexGroup(bare, tag, [Member(None, bare, finder(bare))], origin)


def _is_site_documents(path: str) -> bool:
    return named(path) is Named.ROOT and not _is_mirror_directory(path)


def _is_mirror_directory(path: str) -> bool:
    return os.path.isdir(path) and (
        os.path.isfile(os.path.join(path, V3_MANIFEST)) or os.path.isfile(os.path.join(path, V2_INDEX))
    )
