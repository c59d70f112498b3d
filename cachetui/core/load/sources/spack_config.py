"""The mirrors the user's Spack already knows: its configuration read as Spack 1.x merges it.

Scopes, lowest precedence first (`lib/spack/docs/configuration.rst`, `etc/spack/include.yaml`):

- defaults: `$SPACK_ROOT/etc/spack/defaults`, then its `base/` and `<platform>/`;
- system: `$SPACK_SYSTEM_CONFIG_PATH` or `/etc/spack`;
- site: `$SPACK_ROOT/etc/spack/site`;
- user: `$SPACK_USER_CONFIG_PATH` or `~/.spack`;
- spack: `$SPACK_ROOT/etc/spack`;
- the active environment's `spack.yaml` (`$SPACK_ENV`).

`SPACK_DISABLE_LOCAL_CONFIG` drops user and system. Every scope directory also reads its
`<platform>/` subfolder above it (0.x kept one per scope), and `include:` entries (in
`include.yaml`, or under `spack:` in an environment) that name local files or directories,
below the scope that includes them (earlier entries above later ones). `$SPACK_ROOT` comes
from the environment, else from a `spack` found on PATH (resolved through symlinks, never run).

Merging is Spack's `merge_yaml`: a higher scope's keys come first and win, dictionaries
merge, lists prepend, a key written `name::` replaces everything below it. A mirror is a
URL string or a dict with `url`, `fetch`/`push` (strings or dicts), `binary`, `view` and
`access_pair` (`{id | id_variable, secret_variable}`, or the older `[id, secret]`); the
pair of `push`, then `fetch`, is used as Spack does. Nothing is written, nothing is run,
and a secret is never put in any message.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from cachetui.core.load.sources.indexes import IndexGroup, Member
from cachetui.core.load.sources.mirror import MAX_INDEX_BYTES, IndexRef, Net, OfflineCopy, probe_manifest, probe_root
from cachetui.core.load.sources.oci import Credentials, is_oci, oci_group, parse_reference
from cachetui.core.load.sources.transport import PUBLIC_BUCKET, join, public_url
from cachetui.core.model.problems import Problem, Severity, UnusableInput
from cachetui.core.model.records import MirrorOrigin

SPACK_MIRRORS = "spack-mirrors:"  # the input `--spack-mirrors` adds; `spack-mirrors:NAME` for one
CONFIG = "Spack configuration"  # where a problem of the merged configuration is said to be
MAX_CONFIG_BYTES = 1 << 20
MAX_CONTENTS_BYTES = 16 << 20
MAX_INCLUDE_DEPTH = 8
READABLE = ("file", "http", "https", "s3", "oci", "oci+http")
KNOWN_SCHEMES = (*READABLE, "sftp", "ftp", "gs", "ssh", "scp")
_SIGNED_S3_KEYS = ("access_pair", "access_token", "access_token_variable", "profile", "endpoint_url")
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_VIEW = re.compile(r"[\w.-]{1,128}")
_WHEN = re.compile(r"""\s*["'](?P<var>\w+)["']\s+(?P<op>not\s+in|in)\s+env\s*"""
                   r"""|\s*platform\s*(?P<cmp>==|!=)\s*["'](?P<platform>\w+)["']\s*""")


@dataclass(frozen=True)
class SpackMirrors:
    """The source `--spack-mirrors` names: every binary mirror of the configuration, or just these."""

    only: frozenset[str] = frozenset()


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


# -- recognising, then loading --------------------------------------------------------------------------


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
        raise UnusableInput(f"your Spack configuration has no binary mirror (read {len(config.files)} files{why})")
    return SpackMirrors(frozenset({name}) if name else frozenset())


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
        try:
            return oci_group(mirror.url, name, mirror.credentials or _registry_credentials(url, every),
                             configured=True, copies=copies)
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
    if mirror.view:
        manifest = join(root, "v3/manifests/index", mirror.view, "index.manifest.json")
        key = without_userinfo(manifest)
        locate: Callable[[Net], IndexRef] = lambda net: probe_manifest(manifest, net)  # noqa: E731
    else:
        key = without_userinfo(root)
        locate = lambda net: probe_root(root, net)  # noqa: E731
    origin = without_userinfo(root) + (f" (view {mirror.view})" if mirror.view else "")
    return IndexGroup(origin, name, [Member(None, key, locate, copies)], MirrorOrigin(name, shown, True))


def without_userinfo(url: str) -> str:
    """`https://user:secret@host/x` -> `https://host/x`: where a mirror is may be shown, its credentials never."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"


def _registry_credentials(url: str, every: list[ConfiguredMirror]) -> Credentials | None:
    """As Spack does: the first configured mirror on the same registry that has credentials."""
    try:
        domain = parse_reference(url).domain
    except ValueError:
        return None
    for other in every:
        if other.credentials is not None and is_oci(other.url):
            try:
                if parse_reference(other.url).domain == domain:
                    return other.credentials
            except ValueError:
                continue
    return None


# -- Spack's own copies of mirror indexes ------------------------------------------------------------------


class SpackIndexCache:
    """`<misc_cache>/indices`: `contents.json` maps `<url>__v<layout>[__<view>]` to a downloaded index.

    Read only, and only when a mirror cannot be reached; a copy is used only if its bytes still
    have the sha256 Spack recorded for them.
    """

    def __init__(self, directory: str, net: Net) -> None:
        self.directory = directory
        self.net = net

    def copies_of(self, url: str, view: str | None) -> Callable[[], list[OfflineCopy]]:
        return lambda: self._copies(url, view)

    def _copies(self, url: str, view: str | None) -> list[OfflineCopy]:
        """Spack's newest copy for this URL whose bytes still verify (one index in memory at a time)."""
        contents = self._contents()
        layout_of = (lambda _: "oci") if is_oci(url) else (lambda layout: layout)
        candidates = []
        for base in dict.fromkeys((url, url.rstrip("/"), url.rstrip("/") + "/")):
            for layout in ("v3", "v2"):
                candidates.append((f"{base}__v{layout[1:]}" + (f"__{view}" if view else ""), layout_of(layout)))
            if not view:  # Spack 0.x keyed by the bare URL, and kept only v2
                candidates.append((base, layout_of("v2")))
        found = []
        for key, layout in candidates:
            entry = self._entry(contents.get(key))
            if entry is not None:
                found.append((*entry, layout))
        for path, checksum, layout in sorted(found, key=lambda f: _mtime(f[0]), reverse=True):
            copy = self._copy(path, checksum, layout)
            if copy is not None:
                return [copy]
        return []

    def _contents(self) -> dict[str, Any]:
        data = _read_capped(os.path.join(self.directory, "contents.json"), MAX_CONTENTS_BYTES)
        if data is None:
            return {}
        try:
            contents = json.loads(data)
        except (ValueError, RecursionError):
            self._warn("contents.json", "not valid JSON; Spack's copies of mirror indexes are not used")
            return {}
        return contents if isinstance(contents, dict) else {}

    def _entry(self, entry: object) -> tuple[str, str] | None:
        """A `contents.json` entry -> (its file, only ever in this directory; the sha256 Spack recorded)."""
        if not isinstance(entry, dict):
            return None
        checksum, name = entry.get("index_hash"), entry.get("index_path")
        if not isinstance(checksum, str) or not isinstance(name, str) or not re.fullmatch(r"[0-9a-f]{64}", checksum):
            return None
        return os.path.join(self.directory, os.path.basename(name)), checksum

    def _copy(self, path: str, checksum: str, layout: str) -> OfflineCopy | None:
        saved_at = _mtime(path)  # before reading: a copy replaced meanwhile is never dated newer than it is
        data = _read_capped(path, MAX_INDEX_BYTES)
        if data is None:
            return None
        if hashlib.sha256(data).hexdigest() != checksum:
            self._warn(os.path.basename(path), f"does not have the sha256 Spack recorded for it ({checksum}); "
                                               "not used")
            return None
        return OfflineCopy(data, checksum, saved_at, layout, f"Spack's cache ({self.directory})")

    def _warn(self, name: str, reason: str) -> None:
        self.net.problems.append(Problem(os.path.join(self.directory, name), reason, Severity.WARNING))


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _read_capped(path: str, limit: int) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


# -- reading the configuration -----------------------------------------------------------------------------


def spack_root(environ: Mapping[str, str]) -> str | None:
    """`$SPACK_ROOT`, else the prefix of a `spack` found on PATH (its symlinks resolved; never run)."""
    root = environ.get("SPACK_ROOT")
    if root:
        return root
    search = environ.get("PATH")
    found = shutil.which("spack", path=search) if search else None  # an empty PATH would search the cwd
    if found is None:
        return None
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(found)))
    return prefix if os.path.isdir(os.path.join(prefix, "etc", "spack")) else None


def spack_platform() -> str:
    """Spack's name for this platform (the subfolder of a scope)."""
    if sys.platform.startswith("linux"):
        return "linux"
    if sys.platform.startswith("freebsd"):
        return "freebsd"
    return {"darwin": "darwin", "win32": "windows"}.get(sys.platform, sys.platform)


def read_configuration(environ: Mapping[str, str] | None = None) -> SpackConfiguration:
    """Every scope's mirrors and `config:misc_cache`, merged as Spack merges them."""
    env = os.environ if environ is None else environ
    reader = _Reader(env, spack_root(env), spack_platform())
    for directory in reader.builtin_scopes():
        reader.scope(directory)
    active = env.get("SPACK_ENV")
    if active:
        reader.environment(active)
    merged: dict[str, Any] = {}
    for layer in reader.layers:
        try:
            merged = _merge(merged, layer)
        except RecursionError:
            reader.problem(CONFIG, "a section is nested too deeply to merge; that scope is not read")
    mirrors = merged.get("mirrors")
    config = merged.get("config")
    misc = config.get("misc_cache") if isinstance(config, dict) else None
    user_cache = env.get("SPACK_USER_CACHE_PATH") or os.path.join(_home(env), ".spack")
    default_misc = os.path.join(user_cache, "cache")
    misc_cache = reader.expand(misc, "") if isinstance(misc, str) and misc else default_misc
    found = [_mirror(str(name), entry, reader) for name, entry in (mirrors or {}).items()] \
        if isinstance(mirrors, dict) else []
    if mirrors is not None and not isinstance(mirrors, dict):
        reader.problem(CONFIG, "the merged 'mirrors' section is not a mapping of names to mirrors")
    return SpackConfiguration([m for m in found if m is not None], misc_cache, reader.files, reader.problems)


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


class _Reader:
    """Reads scopes into layers (lowest first), following local includes; every problem is a record."""

    def __init__(self, env: Mapping[str, str], root: str | None, platform: str) -> None:
        self.env, self.root, self.platform = env, root, platform
        self.layers: list[dict[str, Any]] = []
        self.files: list[str] = []
        self.problems: list[Problem] = []
        self._seen: set[str] = set()
        self._scopes: set[str] = set()
        self._warned: set[tuple[str, str]] = set()

    def builtin_scopes(self) -> list[str]:
        env, root = self.env, self.root
        local = "SPACK_DISABLE_LOCAL_CONFIG" not in env
        etc = os.path.join(root, "etc", "spack") if root else None
        scopes = []
        if etc:
            defaults = os.path.join(etc, "defaults")
            scopes += [os.path.join(defaults, "base"), defaults]  # 1.x: base, below <platform>/ (read after defaults)
        if local:
            scopes.append(env.get("SPACK_SYSTEM_CONFIG_PATH") or "/etc/spack")
        if etc:
            scopes.append(os.path.join(etc, "site"))
        if local:
            scopes.append(env.get("SPACK_USER_CONFIG_PATH") or os.path.join(_home(env), ".spack"))
        if etc:
            scopes.append(etc)
        self._scopes = {os.path.realpath(s) for s in scopes}
        self._scopes |= {os.path.realpath(os.path.join(s, self.platform)) for s in scopes}
        return scopes

    def problem(self, path: str, reason: str, severity: Severity = Severity.ERROR) -> None:
        if (path, reason) not in self._warned:
            self._warned.add((path, reason))
            self.problems.append(Problem(path, reason, severity))

    def expand(self, text: str, here: str) -> str:
        """Spack's path variables ($spack, $user_cache_path, $env, $platform...), environment variables, ~."""
        known = {"spack": self.root or "", "platform": self.platform, "env": self.env.get("SPACK_ENV", ""),
                 "user": self.env.get("USER", ""),
                 "user_cache_path": self.env.get("SPACK_USER_CACHE_PATH") or os.path.join(_home(self.env), ".spack")}

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name in known and known[name]:
                return known[name]
            return self.env.get(name, match.group(0))

        expanded = _VARIABLE.sub(value, text)
        if expanded.startswith("~"):
            expanded = _home(self.env) + expanded[1:]
        return os.path.normpath(os.path.join(here, expanded)) if here and not os.path.isabs(expanded) else expanded

    # -- scopes and files ----------------------------------------------------------------------------------

    def scope(self, directory: str, depth: int = 0) -> None:
        """A scope directory: its includes below it, its files, then its platform subfolder above it."""
        real = os.path.realpath(directory)
        if real in self._seen or not os.path.isdir(directory):
            return
        self._seen.add(real)
        include = self._load(os.path.join(directory, "include.yaml"))
        if include is not None:
            self._includes(include.get("include"), directory, depth)
        for name in ("mirrors.yaml", "config.yaml"):
            path = os.path.join(directory, name)
            data = self._load(path)
            if data is not None:
                self.layers.append(self._sections(data, path))
        self.scope(os.path.join(directory, self.platform), depth)

    def environment(self, directory: str) -> None:
        """The active environment: its `spack.yaml`, with its includes below it."""
        path = directory if directory.endswith((".yaml", ".yml")) else os.path.join(directory, "spack.yaml")
        data = self._load(path)
        if data is None:
            if not os.path.exists(path):
                self.problem(path, "SPACK_ENV names an environment without a spack.yaml", Severity.WARNING)
            return
        body = next((v for k, v in data.items() if _bare(k) in ("spack", "env")), None)
        if not isinstance(body, dict):
            self.problem(path, "no top-level 'spack:' section")
            return
        self._includes(body.get("include"), os.path.dirname(path), 0)
        self.layers.append(self._sections(body, path))

    def _includes(self, entries: object, here: str, depth: int) -> None:
        """Included paths, lowest first: earlier entries take precedence over later ones."""
        if entries is None:
            return
        if not isinstance(entries, list):
            self.problem(here, "'include:' is not a list")
            return
        if depth >= MAX_INCLUDE_DEPTH:
            self.problem(here, f"includes nested deeper than {MAX_INCLUDE_DEPTH}; not followed")
            return
        for entry in reversed(entries):
            self._include(entry, here, depth + 1)

    def _include(self, entry: object, here: str, depth: int) -> None:
        spec = {"path": entry} if isinstance(entry, str) else entry
        if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
            self.problem(here, f"an include entry is not a path: {str(entry)[:80]}")
            return
        when = spec.get("when")
        if when is not None and not self._holds(str(when), here):
            return
        override = spec.get("path_override_env_var")
        raw = str(self.env.get(override) if isinstance(override, str) and self.env.get(override) else spec["path"])
        if "://" in raw and not raw.startswith("file://"):
            self.problem(raw, "a remote include is not read (only local files and directories)", Severity.WARNING)
            return
        path = self.expand(raw.removeprefix("file://"), here)
        real = os.path.realpath(path)
        if real in self._scopes and real not in self._seen:  # a built-in scope, read in its own place
            return
        if os.path.isdir(path):
            self.scope(path, depth)
        elif os.path.isfile(path):
            data = self._load(path)
            if data is not None:
                self._includes(data.get("include"), os.path.dirname(path), depth)
                self.layers.append(self._sections(data, path))
        elif not spec.get("optional", False) and real not in self._scopes:
            self.problem(path, "included, but there is no such file or directory")

    def _sections(self, data: dict[str, Any], path: str) -> dict[str, Any]:
        """The sections read here, each a mapping (as Spack's schema requires); one that is not is a problem."""
        sections = {}
        for key, value in data.items():
            if _bare(key) not in ("mirrors", "config"):
                continue
            if value is not None and not isinstance(value, dict):
                self.problem(path, f"'{_bare(key)}' is a {type(value).__name__}, not a mapping; not read")
                continue
            sections[key] = value or {}
        return sections

    def _holds(self, when: str, here: str) -> bool:
        match = _WHEN.fullmatch(when)
        if match is None:
            self.problem(here, f"an include's condition is not understood ({when[:60]}); not included",
                         Severity.WARNING)
            return False
        if match.group("var"):
            present = match.group("var") in self.env
            return present if match.group("op") == "in" else not present
        same = self.platform == match.group("platform")
        return same if match.group("cmp") == "==" else not same

    def _load(self, path: str) -> dict[str, Any] | None:
        """One YAML file as a mapping; None when absent. Aliases are refused, as in every document read here."""
        real = os.path.realpath(path)
        if not os.path.isfile(path) or (real in self._seen and not os.path.isdir(path)):
            return None
        self._seen.add(real)
        data = _read_capped(path, MAX_CONFIG_BYTES)
        if data is None:
            self.problem(path, f"cannot be read, or larger than {MAX_CONFIG_BYTES >> 20} MB")
            return None
        self.files.append(path)
        try:
            text = data.decode("utf-8")
            if "*" in text and any(isinstance(e, yaml.AliasEvent) for e in yaml.parse(text, Loader=_Loader)):
                self.problem(path, "YAML aliases are not allowed (refused, not expanded)")
                return None
            loaded = yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
        except UnicodeDecodeError:
            self.problem(path, "not UTF-8 text")
            return None
        except yaml.MarkedYAMLError as exc:
            line = exc.problem_mark.line + 1 if exc.problem_mark else None
            self.problem(path, f"invalid YAML: {exc.problem or exc}" + (f" (line {line})" if line else ""))
            return None
        except (yaml.YAMLError, RecursionError, ValueError) as exc:
            self.problem(path, f"invalid YAML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
            return None
        if loaded is None:
            return {}
        if not isinstance(loaded, dict):
            self.problem(path, "not a mapping of configuration sections")
            return None
        return {str(k): v for k, v in loaded.items()}


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# -- merging, as Spack's merge_yaml does ---------------------------------------------------------------------


def _bare(key: object) -> str:
    """`mirrors:` (written `mirrors::`) -> `mirrors`."""
    return str(key).removesuffix(":")


def _merge(lower: Any, higher: Any) -> Any:
    """`higher` over `lower`: its keys first; `key::` replaces what is below; lists prepend; else it wins."""
    if isinstance(lower, dict) and isinstance(higher, dict):
        merged: dict[str, Any] = {}
        for key, value in higher.items():
            bare = _bare(key)
            if str(key).endswith(":") or bare not in lower:
                merged[bare] = _stripped(value)
            else:
                merged[bare] = _merge(lower[bare], value)
        for key, value in lower.items():
            merged.setdefault(key, value)
        return merged
    if isinstance(lower, list) and isinstance(higher, list):
        higher = _stripped(higher)
        return higher + [item for item in lower if item not in higher]
    return _stripped(higher)


def _stripped(value: Any) -> Any:
    if isinstance(value, dict):
        return {_bare(k): _stripped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


# -- one mirror --------------------------------------------------------------------------------------------


def _mirror(name: str, entry: object, reader: _Reader) -> ConfiguredMirror | None:
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
    credentials = _credentials(entry, name, url, reader) if binary and is_oci(url) else None  # only registries log in
    return ConfiguredMirror(name, url, binary, view, credentials, signed_s3)


def _canonical(url: str, reader: _Reader) -> str:
    """A URL with a known scheme as written; a path becomes `file://` (as Spack canonicalises it)."""
    scheme = url.partition("://")[0] if "://" in url else ""
    if scheme in KNOWN_SCHEMES:
        return url
    path = reader.expand(url, "")
    return "file://" + os.path.abspath(path)


def _credentials(entry: dict[str, Any], name: str, url: str, reader: _Reader) -> Credentials | None:
    """The `access_pair` of `push`, then of `fetch` (each falling back to the mirror's own), as Spack does."""
    for direction in ("push", "fetch"):
        part = entry.get(direction)
        pair = part.get("access_pair") if isinstance(part, dict) and "access_pair" in part else entry.get("access_pair")
        credentials = _pair(pair, name, url, reader)
        if credentials is not None:
            return credentials
    return None


def _pair(pair: object, name: str, url: str, reader: _Reader) -> Credentials | None:
    if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair):
        username, password = pair  # the deprecated plain-text form; still read, as Spack does
    elif isinstance(pair, dict):
        username = pair.get("id") if isinstance(pair.get("id"), str) else None
        for key in ("id_variable", "secret_variable"):
            variable = pair.get(key)
            if isinstance(variable, str) and not reader.env.get(variable):
                reader.problem(url, f"Spack mirror {name!r}: its access_pair's {key} ${variable} is not set; "
                                          "it is read without credentials", Severity.WARNING)
        if username is None and isinstance(pair.get("id_variable"), str):
            username = reader.env.get(pair["id_variable"])
        variable = pair.get("secret_variable")
        password = reader.env.get(variable) if isinstance(variable, str) else None
    else:
        return None
    return Credentials(username, password) if username and password else None


__all__ = ["SPACK_MIRRORS", "ConfiguredMirror", "SpackConfiguration", "SpackMirrors", "configured_groups",
           "configured_mirrors", "read_configuration"]
