"""Every kind of input, recognised from what the user typed, and turned into the same records.

- site documents: files and directories of `_cache/<tag>/<package>/specs.md` listings;
- a Spack mirror: its root as a directory, `file://`, `http(s)://` or `s3://spack-binaries/…`
  URL (layout v3 or v2), or one of its indexes named directly (`index.json`,
  `index.manifest.json`, a `blobs/sha256/…` index blob);
- an index of indexes, `{tag: [{label, url}]}` (path or URL): one tag per ref, one stack per
  label; known by its name `cache_spack_io_index.json`, or by its content whatever the file is
  called (a local file is looked into at once; a URL's `…/x.json` or `…/index.json` without an
  `index.json.hash`, when it is loaded: `MaybeIndexOfIndexes`);
- an OCI registry's build cache, `oci://HOST/NAME` or `oci+http://HOST/NAME` (see `oci`);
- the binary mirrors of the user's own Spack configuration, `spack-mirrors:` (all) or
  `spack-mirrors:NAME` (see `spack_config`; what `--spack-mirrors` and `--spack-mirror` add).

`NAME=SOURCE` names the tag of a mirror or index (for an index of indexes: the only ref to
read; site documents carry their own tags, and a NAME given them is warned about); otherwise a
mirror's tag is the last component of its location, and mirrors whose locations end alike get
`-2`, `-3` (`distinct_tags`). Whatever the kind, each yields `ParsedDocument`s (one per package
and tag), so the model, facets, queries, CLI and app do not care where a spec came from.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeAlias

from cachetui.core.load.sources.locator import (
    INDEX_OF_INDEXES,
    SPACK_MIRRORS,
    V2_INDEX,
    V3_MANIFEST,
    Named,
    content_decides,
    is_oci,
    mirror_root,
    named,
)
from cachetui.core.load.sources.redact import redact, remember
from cachetui.core.load.sources.regular_file import open_regular
from cachetui.core.load.sources.transport import FetchError, is_url, local_path, public_url
from cachetui.core.model.problems import PathNotFound, Problem, Severity, UnusableInput
from cachetui.core.spack.tags import PUBLIC_MIRROR

# The readers (indexes, mirrors, registries, Spack's configuration) are imported where a source needs them: the
# browser's command line recognises site documents before its first frame without them.
if TYPE_CHECKING:
    from cachetui.core.load.sources.indexes import IndexGroup
    from cachetui.core.load.sources.spack_config import SpackMirrors

PUBLIC_INDEX_OF_INDEXES = f"{PUBLIC_MIRROR}/{INDEX_OF_INDEXES}"
__all__ = ["PathNotFound", "SPACK_MIRRORS", "distinct_tags", "identity", "ignored_name", "local_input",
           "local_location", "recognise", "public_sources", "source_label", "spack_mirror_inputs"]
_NAMED = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9_.+-]*)=(?P<source>.+)")


@dataclass(frozen=True)
class SiteDocuments:
    path: str


@dataclass(frozen=True)
class IndexOfIndexes:
    location: str
    only: frozenset[str] = frozenset()  # refs to read; empty: all


@dataclass(frozen=True)
class MaybeIndexOfIndexes:
    """A URL whose name does not say what it is (`…/x.json`, `…/index.json`): an index of indexes if its
    content is one, else `otherwise`, what its name says. Only reading it tells, so the load decides."""

    location: str
    only: frozenset[str]
    otherwise: IndexGroup


if TYPE_CHECKING:
    Source: TypeAlias = SiteDocuments | IndexGroup | IndexOfIndexes | MaybeIndexOfIndexes | SpackMirrors


def recognise(typed: str) -> Source:
    """The source `typed` names. Raises PathNotFound for a local path that does not exist."""
    if typed.startswith(SPACK_MIRRORS):
        from cachetui.core.load.sources.spack_config import configured_mirrors

        return configured_mirrors(typed.removeprefix(SPACK_MIRRORS))
    name, text = _split_name(typed)
    if is_oci(text):
        from cachetui.core.load.sources.oci import oci_group

        try:
            return replace(oci_group(text, name), named=name is not None)
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
    only = frozenset({name}) if name else frozenset()
    if kind is Named.INDEX_OF_INDEXES or (path is not None and _local_index_of_indexes(path, kind)):
        return IndexOfIndexes(location, only)
    if kind is Named.ROOT and path is not None and not _is_mirror_directory(path):
        return SiteDocuments(location)
    from cachetui.core.load.sources.indexes import IndexGroup, Member, group_tag
    from cachetui.core.load.sources.mirror import finder
    from cachetui.core.model.records import MirrorOrigin

    if kind is not Named.ROOT:
        group = _index_named(location, name)
    else:
        root = location.rstrip("/")
        tag = name or group_tag(root)
        group = IndexGroup(root, tag, [Member(None, root, finder(root))], MirrorOrigin(tag, root, False),
                           named=name is not None)
    if text[:5].lower() == "s3://":  # read over https, but its bucket's listing is asked for push dates
        group = replace(group, listing=text)
    if path is None and content_decides(location):
        return MaybeIndexOfIndexes(location, only, group)
    return group


def identity(source: Source) -> str:
    """What a source is, whatever it was called: one location, however it was spelled or labelled."""
    if isinstance(source, SiteDocuments):
        return "site:" + os.path.realpath(source.path)
    if isinstance(source, MaybeIndexOfIndexes):
        return identity(source.otherwise)
    from cachetui.core.load.sources.indexes import IndexGroup, root_location

    if isinstance(source, IndexOfIndexes):
        return "indexes:" + root_location(source.location) + "#" + ",".join(sorted(source.only))
    if isinstance(source, IndexGroup):
        return "group:" + ",".join(sorted(root_location(member.key) for member in source.members))
    return "spack-mirrors:" + ",".join(sorted(source.only))  # the user's Spack's mirrors


def ignored_name(typed: str, source: Source) -> Problem | None:
    """`NAME=` given to site documents, whose tags are the ones their documents carry: said, not ignored silently."""
    name = _split_name(typed)[0]
    if name is None or not isinstance(source, SiteDocuments):
        return None
    return Problem(source.path, f"site documents carry their own tags: {name}= does not set their tag",
                   Severity.WARNING)


def distinct_tags(sources: list[Source]) -> tuple[list[Source], list[Problem]]:
    """Mirrors whose tags come from their locations' last parts (`https://a.example/x/build_cache` and
    `https://b.example/y/build_cache`, `/p/mirror` and `/q/mirror`) would read as one snapshot: the first
    keeps the tag, the next are `-2`, `-3` (as `serve` labels its sources), each said in a warning.

    A tag given with NAME=SOURCE is the user's: kept as given, and never given to another mirror.
    """
    groups = [_group_of(source) for source in sources]
    holders = {group.tag: group.origin for group in groups if group is not None and group.named}  # tag -> mirror
    renamed: list[Source] = []
    problems: list[Problem] = []
    for source, group in zip(sources, groups):
        if group is None or group.named or group.tag not in holders:
            if group is not None:
                holders.setdefault(group.tag, group.origin)
            renamed.append(source)
            continue
        tag, n = group.tag, 1
        while tag in holders:
            n += 1
            tag = f"{group.tag}-{n}"
        holders[tag] = group.origin
        problems.append(Problem(group.origin, f"tag {group.tag!r} is already {redact(holders[group.tag])}'s: "
                                              f"this mirror is loaded as tag {tag!r} (NAME=SOURCE names it)",
                                Severity.WARNING))
        renamed.append(_retagged(source, group, tag))
    return renamed, problems


def _group_of(source: Source) -> IndexGroup | None:
    if isinstance(source, SiteDocuments | IndexOfIndexes):
        return None
    from cachetui.core.load.sources.indexes import IndexGroup

    if isinstance(source, IndexGroup):
        return source
    return source.otherwise if isinstance(source, MaybeIndexOfIndexes) else None


def _retagged(source: Source, group: IndexGroup, tag: str) -> Source:
    provenance = group.provenance
    if provenance is not None and provenance.name == group.tag:  # `spack mirror add` under the tag it is loaded as
        provenance = provenance._replace(name=tag)
    retagged = replace(group, tag=tag, provenance=provenance)
    return replace(source, otherwise=retagged) if isinstance(source, MaybeIndexOfIndexes) else retagged


def local_input(typed: str) -> str | None:
    """The file-system path an input names (after any `NAME=`, a `file://` URL decoded); None for the network."""
    return None if typed.startswith(SPACK_MIRRORS) else local_location(_split_name(typed)[1])


def local_location(location: str) -> str | None:
    """The file-system path of a location (a path or `file://` URL); None for one on the network or a registry."""
    return None if is_oci(location) else local_path(location)


def source_label(typed: str) -> str:
    """What an input is called: `NAME=…` is NAME; else the last part of its location."""
    if typed.startswith(SPACK_MIRRORS):
        return typed.removeprefix(SPACK_MIRRORS) or "spack-mirrors"
    name, text = _split_name(typed)
    if name is not None:
        return name
    if is_oci(text):
        return text.rstrip("/").rpartition("/")[2] or "oci"
    from cachetui.core.load.sources.indexes import group_tag

    return group_tag(text)


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
    from cachetui.core.load.sources.indexes import IndexGroup, Member, group_tag
    from cachetui.core.load.sources.mirror import finder
    from cachetui.core.model.records import MirrorOrigin

    bare = location.rstrip("/")
    tag = name or group_tag(bare)
    root = mirror_root(bare)  # what `spack mirror add` takes: the mirror, not its index
    origin = MirrorOrigin(tag, root, False) if root is not None else None
    return IndexGroup(bare, tag, [Member(None, bare, finder(bare))], origin, named=name is not None)


def _local_index_of_indexes(path: str, kind: Named) -> bool:
    """A local file that is an index of indexes by its content, whatever its name: a JSON object (a site
    document starts with `---`), or an `index.json` off Spack's layout path with no `index.json.hash`
    beside it. Reading a local file is cheap, so it is looked into at once."""
    if kind is Named.V2_INDEX:
        if not content_decides(path) or os.path.isfile(path + ".hash"):
            return False
    elif kind is not Named.ROOT:
        return False
    try:
        handle, info = open_regular(path)  # never a FIFO: opening one would wait for a writer
        with handle:
            head = handle.read(256)  # a document (`---`) is told at once, without reading it
            if head.lstrip()[:1] != b"{":
                return False
            from cachetui.core.load.sources.indexes import INDEX_OF_INDEXES_MAX, is_index_of_indexes

            if info.st_size > INDEX_OF_INDEXES_MAX:
                return False
            data = head + handle.read(INDEX_OF_INDEXES_MAX)
    except OSError:
        return False  # what is wrong with it is said when it is read as what its name says
    return is_index_of_indexes(data)


def _is_site_documents(path: str) -> bool:
    return named(path) is Named.ROOT and not _is_mirror_directory(path)


def _is_mirror_directory(path: str) -> bool:
    return os.path.isdir(path) and (
        os.path.isfile(os.path.join(path, V3_MANIFEST)) or os.path.isfile(os.path.join(path, V2_INDEX))
    )
