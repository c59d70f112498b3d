"""Spack spec syntax as a query: `hdf5@1.14: +mpi ~cuda target=x86_64_v3 %gcc@13 ^zlib /abc1234`.

The tokens follow Spack's `lib/spack/spack/spec_parser.py`: a name, `@` versions (ranges,
lists, `=` exact), `%` a compiler (or the 1.x form `%c,cxx=gcc@13`), variants `+x` `~x`
` -x` `k=v` `k=a,b` `k:=a,b` (and propagated `++x` `~~x` `--x` `k==v`, read as their
plain forms), `arch=`/`platform=`/`os=`/`target=` (lists, and target ranges such as
`x86_64_v2:`), `/hash` prefixes and `^` dependencies. What it means for a binary is in
cachetui.core.query.specmatch. `str(query)` prints a query that parses back to the same query.

Two readings are valid Spack but ask what build caches do not record, and are refused here,
before any corpus is asked (`NotRecorded`): compiler flags (`cflags=-O3`), and what follows
`%gcc` (`%gcc +mpi`, `%gcc target=zen3`), which Spack 1.x reads as the compiler's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from cachetui.core.spack.deptypes import DEPTYPES
from cachetui.core.spack.hashes import is_base32
from cachetui.core.spack.variants import COMPILER_FLAGS
from cachetui.core.spack.versions import VersionConstraint, VersionSyntaxError, parse_version_constraint
from cachetui.core.spack.words import echo

NAME = r"[a-zA-Z_0-9][a-zA-Z_0-9\-.]*"
IDENTIFIER = r"[a-zA-Z_0-9][a-zA-Z_0-9\-]*"
VALUE = r"(?:[a-zA-Z_0-9\-+*.,:=%^~/\\]+)"
QUOTED = r"""(?:'(?:[^']|(?<=\\)')*'|"(?:[^"]|(?<=\\)")*")"""
VERSION = r"=?(?:[a-zA-Z0-9_][a-zA-Z_0-9\-.]*\b)"
VERSION_RANGE = rf"(?:(?:{VERSION})?:(?:{VERSION}(?!\s*=))?)"
VERSION_LIST = rf"(?:{VERSION_RANGE}|{VERSION})(?:\s*,\s*(?:{VERSION_RANGE}|{VERSION}))*"

# Order matters, as in Spack: the first alternative that matches at a position wins.
_TOKENS = [
    ("EDGE_ATTRIBUTES", r"(?:\^|%)\[[^\]]*\]"),
    ("DEPENDENCY", rf"(?:\^|%%?)(?:\s*(?P<virtuals>{IDENTIFIER}(?:,{IDENTIFIER})*)=(?={NAME}))?"),
    ("VERSION", rf"@\s*(?:{VERSION_LIST})"),
    ("PROPAGATED_BOOL", rf"(?:\+\+|~~|--)\s*{NAME}"),
    ("BOOL", rf"[~+-]\s*{NAME}"),
    ("KEY_VALUE", rf"{NAME}:?==?(?:{QUOTED}|{VALUE})"),
    ("NAME", rf"{NAME}|\*"),
    ("HASH", r"/[a-zA-Z_0-9]*"),
    ("WS", r"\s+"),
    ("UNEXPECTED", r"."),
]
_TOKENIZER = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _TOKENS))
ARCH_KEYS = ("platform", "os", "target")


class SpecSyntaxError(ValueError):
    """A query that is not valid spec syntax; `position` is where in the text (0-based)."""

    def __init__(self, message: str, text: str, position: int) -> None:
        super().__init__(f"{message} (at column {position + 1})")
        self.message, self.text, self.position = message, text, position


class NotRecorded(SpecSyntaxError):
    """Valid Spack that asks what build caches do not record: refused as a usage error, but not malformed."""


def refusal(exc: SpecSyntaxError) -> str:
    """The one line the browser shows beside its query line (the CLI says the same, with a caret when malformed)."""
    return exc.message if isinstance(exc, NotRecorded) else f"column {exc.position + 1}: {exc.message}"


@dataclass(frozen=True)
class VariantTerm:
    """`+x` (values ("true",) and kind "bool"), `~x` (("false",)), `k=a,b` (at least), `k:=a,b` (exactly)."""

    name: str
    values: tuple[str, ...]
    exact: bool = False
    boolean: bool = False

    def __str__(self) -> str:
        if self.boolean:
            return ("+" if self.values == ("true",) else "~") + self.name
        return f"{self.name}{':=' if self.exact else '='}{_printed(','.join(self.values))}"


@dataclass(frozen=True)
class ArchTerm:
    """`platform=`, `os=` or `target=`: any of the listed values; a target may be a range `lo:hi`."""

    key: str
    values: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.key}={_printed(','.join(self.values))}"


@dataclass(frozen=True)
class CompilerTerm:
    """`%gcc@13`. What follows it (`%gcc +x target=y`) is the compiler's own, as Spack 1.x reads it."""

    name: str
    versions: VersionConstraint | None = None
    languages: tuple[str, ...] = ()  # `%c,cxx=gcc` (Spack 1.x): the languages it provides

    def __str__(self) -> str:
        assigned = f"{','.join(self.languages)}=" if self.languages else ""
        return f"%{assigned}{self.name}" + (f"@{self.versions}" if self.versions else "")


@dataclass(frozen=True)
class NodeQuery:
    """What one node must be: name, versions, compiler, variants, architecture, hash prefix."""

    name: str | None = None
    versions: VersionConstraint | None = None
    compilers: tuple[CompilerTerm, ...] = ()
    variants: tuple[VariantTerm, ...] = ()
    arch: tuple[ArchTerm, ...] = ()
    hash_prefix: str | None = None

    def __str__(self) -> str:
        parts = [self.name or ""]
        if self.versions:
            parts[0] += f"@{self.versions}"
        parts += [str(v) for v in self.variants] + [str(a) for a in self.arch]
        if self.hash_prefix is not None:
            parts.append(f"/{self.hash_prefix}")
        parts += [str(c) for c in self.compilers]  # last: what follows a compiler would be its own
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class DependencyQuery:
    """`^node`: some dependency (at any depth) is such a node; `deptypes` limits the edge that reaches it."""

    node: NodeQuery
    deptypes: tuple[str, ...] = ()
    virtuals: tuple[str, ...] = ()

    def __str__(self) -> str:
        attributes = [f"deptypes={','.join(self.deptypes)}"] if self.deptypes else []
        attributes += [f"virtuals={','.join(self.virtuals)}"] if self.virtuals else []
        return "^" + (f"[{' '.join(attributes)}] " if attributes else "") + str(self.node)


@dataclass(frozen=True)
class SpecQuery:
    root: NodeQuery = field(default_factory=NodeQuery)
    dependencies: tuple[DependencyQuery, ...] = ()

    def __str__(self) -> str:
        return " ".join(p for p in [str(self.root), *map(str, self.dependencies)] if p)


def looks_like_spec(text: str) -> bool:
    """Whether the search box holds a spec query rather than a (fuzzy) package search."""
    return bool(re.search(r"[@%+~=/^:]|\s-|\s\S", text.strip()))


def parse_spec_query(text: str) -> SpecQuery:
    """Parse `text`; raises SpecSyntaxError with the column of what is wrong."""
    return _Parser(text).parse()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [m for m in _TOKENIZER.finditer(text) if m.lastgroup != "WS"]
        self.at = 0
        for before, token in zip([None, *self.tokens], self.tokens):
            if token.lastgroup != "UNEXPECTED":
                continue
            if token.group() == "=" and before is not None and before.end() == token.start():
                raise SpecSyntaxError(f"'{echo(before.group())}=' needs a value", text, before.start())
            raise SpecSyntaxError(f"unexpected {token.group()!r}", text, token.start())

    def parse(self) -> SpecQuery:
        root = self._node()
        dependencies = []
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            if not token.group().startswith("^"):
                raise SpecSyntaxError(f"unexpected {echo(token.group(), quoted=True)}", self.text, token.start())
            self.at += 1
            attributed = token.lastgroup == "EDGE_ATTRIBUTES"
            deptypes, virtuals = _edge_attributes(token, self.text) if attributed else ((), ())
            node = self._node()
            if node.name is None:
                raise SpecSyntaxError("'^' must be followed by a package name", self.text, token.start())
            dependencies.append(DependencyQuery(node, deptypes, virtuals))
        return SpecQuery(root, tuple(dependencies))

    def _node(self) -> NodeQuery:
        """One node: its options in any order, then `%compiler@version` terms.

        As in Spack 1.x, options written after `%gcc` belong to gcc (a direct dependency), not to the
        node: `hdf5 +mpi %gcc` asks for hdf5 +mpi, `hdf5 %gcc +mpi` for a gcc with +mpi, which build
        caches do not record: refused, saying how it was read and how to write the other reading.
        """
        name = None
        if self._next("NAME"):
            if self.tokens[self.at].group() == "*":
                self.at += 1
            else:
                name = self._package_name()
        node = self._options(name)
        compilers: list[CompilerTerm] = []
        refused: tuple[CompilerTerm, NodeQuery, int] | None = None  # the first compiler given options
        while self.at < len(self.tokens) and self.tokens[self.at].lastgroup in ("DEPENDENCY", "EDGE_ATTRIBUTES") \
                and self.tokens[self.at].group().startswith("%"):
            token = self.tokens[self.at]
            self.at += 1
            compiler = self._compiler(token)
            at = self.tokens[self.at].start() if self.at < len(self.tokens) else len(self.text)
            options = self._options(None)
            if options.versions is not None:
                raise SpecSyntaxError("a compiler has one version constraint", self.text, token.start())
            if options != NodeQuery() and refused is None:
                refused = (compiler, options, at)
            compilers.append(compiler)
        node = replace(node, compilers=tuple(compilers))
        if refused is not None:
            raise NotRecorded(_compiler_options_message(node, *refused[:2]), self.text, refused[2])
        return node

    def _options(self, name: str | None) -> NodeQuery:
        """Versions, variants, arch and a hash, in any order, up to a `%`, a `^` or the end."""
        versions = hash_prefix = None
        variants: list[VariantTerm] = []
        arch: list[ArchTerm] = []
        while self.at < len(self.tokens):
            token = self.tokens[self.at]
            kind, value = token.lastgroup, token.group()
            if kind == "VERSION":
                if versions is not None:
                    raise SpecSyntaxError("a spec has one version constraint", self.text, token.start())
                versions = self._versions(value[1:].strip(), token.start())
            elif kind in ("BOOL", "PROPAGATED_BOOL"):
                sigil = value[0]
                variants.append(VariantTerm(value.lstrip("+~-").strip(), ("true" if sigil == "+" else "false",),
                                            boolean=True))
            elif kind == "KEY_VALUE":
                self._key_value(value, token.start(), variants, arch)
            elif kind == "HASH":
                if hash_prefix is not None:
                    raise SpecSyntaxError("a spec has one hash", self.text, token.start())
                hash_prefix = value[1:]
                if hash_prefix and not is_base32(hash_prefix):
                    raise SpecSyntaxError("a hash is lowercase base32 (a-z, 2-7) after '/'", self.text, token.start())
            else:
                break
            self.at += 1
        return NodeQuery(name, versions, (), tuple(variants), tuple(arch), hash_prefix)

    def _package_name(self) -> str:
        """The NAME token at hand, without a namespace (`builtin.zlib` is zlib)."""
        token = self.tokens[self.at]
        name = token.group().rsplit(".", 1)[-1]
        if not re.fullmatch(IDENTIFIER, name):
            raise SpecSyntaxError(f"{echo(token.group(), quoted=True)} is not a package name", self.text,
                                  token.start())
        self.at += 1
        return name

    def _next(self, kind: str) -> bool:
        return self.at < len(self.tokens) and self.tokens[self.at].lastgroup == kind

    def _compiler(self, token: re.Match[str]) -> CompilerTerm:
        """`%gcc`, `%gcc@13`, `%c,cxx=gcc@13`, `%[virtuals=c] gcc`: a name and perhaps a version, nothing more."""
        if token.lastgroup == "EDGE_ATTRIBUTES":
            languages = _edge_attributes(token, self.text)[1]
        else:
            languages = tuple(token.group("virtuals").split(",")) if token.group("virtuals") else ()
        if not self._next("NAME") or self.tokens[self.at].group() == "*":
            raise SpecSyntaxError("'%' must be followed by a compiler, such as gcc@13", self.text, token.start())
        name = self._package_name()
        versions = None
        if self._next("VERSION"):
            version = self.tokens[self.at]
            versions = self._versions(version.group()[1:].strip(), version.start())
            self.at += 1
        return CompilerTerm(name, versions, languages)

    def _versions(self, text: str, position: int) -> VersionConstraint:
        try:
            return parse_version_constraint(text)
        except VersionSyntaxError as exc:
            raise SpecSyntaxError(str(exc), self.text, position) from None

    def _key_value(self, text: str, position: int, variants: list[VariantTerm], arch: list[ArchTerm]) -> None:
        name, _, value = text.partition("=")
        value = value.removeprefix("=")  # propagated `k==v` reads as `k=v`
        exact = name.endswith(":")
        name = name.removesuffix(":")
        value = _unquote(value)
        if not value:
            raise SpecSyntaxError(f"'{echo(name)}=' needs a value", self.text, position)
        items = value.split(",")
        if not all(items) or any(item.startswith("=") for item in items) or "'" in value or '"' in value:
            raise SpecSyntaxError(f"'{echo(name)}=' has a value no package uses ({echo(value, quoted=True)})",
                                  self.text, position)
        if name in COMPILER_FLAGS:
            raise NotRecorded(f"build caches do not record compiler flags, so no binary can be asked for "
                              f"{echo(text, quoted=True)}", self.text, position)
        if name in ("arch", "architecture"):
            arch.extend(_arch_triple(value, self.text, position))
        elif name in ARCH_KEYS:
            arch.append(ArchTerm(name, tuple(items)))
        elif value in ("true", "false") and not exact:
            variants.append(VariantTerm(name, (value,), boolean=True))  # `mpi=true` is `+mpi`
        else:
            variants.append(VariantTerm(name, tuple(items), exact=exact))


def _compiler_options_message(node: NodeQuery, compiler: CompilerTerm, options: NodeQuery) -> str:
    """Say how the query was read, and how to write what an older Spack would have read."""
    own = replace(node, variants=node.variants + options.variants, arch=node.arch + options.arch,
                  hash_prefix=node.hash_prefix or options.hash_prefix)
    return (f"read as Spack 1.x reads it, {echo(str(options), quoted=True)} after '%{echo(compiler.name)}' "
            f"constrains the compiler {echo(compiler.name)}, and build caches do not record a compiler's variants "
            f"or target; for the package's own, write them before the '%': {echo(str(own), quoted=True)}")


def _printed(value: str) -> str:
    """A value as the parser reads it back: quoted when it holds what would end or change it."""
    return value if re.fullmatch(VALUE, value) else f'"{value}"'


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].replace("\\" + value[0], value[0])
    return value


def _arch_triple(value: str, text: str, position: int) -> list[ArchTerm]:
    parts = value.split("-")
    if len(parts) != 3:
        raise SpecSyntaxError("arch= is platform-os-target", text, position)
    return [ArchTerm(key, (part,)) for key, part in zip(ARCH_KEYS, parts) if part]


def _edge_attributes(token: re.Match[str], text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`^[deptypes=build,link virtuals=mpi]`: (deptypes, virtuals)."""
    inside = token.group()[2:-1].split()
    deptypes: tuple[str, ...] = ()
    virtuals: tuple[str, ...] = ()
    for attribute in inside:
        key, eq, value = attribute.partition("=")
        if key == "deptypes" and eq and set(value.split(",")) <= set(DEPTYPES):
            deptypes = tuple(value.split(","))
        elif key == "virtuals" and eq and value:
            virtuals = tuple(value.split(","))
        else:
            raise SpecSyntaxError("edge attributes are deptypes=… and virtuals=…", text, token.start())
    return deptypes, virtuals
