"""A Spack environment as a plan reads it: its roots, the settings of each package, its mirrors.

Plain frozen records: `cachetui.core.load` reads a spack.yaml into them, `cachetui.core.query.plan` plans from
them. Each requirement keeps the file it is written in, so a plan can say where what excluded a binary comes from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

REQUIRE, PREFER, CONFLICT = "require", "prefer", "conflict"
SECTIONS = (REQUIRE, PREFER, CONFLICT)
ONE_OF, ANY_OF = "one_of", "any_of"
ALL = "all"  # the settings every package has unless it has its own


@dataclass(frozen=True, slots=True)
class Root:
    """One abstract root: `spec` as written (a matrix row's parts joined by one space), and its parts."""

    spec: str
    parts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rule:
    """One entry of a package's `require:`, `prefer:` or `conflict:`, as Spack reads it: a string is `one_of` a
    single spec, `{spec: ...}` too; `one_of`/`any_of` list several; `when` limits it to the binaries it holds for."""

    package: str  # the section it is written under: a package, a virtual, or `all`
    section: str  # one of SECTIONS
    policy: str  # ONE_OF or ANY_OF
    constraints: tuple[str, ...]
    file: str  # where it is written
    when: str | None = None
    message: str | None = None

    def text(self) -> str:
        """`target=x86_64`, or `one_of [a, b]`; `… when +mpi` when it has a condition."""
        said = self.constraints[0] if len(self.constraints) == 1 else f"{self.policy} [{', '.join(self.constraints)}]"
        return said + (f" when {self.when}" if self.when else "")

    def where(self) -> str:
        """`packages:all in spack.yaml`: the section and the file it is written in."""
        return f"packages:{self.package} in {self.file}"


@dataclass(frozen=True, slots=True)
class PackageSettings:
    name: str
    require: tuple[Rule, ...] = ()
    prefer: tuple[Rule, ...] = ()
    conflict: tuple[Rule, ...] = ()
    buildable: bool = True
    externals: tuple[str, ...] = ()  # the externals' specs

    def rules(self, section: str) -> tuple[Rule, ...]:
        return {REQUIRE: self.require, PREFER: self.prefer, CONFLICT: self.conflict}[section]

    @property
    def external_only(self) -> bool:
        """`buildable: false` with externals: Spack uses one of them, never a binary nor a build."""
        return not self.buildable and bool(self.externals)


@dataclass(frozen=True, slots=True)
class EnvironmentMirror:
    name: str
    url: str  # where it is read from: a URL, or a path made absolute (credentials, if written, are only used)


@dataclass(frozen=True)
class Environment:
    path: str  # the spack.yaml read
    roots: tuple[Root, ...]
    packages: Mapping[str, PackageSettings]
    mirrors: tuple[EnvironmentMirror, ...]
    files: tuple[str, ...]  # every file read: the spack.yaml, then what it includes
    notes: tuple[str, ...]  # what was read but not evaluated, each said once
    includes: tuple[str | Mapping[str, Any], ...] = ()  # the `include:` entries as written (paths made absolute),
    # for an export; an entry with a `when:` or `optional:` keeps them

    def include_paths(self) -> tuple[str, ...]:
        """Every path `include:` names (made absolute), whether or not its `when:` held here."""
        return tuple(entry if isinstance(entry, str) else str(entry.get("path", "")) for entry in self.includes)
    document: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), compare=False, repr=False)
    # the `spack:` mapping as read, for an export that writes the same environment

    def settings(self, package: str) -> PackageSettings | None:
        return self.packages.get(package)
