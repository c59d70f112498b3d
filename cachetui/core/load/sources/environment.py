"""A Spack environment (`spack.yaml`, or the directory holding one) read for a plan: roots, package settings,
mirrors, and the files it includes.

- `specs:` and `definitions:` are expanded by `spec_lists`;
- `packages:` of the spack.yaml and of what it `include:`s (files, or directories holding `packages.yaml` and
  `mirrors.yaml`), merged as Spack merges scopes: the spack.yaml's own first, then each include in order (each
  above what it includes in turn); two lists of rules are joined, anything else (a string, `buildable`)
  replaces what is below it, and so does a key written `name::`. `require`, `prefer` and `conflict` become
  Rules (each remembers its file), `buildable: false` with `externals` (or the older `paths`) an external-only package;
- `mirrors:` are the environment's binary mirrors (a path is read relative to the environment).

What is read but not evaluated (an older preference such as `variants:`, a `toolchains:` section, a condition
naming more than the platform, a remote include) is said once, in `Environment.notes`; nothing is dropped
silently. Others' YAML is read as every input is: a regular file only, at most `max_bytes`, no alias, no value
YAML cannot make; anything else is `UnreadableEnvironment`, one line.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import yaml

from cachetui.core.load.sources.regular_file import read_capped
from cachetui.core.load.sources.spec_lists import SpecLists, TooLarge
from cachetui.core.load.sources.transport import is_url
from cachetui.core.load.sources.yaml_aliases import SafeLoader, first_alias_line
from cachetui.core.model.environment import (
    ANY_OF,
    CONFLICT,
    ONE_OF,
    PREFER,
    REQUIRE,
    SECTIONS,
    Environment,
    EnvironmentMirror,
    PackageSettings,
    Rule,
)
from cachetui.core.spack.arch import Arch
from cachetui.core.spack.conditions import holds
from cachetui.core.spack.words import echo

ENVIRONMENT_FILES = ("spack.yaml", "spack.yml")
MAX_INCLUDED = 64  # files an environment may include, in all
MAX_INCLUDE_DEPTH = 8
_SETTINGS_READ = frozenset({*SECTIONS, "buildable", "externals", "paths"})
# Older or weaker settings of a package: Spack's concretizer reuses a binary before honouring them.
_PREFERENCES = frozenset({"version", "variants", "target", "compiler", "providers"})
# Sections of an environment that change what Spack reuses, and that a plan does not model.
_NOT_MODELLED = {
    "concretizer": "the concretizer's settings (such as unify) are not modelled: each root is planned alone",
    "develop": "develop specs are built from their local source, never reused: not modelled",
    "toolchains": "toolchains are not expanded: a requirement naming one is not evaluated",
    "include_concrete": "included concrete environments are not read",
    "compilers": "compilers: configured compilers are not modelled (a binary's compiler is what its record says)",
}
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


class UnreadableEnvironment(Exception):
    """ENV cannot be read at all (missing, not YAML, not an environment, too large): one line, exit 2."""


def read_environment(location: str, max_bytes: int, arch: Arch) -> Environment:
    """The environment at `location` (a spack.yaml, or its directory), its `when:` conditions decided for `arch`."""
    path = _environment_file(location)
    data = _load(path, location, max_bytes)
    body = next((v for k, v in data.items() if _bare(k) in ("spack", "env")), None) if isinstance(data, dict) else None
    if not isinstance(body, dict):
        raise UnreadableEnvironment(f"{location}: not a Spack environment (no top-level 'spack:' mapping)")
    try:
        return _Reader(path, max_bytes, arch).environment(body)
    except RecursionError:  # matrices nested hundreds deep: no environment Spack reads, and no stack to spare
        raise UnreadableEnvironment(f"{location}: nested too deeply to be a Spack environment") from None


def _environment_file(location: str) -> str:
    if not os.path.isdir(location):
        return location
    for name in ENVIRONMENT_FILES:
        if os.path.lexists(os.path.join(location, name)):
            return os.path.join(location, name)
    raise UnreadableEnvironment(f"{location}: a directory without spack.yaml")


# -- reading YAML, guarded ------------------------------------------------------------------------------------


def _load(path: str, label: str, max_bytes: int) -> Any:
    data = read_capped(path, label, max_bytes, UnreadableEnvironment)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableEnvironment(f"{label}: not UTF-8 text (byte {exc.start})") from None
    try:
        alias = first_alias_line(text)
        if alias is not None:
            raise UnreadableEnvironment(f"{label}: a YAML alias at line {alias + 1}: refused, not expanded")
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader (CSafeLoader where PyYAML has it)
    except RecursionError:
        raise UnreadableEnvironment(f"{label}: YAML nested too deeply to be a Spack environment") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        said = exc.problem if isinstance(exc, _BadScalar) else "not valid YAML"
        raise UnreadableEnvironment(f"{label}: {said}{where}") from None


class _Loader(SafeLoader):
    """The safe loader whose typed scalars (`!!int`, `!!float`, `!!timestamp`, `!!bool`, or text that resolves to
    one) either make a value or are one error: never a bare ValueError, nor an integer of 10,000 digits."""


class _BadScalar(yaml.constructor.ConstructorError):
    """A scalar `_Loader` refuses; its problem is ours to say."""


def _guarded(kind: str) -> Callable[[Any, yaml.ScalarNode], Any]:
    construct = yaml.constructor.SafeConstructor.yaml_constructors[f"tag:yaml.org,2002:{kind}"]
    longest = sys.get_int_max_str_digits() or 4300

    def constructor(loader: Any, node: yaml.ScalarNode) -> Any:
        if len(node.value) > longest:
            raise _BadScalar(None, None, f"a YAML {kind} of more than {longest:,} characters", node.start_mark)
        try:
            value = construct(loader, node)
            str(value)  # Python refuses to write an integer past its bound on digits
        except (ValueError, KeyError, IndexError, AttributeError, OverflowError):
            raise _BadScalar(None, None, f"a YAML {kind} that cannot be read", node.start_mark) from None
        return value

    return constructor


for _kind in ("int", "float", "bool", "timestamp"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_kind}", _guarded(_kind))


def _bare(key: object) -> str:
    """`packages:` (written `packages::`) -> `packages`."""
    return str(key).removesuffix(":")


# -- the environment ------------------------------------------------------------------------------------------


@dataclass
class _Layer:
    """One file's sections, in precedence order (the spack.yaml first)."""

    file: str
    sections: dict[str, Any]
    replaces: frozenset[str] = frozenset()  # sections written `name::`


@dataclass
class _Reader:
    path: str
    max_bytes: int
    arch: Arch
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    layers: list[_Layer] = field(default_factory=list)
    includes: list[str | dict[str, Any]] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    @property
    def names(self) -> dict[str, str]:
        return {"platform": self.arch.platform, "os": self.arch.os or "", "target": self.arch.target}

    def environment(self, body: dict[Any, Any]) -> Environment:
        directory = os.path.dirname(os.path.abspath(self.path))
        self.files.append(self.path)
        self._seen.add(os.path.realpath(self.path))
        self.layers.append(_layer(self.path, body))
        self._includes(body.get("include"), directory, 0, top=True)
        lists = SpecLists(self.names, self.note)
        try:
            lists.define(body.get("definitions"))
            roots = lists.roots(_section(body, "specs"))
        except TooLarge as exc:
            raise UnreadableEnvironment(f"{self.path}: {exc}; not planned") from None
        for key in body:
            reason = _NOT_MODELLED.get(_bare(key))
            if reason is not None and not (_bare(key) == "concretizer" and _only_reuse(body[key])):
                self.note(reason)
        self._reuse(body)
        packages = self._packages()
        mirrors = self._mirrors(directory)
        return Environment(self.path, tuple(roots), MappingProxyType(packages), tuple(mirrors), tuple(self.files),
                           tuple(self.notes), tuple(self.includes), MappingProxyType(body))

    def _reuse(self, body: dict[Any, Any]) -> None:
        concretizer = _section(body, "concretizer")
        if isinstance(concretizer, dict) and concretizer.get("reuse") is False:
            self.note("concretizer: reuse is false here, so Spack would build rather than reuse these binaries; "
                      "the plan is what reuse would give (--export writes reuse: true)")

    # -- includes ---------------------------------------------------------------------------------------------

    def _includes(self, entries: Any, here: str, depth: int, top: bool = False) -> None:
        if entries is None:
            return
        if not isinstance(entries, list):
            raise UnreadableEnvironment(f"{self.path}: 'include:' is not a list")
        if depth >= MAX_INCLUDE_DEPTH:
            raise UnreadableEnvironment(f"{self.path}: includes nested deeper than {MAX_INCLUDE_DEPTH}")
        for entry in entries:
            spec = {"path": entry} if isinstance(entry, str) else entry
            if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
                self.note(f"include: an entry that is not a path; not read ({type(entry).__name__})")
                continue
            raw = spec["path"]
            if top:  # for an export written elsewhere: the same entry, its path made absolute
                absolute = raw if is_url(raw) or os.path.isabs(raw) or "$" in raw else \
                    os.path.normpath(os.path.join(here, raw))
                self.includes.append(absolute if isinstance(entry, str) else
                                     {**{str(k): v for k, v in spec.items()}, "path": absolute})
            if not self._included_when(spec):
                continue
            self._include(raw, here, depth, bool(spec.get("optional", False)))

    def _included_when(self, spec: dict[Any, Any]) -> bool:
        where = f"include {echo(str(spec['path']), quoted=True)}"
        return holds(spec.get("when"), self.names, lambda why: self.note(f"{where}: {why}; it is read as if it held"))

    def _include(self, raw: str, here: str, depth: int, optional: bool) -> None:
        if "://" in raw and not raw.startswith("file://"):
            self.note(f"include {echo(raw, quoted=True)}: a remote include is not read")
            return
        expanded = self._expanded(raw.removeprefix("file://"), here)
        if expanded is None:
            self.note(f"include {echo(raw, quoted=True)}: names a variable this reader does not know; not read")
            return
        if not os.path.lexists(expanded):
            if optional:
                return
            raise UnreadableEnvironment(f"{expanded} (included by {self.path}): no such file or directory")
        files = [os.path.join(expanded, name) for name in ("packages.yaml", "mirrors.yaml")] \
            if os.path.isdir(expanded) else [expanded]
        for path in files:
            if os.path.isdir(expanded) and not os.path.isfile(path):
                continue
            real = os.path.realpath(path)
            if real in self._seen:
                continue
            self._seen.add(real)
            if len(self.files) > MAX_INCLUDED:
                raise UnreadableEnvironment(f"{self.path}: includes more than {MAX_INCLUDED} files")
            data = _load(path, f"{path} (included by {self.path})", self.max_bytes)
            if data is None:
                continue
            if not isinstance(data, dict):
                raise UnreadableEnvironment(f"{path} (included by {self.path}): not a mapping of sections")
            self.files.append(path)
            self.layers.append(_layer(path, data))
            self._includes(data.get("include"), os.path.dirname(os.path.abspath(path)), depth + 1)

    def _expanded(self, raw: str, here: str) -> str | None:
        known = {"env": os.path.dirname(os.path.abspath(self.path)), **self.names}
        unknown = False

        def value(match: re.Match[str]) -> str:
            nonlocal unknown
            name = match.group(1) or match.group(2)
            if known.get(name):
                return known[name]
            unknown = True
            return match.group(0)

        expanded = os.path.expanduser(_VARIABLE.sub(value, raw))
        return None if unknown else os.path.normpath(os.path.join(here, expanded))

    # -- packages ---------------------------------------------------------------------------------------------

    def _mappings(self, section: str) -> Iterator[tuple[_Layer, dict[Any, Any]]]:
        """Each layer's `section`, highest first, where it is a mapping (one that is not is said, and not read)."""
        for layer in self.layers:
            value = layer.sections.get(section)
            if isinstance(value, dict):
                yield layer, value
            elif value is not None:
                self.note(f"{layer.file}: '{section}:' is not a mapping; not read")

    def _packages(self) -> dict[str, PackageSettings]:
        merged: dict[str, dict[str, list[tuple[Any, str]]]] = {}
        closed: set[tuple[str, str]] = set()
        for layer, packages in self._mappings("packages"):
            for key, settings in packages.items():
                name = _bare(key)
                if (name, "") in closed:
                    continue
                if not isinstance(settings, dict):
                    self.note(f"packages:{echo(name)} in {layer.file} is not a mapping; not read")
                    continue
                for setting, value in settings.items():
                    bare = _bare(setting)
                    if (name, bare) in closed:
                        continue
                    # As Spack merges scopes (`merge_yaml`): two lists join, the higher first; anything else in a
                    # higher scope replaces what is below it, and a lower value of another type is dropped.
                    held = merged.setdefault(name, {}).setdefault(bare, [])
                    if held and not isinstance(value, list):
                        closed.add((name, bare))
                        continue
                    held.append((value, layer.file))
                    if str(setting).endswith(":") or not isinstance(value, list):
                        closed.add((name, bare))
                if str(key).endswith(":"):
                    closed.add((name, ""))
            if "packages" in layer.replaces:
                break
        self._unread_settings(merged)
        return {name: self._settings(name, values) for name, values in merged.items()}

    def _unread_settings(self, merged: dict[str, dict[str, list[tuple[Any, str]]]]) -> None:
        by_key: dict[str, list[str]] = {}
        for name, settings in merged.items():
            for key in settings:
                if key not in _SETTINGS_READ:
                    by_key.setdefault(key, []).append(name)
        for key, names in by_key.items():
            why = ("an older preference, which Spack's reuse outranks" if key in _PREFERENCES
                   else "not a requirement")
            shown = ", ".join(echo(n) for n in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            self.note(f"packages: {echo(key, quoted=True)} ({why}) is not evaluated, in {shown}")

    def _settings(self, name: str, values: dict[str, list[tuple[Any, str]]]) -> PackageSettings:
        rules = {section: tuple(rule for value, file in values.get(section, [])
                                for rule in self._rules(name, section, value, file))
                 for section in SECTIONS}
        buildable = next((v for v, _ in values.get("buildable", [])), True)
        if isinstance(buildable, str):
            buildable = buildable.strip().lower() not in ("false", "no", "off")
        externals = []
        for value, file in values.get("externals", []):
            for entry in value if isinstance(value, list) else [value]:
                spec = entry.get("spec") if isinstance(entry, dict) else None
                if isinstance(spec, str) and spec not in externals:
                    externals.append(spec)
                elif not isinstance(spec, str):
                    self.note(f"packages:{echo(name)} in {file}: an external without a spec; not read")
        for value, _ in values.get("paths", []):  # the form before `externals:` (Spack 0.15): spec -> prefix
            externals.extend(str(spec) for spec in (value if isinstance(value, dict) else {}) if str(spec)
                             not in externals)
        return PackageSettings(name, rules[REQUIRE], rules[PREFER], rules[CONFLICT], buildable is not False,
                               tuple(externals))

    def _rules(self, package: str, section: str, value: Any, file: str) -> list[Rule]:
        """Spack's reading (solver/requirements.py): a string is one rule; a list, one rule per entry, each a
        string, or `{spec | one_of | any_of, when, message}`; `prefer` and `conflict` take strings or `{spec}`."""
        entries = value if isinstance(value, list) else [value]
        rules = []
        for entry in entries:
            if isinstance(entry, str):
                rules.append(Rule(package, section, ONE_OF, (entry,), file))
                continue
            if not isinstance(entry, dict):
                self.note(f"packages:{echo(package)}:{section} in {file}: an entry that is not a spec "
                          f"({type(entry).__name__}); not evaluated")
                continue
            when, message = entry.get("when"), entry.get("message")
            when = when if isinstance(when, str) and when.strip() else None
            message = message if isinstance(message, str) else None
            policies = [p for p in ("spec", ONE_OF, ANY_OF) if p in entry]
            if not policies or (section != REQUIRE and policies != ["spec"]):
                self.note(f"packages:{echo(package)}:{section} in {file}: an entry without a spec "
                          f"({', '.join(map(str, entry))[:60]}); not evaluated")
                continue
            for policy in policies:
                constraints = entry[policy] if policy != "spec" else [entry[policy]]
                if not isinstance(constraints, list) or not constraints or \
                        not all(isinstance(c, str) for c in constraints):
                    self.note(f"packages:{echo(package)}:{section} in {file}: {policy} is not a list of specs; "
                              "not evaluated")
                    continue
                rules.append(Rule(package, section, ONE_OF if policy == "spec" else policy, tuple(constraints),
                                  file, when, message))
        return rules

    # -- mirrors ----------------------------------------------------------------------------------------------

    def _mirrors(self, directory: str) -> list[EnvironmentMirror]:
        found: dict[str, EnvironmentMirror] = {}
        for layer, mirrors in self._mappings("mirrors"):
            for key, entry in mirrors.items():
                name = _bare(key)
                if name in found:
                    continue
                mirror = self._mirror(name, entry, directory, layer.file)
                if mirror is not None:
                    found[name] = mirror
            if "mirrors" in layer.replaces:
                break
        return list(found.values())

    def _mirror(self, name: str, entry: Any, directory: str, file: str) -> EnvironmentMirror | None:
        if isinstance(entry, str):
            entry = {"url": entry}
        if not isinstance(entry, dict):
            self.note(f"mirror {echo(name, quoted=True)} in {file} is neither a URL nor a mapping; not read")
            return None
        if entry.get("binary", True) is False:
            return None  # a source mirror: no build cache
        fetch = entry.get("fetch")
        url = fetch if isinstance(fetch, str) else fetch.get("url") if isinstance(fetch, dict) else None
        url = url or entry.get("url")
        if not isinstance(url, str) or not url.strip():
            self.note(f"mirror {echo(name, quoted=True)} in {file} has no url; not read")
            return None
        if any("access_pair" in part for part in (entry, fetch, entry.get("push")) if isinstance(part, dict)):
            self.note(f"mirror {echo(name, quoted=True)}: its access_pair is not used; it is read without credentials")
        url = url.strip()
        if "://" not in url:
            expanded = self._expanded(url, directory)
            if expanded is None:
                self.note(f"mirror {echo(name, quoted=True)}: its path names a variable this reader does not know; "
                          "not read")
                return None
            url = expanded
        return EnvironmentMirror(name, url)


def _layer(file: str, data: dict[Any, Any]) -> _Layer:
    sections = {_bare(key): value for key, value in data.items()}
    replaces = frozenset(_bare(key) for key in data if str(key).endswith(":"))
    return _Layer(file, sections, replaces)


def _section(body: dict[Any, Any], name: str) -> Any:
    return next((value for key, value in body.items() if _bare(key) == name), None)


def _only_reuse(concretizer: Any) -> bool:
    return isinstance(concretizer, dict) and set(map(_bare, concretizer)) <= {"reuse"}

