"""Spack's configuration scopes read into layers, lowest precedence first, and merged as Spack merges them.

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
merge, lists prepend, a key written `name::` replaces everything below it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from cachetui.core.model.problems import Problem, Severity

CONFIG = "Spack configuration"  # where a problem of the merged configuration is said to be
MAX_CONFIG_BYTES = 1 << 20
MAX_INCLUDE_DEPTH = 8
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_WHEN = re.compile(r"""\s*["'](?P<var>\w+)["']\s+(?P<op>not\s+in|in)\s+env\s*"""
                   r"""|\s*platform\s*(?P<cmp>==|!=)\s*["'](?P<platform>\w+)["']\s*""")


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



def home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


class ScopeReader:
    """Reads scopes into layers (lowest first), following local includes; every problem is a record."""

    def __init__(self, env: Mapping[str, str], root: str | None, platform: str) -> None:
        self.env, self.root, self.platform = env, root, platform
        self.layers: list[dict[str, Any]] = []
        self.files: list[str] = []
        self.problems: list[Problem] = []
        self._seen: set[str] = set()
        self._scopes: set[str] = set()
        self._warned: set[tuple[str, str]] = set()

    def merged(self) -> dict[str, Any]:
        """Every scope read, lowest first, then the environment's; their sections merged as Spack merges them."""
        for directory in self.builtin_scopes():
            self.scope(directory)
        active = self.env.get("SPACK_ENV")
        if active:
            self.environment(active)
        merged: dict[str, Any] = {}
        for layer in self.layers:
            try:
                merged = _merge(merged, layer)
            except RecursionError:
                self.problem(CONFIG, "a section is nested too deeply to merge; that scope is not read")
        return merged

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
            scopes.append(env.get("SPACK_USER_CONFIG_PATH") or os.path.join(home(env), ".spack"))
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
                 "user_cache_path": self.env.get("SPACK_USER_CACHE_PATH") or os.path.join(home(self.env), ".spack")}

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            if name in known and known[name]:
                return known[name]
            return self.env.get(name, match.group(0))

        expanded = _VARIABLE.sub(value, text)
        if expanded.startswith("~"):
            expanded = home(self.env) + expanded[1:]
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
        data = read_capped(path, MAX_CONFIG_BYTES)
        if data is None:
            self.problem(path, f"cannot be read, or larger than {MAX_CONFIG_BYTES >> 20} MB")
            return None
        self.files.append(path)
        import yaml  # here: a load that names no Spack mirrors never imports it

        from cachetui.core.load.sources.yaml_aliases import SafeLoader, first_alias_line

        try:
            text = data.decode("utf-8")
            if (alias := first_alias_line(text)) is not None:
                self.problem(path, f"YAML aliases are not allowed (refused, not expanded; line {alias + 1})")
                return None
            loaded = yaml.load(text, Loader=SafeLoader)  # noqa: S506 - SafeLoader/CSafeLoader only
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


def read_capped(path: str, limit: int) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None
