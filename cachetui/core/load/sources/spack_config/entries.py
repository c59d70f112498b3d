"""The mirrors of the merged configuration: each entry read as Spack reads it.

A mirror is a URL string or a dict with `url`, `fetch`/`push` (strings or dicts), `binary`,
`view` and `access_pair` (`{id | id_variable, secret_variable}`, or the older `[id, secret]`);
the pair of `push`, then `fetch`, is used as Spack does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from cachetui.core.load.sources.locator import is_oci
from cachetui.core.load.sources.oci import Credentials
from cachetui.core.load.sources.spack_config.credentials import access_pair
from cachetui.core.load.sources.spack_config.scopes import CONFIG, ScopeReader, home, spack_platform, spack_root
from cachetui.core.model.problems import Problem, Severity

READABLE = ("file", "http", "https", "s3", "oci", "oci+http")
KNOWN_SCHEMES = (*READABLE, "sftp", "ftp", "gs", "ssh", "scp")
_SIGNED_S3_KEYS = ("access_pair", "access_token", "access_token_variable", "profile", "endpoint_url")
_VIEW = re.compile(r"[\w.-]{1,128}")


@dataclass(frozen=True)
class ConfiguredMirror:
    name: str
    url: str  # the fetch URL, canonical: a path becomes file://
    binary: bool
    view: str | None = None
    credentials: Credentials | None = field(default=None, repr=False)
    signed_s3: bool = False  # carries keys only signed S3 requests use


@dataclass
class SpackConfiguration:
    mirrors: list[ConfiguredMirror]  # in Spack's order: the highest scope's first
    misc_cache: str
    files: list[str]  # read, lowest precedence first
    problems: list[Problem]


def read_configuration(environ: Mapping[str, str] | None = None) -> SpackConfiguration:
    """Every scope's mirrors and `config:misc_cache`, merged as Spack merges them."""
    env = os.environ if environ is None else environ
    reader = ScopeReader(env, spack_root(env), spack_platform())
    merged = reader.merged()
    mirrors = merged.get("mirrors")
    config = merged.get("config")
    misc = config.get("misc_cache") if isinstance(config, dict) else None
    user_cache = env.get("SPACK_USER_CACHE_PATH") or os.path.join(home(env), ".spack")
    default_misc = os.path.join(user_cache, "cache")
    misc_cache = reader.expand(misc, "") if isinstance(misc, str) and misc else default_misc
    found = [_mirror(str(name), entry, reader) for name, entry in (mirrors or {}).items()] \
        if isinstance(mirrors, dict) else []
    if mirrors is not None and not isinstance(mirrors, dict):
        reader.problem(CONFIG, "the merged 'mirrors' section is not a mapping of names to mirrors")
    return SpackConfiguration([m for m in found if m is not None], misc_cache, reader.files, reader.problems)


def _mirror(name: str, entry: object, reader: ScopeReader) -> ConfiguredMirror | None:
    where = f"Spack mirror {name!r}"
    if isinstance(entry, str):
        entry = {"url": entry}
    if not isinstance(entry, dict):
        reader.problem(CONFIG, f"{where} is neither a URL nor a mapping")
        return None
    fetch = entry.get("fetch")
    url = fetch if isinstance(fetch, str) else fetch.get("url") if isinstance(fetch, dict) else None
    url = url or entry.get("url")
    if not isinstance(url, str) or not url.strip():
        reader.problem(CONFIG, f"{where} has no url")
        return None
    view = fetch.get("view") if isinstance(fetch, dict) and fetch.get("view") else entry.get("view")
    if view is not None and not (isinstance(view, str) and _VIEW.fullmatch(view)):
        reader.problem(CONFIG, f"{where}: its view is not a plain name; the mirror's whole index is read",
                       Severity.WARNING)
        view = None
    binary = entry.get("binary", True) is not False
    directions = [d for d in (entry.get("push"), fetch) if isinstance(d, dict)]
    signed_s3 = any(key in part for part in (entry, *directions) for key in _SIGNED_S3_KEYS)
    url = _canonical(url.strip(), reader)
    credentials = access_pair(entry, name, url, reader) if binary and is_oci(url) else None  # only registries log in
    return ConfiguredMirror(name, url, binary, view, credentials, signed_s3)


def _canonical(url: str, reader: ScopeReader) -> str:
    """A URL with a known scheme as written; a path becomes `file://` (as Spack canonicalises it)."""
    scheme = url.partition("://")[0] if "://" in url else ""
    if scheme in KNOWN_SCHEMES:
        return url
    path = reader.expand(url, "")
    return "file://" + os.path.abspath(path)

