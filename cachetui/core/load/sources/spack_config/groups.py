"""The binary mirrors of the user's Spack configuration as index groups, tagged by their names."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from cachetui.core.load.sources.indexes import IndexGroup, Member
from cachetui.core.load.sources.locator import is_oci, view_manifest
from cachetui.core.load.sources.mirror import Net, probe_manifest, probe_root
from cachetui.core.load.sources.oci import oci_group
from cachetui.core.load.sources.spack_config.credentials import registry_credentials
from cachetui.core.load.sources.spack_config.entries import READABLE, ConfiguredMirror, read_configuration
from cachetui.core.load.sources.spack_config.indices import SpackIndexCache
from cachetui.core.load.sources.transport import PUBLIC_BUCKET, join, public_url
from cachetui.core.model.problems import Problem, UnusableInput
from cachetui.core.model.records import MirrorOrigin
from cachetui.core.spack.words import counted


@dataclass(frozen=True)
class SpackMirrors:
    """The source `--spack-mirrors` names: every binary mirror of the configuration, or just these."""

    only: frozenset[str] = frozenset()


def configured_mirrors(name: str, environ: Mapping[str, str] | None = None) -> SpackMirrors:
    """`spack-mirrors:` or `spack-mirrors:NAME`, checked against the configuration (UnusableInput if unusable)."""
    config = read_configuration(environ)
    names = [m.name for m in config.mirrors]
    binary = [m.name for m in config.mirrors if m.binary]
    if name and name not in names:
        known = ", ".join(names[:20]) or "none"
        raise UnusableInput(f"no mirror named {name!r} in your Spack configuration (it has: {known})")
    if name and name not in binary:
        raise UnusableInput(f"Spack mirror {name!r} is a source mirror (binary: false): it has no build cache")
    if not binary:
        why = f"; {config.problems[0].path}: {config.problems[0].reason}" if config.problems else ""
        read = counted(len(config.files), "file")
        raise UnusableInput(f"your Spack configuration has no binary mirror (read {read}{why})")
    return SpackMirrors(frozenset({name}) if name else frozenset())


def binary_mirror_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """The names of the configuration's binary mirrors: what `--spack-mirrors` opens (none: it cannot open)."""
    return [m.name for m in read_configuration(environ).mirrors if m.binary]


def configured_groups(source: SpackMirrors, net: Net, environ: Mapping[str, str] | None = None
                      ) -> tuple[list[IndexGroup], list[Problem]]:
    """One index group per binary mirror, tagged by its name; source-only mirrors are never contacted."""
    config = read_configuration(environ)
    problems = list(config.problems)
    spack_cache = SpackIndexCache(os.path.join(config.misc_cache, "indices"), net)
    groups = []
    for mirror in config.mirrors:
        if (source.only and mirror.name not in source.only) or not mirror.binary:
            continue
        group = _group(mirror, config.mirrors, spack_cache, problems)
        if group is not None:
            groups.append(group)
    return groups, problems


def _group(mirror: ConfiguredMirror, every: list[ConfiguredMirror], spack_cache: SpackIndexCache,
           problems: list[Problem]) -> IndexGroup | None:
    name = mirror.name
    url = shown = without_userinfo(mirror.url)
    copies = spack_cache.copies_of(mirror.url, mirror.view)  # Spack keys its copies by the URL as configured
    if is_oci(url):
        credentials = mirror.credentials or registry_credentials(url, [(m.url, m.credentials) for m in every])
        try:
            return oci_group(mirror.url, name, credentials, configured=True, copies=copies)
        except ValueError as exc:
            problems.append(Problem(url, f"Spack mirror {name!r}: {exc}"))
            return None
    scheme = url.partition("://")[0] if "://" in url else "file"
    if scheme == "s3" and (mirror.signed_s3 or url.removeprefix("s3://").split("/")[0] != PUBLIC_BUCKET):
        problems.append(Problem(url, f"Spack mirror {name!r}: a private S3 bucket (signed requests) is not "
                                     f"supported; only s3://{PUBLIC_BUCKET} is read, through its https front"))
        return None
    if scheme not in READABLE:
        problems.append(Problem(url, f"Spack mirror {name!r}: {scheme}:// mirrors are not supported; not read"))
        return None
    root = public_url(mirror.url).rstrip("/")  # fetched as configured; shown without a user:password
    index = join(root, view_manifest(mirror.view)) if mirror.view else root
    locate = partial(probe_manifest if mirror.view else probe_root, index)
    key = without_userinfo(index)
    origin = without_userinfo(root) + (f" (view {mirror.view})" if mirror.view else "")
    # An s3:// mirror is read over https, and dated from its bucket's listing as one named on the command line is.
    listing = mirror.url if scheme == "s3" else None
    return IndexGroup(origin, name, [Member(None, key, locate, copies)], MirrorOrigin(name, shown, True),
                      listing=listing)


def without_userinfo(url: str) -> str:
    """`https://user:secret@host/x` -> `https://host/x`: where a mirror is may be shown, its credentials never."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"
