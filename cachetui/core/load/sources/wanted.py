"""What the user wants, read tolerantly: a `spack.lock` (lockfile v1-8, or the environment directory holding one),
specfiles (`spack spec --json`: documents back to back; `.spec.json`, a clearsigned `.spec.json.sig`, an old
`.spec.yaml`), or an install database (`.spack-db/index.json`, or the install root holding one); `-` reads any of
them from standard input.

Every node is read by `spack_node`'s rules, as a mirror's records are. A file that cannot be read at all is
one `UnreadableWanted` (one line), and so is a scalar YAML cannot make into a value (`!!int abc`, a 30 February,
an integer too long to write back as text); what is off inside a readable one (a root naming another package, a
dependency the file does not hold, a cycle, a format newer than this reader knows) is a warning, and the node is
trusted. Warnings of one kind are said up to `MAX_SAID`, the rest counted on one line: a damaged file may close
a cycle at every node.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

import yaml

from cachetui.core.load.no_cyclic_gc import no_cyclic_gc
from cachetui.core.load.sources.clearsigned import cleartext, is_clearsigned
from cachetui.core.load.sources.regular_file import capped, read_capped
from cachetui.core.load.sources.spack_node import Node, Renderer, edge_meaning, is_set, mended_node, unwrapped
from cachetui.core.load.sources.yaml_aliases import SafeLoader, first_alias_line
from cachetui.core.model.problems import Problem, Severity
from cachetui.core.model.wanted import WantedDag, WantedEdge, WantedNode
from cachetui.core.spack.compilers import NOT_A_COMPILER, node_compiler
from cachetui.core.spack.words import counted, echo, newer_format

STDIN = "-"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # a package name at the start of a root's spec string
MAX_SAID = 20  # warnings of one kind named one by one; past this, one line counts the rest
_SHOWN_IN_CYCLE = 6  # a cycle longer than this is said by its first nodes, its length and where it closes
# The newest version of each format this reader knows (lib/spack/docs/file_formats/): Spack 1.3 writes them.
NEWEST_LOCKFILE, NEWEST_SPECFILE, NEWEST_DATABASE = 8, 6, 9
# Warnings a damaged file may repeat at every node or root: (one, many), said up to MAX_SAID times each.
_ROOT_MISSING = ("root not among the concrete specs", "roots not among the concrete specs")
_ROOT_NAMING_ANOTHER = ("root naming another package", "roots naming another package")
_LEFT_OUT = ("entry left out", "entries left out")
_NOT_HELD = ("dependency the file does not hold", "dependencies the file does not hold")
_CYCLE = ("dependency cycle", "dependency cycles")


class UnreadableWanted(Exception):
    """WANTED cannot be read at all (missing, truncated, not a Spack format): one line, and the command ends."""


def read_wanted(location: str, max_bytes: int, stdin: BinaryIO | None = None) -> WantedDag:
    """The wanted DAG of a lockfile, specfiles or an install database (see the module); UnreadableWanted if none."""
    label = "standard input" if location == STDIN else location
    data = _bytes(location, label, max_bytes, stdin)
    if is_clearsigned(data):  # a `.spec.json.sig`: what it says; the signature is not checked (the file is the user's)
        data = cleartext(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableWanted(f"{label}: not UTF-8 text (byte {exc.start})") from None
    with no_cyclic_gc():
        documents = list(_documents(text, label))
        if not documents:
            raise UnreadableWanted(f"{label}: empty: no lockfile, specfile or install database")
        return _Reader(label).dag(documents)


# -- bytes and documents ------------------------------------------------------------------------------------


def _bytes(location: str, label: str, max_bytes: int, stdin: BinaryIO | None) -> bytes:
    if location == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        return capped(stream.read(max_bytes + 1), label, max_bytes, UnreadableWanted)
    return read_capped(_file_in(location), label, max_bytes, UnreadableWanted)


def _file_in(location: str) -> str:
    """The file a location names: itself, or what an environment directory or install root holds."""
    if not os.path.isdir(location):
        return location
    for inside in ("spack.lock", os.path.join(".spack-db", "index.json")):
        if os.path.isfile(os.path.join(location, inside)):
            return os.path.join(location, inside)
    raise UnreadableWanted(f"{location}: a directory without spack.lock or .spack-db/index.json")


def _documents(text: str, label: str) -> Iterator[Any]:
    """Each JSON document of a stream (`spack spec --json` prints one per root, back to back); else YAML."""
    if not text.lstrip().startswith(("{", "[")):
        try:
            alias = first_alias_line(text)
            if alias is not None:
                raise UnreadableWanted(f"{label}: a YAML alias at line {alias + 1}: refused, not expanded "
                                       "(Spack writes none)")
            yield from (d for d in yaml.load_all(text, Loader=_Loader) if d is not None)
        except RecursionError:
            raise UnreadableWanted(f"{label}: YAML nested too deep to be a Spack file") from None
        except _BadScalar as exc:
            mark = exc.problem_mark
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise UnreadableWanted(f"{label}: {exc.problem}{where}: not a Spack file") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise UnreadableWanted(f"{label}: neither JSON nor YAML{where}: truncated or not a Spack file") from None
        return
    decoder, position = json.JSONDecoder(), 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position == len(text):
            return
        try:
            document, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise UnreadableWanted(f"{label}: not valid JSON at line {exc.lineno}: truncated or damaged") from None
        except RecursionError:
            raise UnreadableWanted(f"{label}: not valid JSON: nested too deep to be a Spack file") from None
        except ValueError:  # Python's own bound on the digits of an integer read from text
            raise UnreadableWanted(f"{label}: a number of more than {sys.get_int_max_str_digits():,} digits: "
                                   "not a Spack file") from None
        yield document


class _Loader(SafeLoader):  # CSafeLoader where PyYAML has it: its constructors are Python's all the same
    """The safe loader whose scalars of a YAML type (`!!int`, `!!float`, `!!bool`, `!!timestamp`, or text that
    resolves to one) either make a value or are one marked error: PyYAML's own constructors raise bare
    ValueError, KeyError, IndexError or AttributeError for `!!int abc` or a 30 February, and make integers
    that Python then refuses to write as text (a hex literal of 5,000 digits), or takes quadratic time to
    make (a base-60 literal of a million parts)."""


class _BadScalar(yaml.constructor.ConstructorError):
    """A scalar `_Loader` refuses: its problem is ours to say (any other error's may echo the file's text)."""


def _checked(kind: str, what: str) -> Any:
    tag = f"tag:yaml.org,2002:{kind}"
    construct = yaml.constructor.SafeConstructor.yaml_constructors[tag]
    longest = sys.get_int_max_str_digits() or 4300  # 0: no bound set (PYTHONINTMAXSTRDIGITS=0); Python's default

    def refused(node: yaml.ScalarNode, problem: str) -> _BadScalar:
        return _BadScalar(None, None, f"a YAML {kind} {problem}", node.start_mark)

    def constructor(loader: Any, node: yaml.ScalarNode) -> Any:
        if len(node.value) > longest:
            raise refused(node, f"of more than {longest:,} characters")
        try:
            value = construct(loader, node)
        except (ValueError, KeyError, IndexError, AttributeError, OverflowError):
            raise refused(node, f"that is not {what}") from None
        try:
            str(value)  # what reading a node does with it: Python refuses past its bound on digits
        except ValueError:
            raise refused(node, f"of more than {longest:,} digits") from None
        return value

    return constructor


_KINDS = {"int": "an integer", "float": "a number", "bool": "true or false", "timestamp": "a real date or time"}
for _kind, _what in _KINDS.items():
    _Loader.add_constructor(f"tag:yaml.org,2002:{_kind}", _checked(_kind, _what))


# -- nodes --------------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, label: str) -> None:
        self.label = label
        self.problems: list[Problem] = []
        self.raw: dict[str, Node] = {}  # key -> node, in file order
        self.aliases: dict[str, str] = {}  # any hash a node is known by -> its key
        self.roots: list[str] = []
        self.old_hashes = False
        self.uninstalled: dict[str, str] = {}  # an install database's records not installed: hash -> package
        self.said: dict[tuple[str, str], int] = {}  # (one, many) -> warnings of that kind met

    def warn(self, message: str, kind: tuple[str, str] | None = None) -> None:
        """A warning; one of a `kind` (its noun, one and many) is named only up to MAX_SAID times."""
        if kind is not None:
            self.said[kind] = self.said.get(kind, 0) + 1
            if self.said[kind] > MAX_SAID:
                return
        self.problems.append(Problem(self.label, message, Severity.WARNING))

    def _count_unsaid(self) -> None:
        for (one, many), n in self.said.items():
            if n > MAX_SAID:
                self.warn(f"{counted(n - MAX_SAID, 'more ' + one, 'more ' + many)} (not named one by one)")

    def newer(self, what: str, version: object, newest: int) -> None:
        """A format newer than this reader knows: said, then read as far as it is recognisable."""
        said = newer_format(what, version, newest)
        if said is not None and all(p.reason != said for p in self.problems):  # once for a stream of specfiles
            self.warn(said)

    def dag(self, documents: list[Any]) -> WantedDag:
        kind = self._read(documents)
        if self.old_hashes:
            self.warn(f"a {kind} keys its nodes by hashes no build cache uses (before Spack 0.18): "
                      "no node can be a hit; each is compared by what it is")
        nodes = self._nodes()
        roots = tuple(dict.fromkeys(self.aliases[r] for r in self.roots if r in self.aliases))
        if not roots:  # no roots recorded: the nodes nothing depends on
            reached = {e.hash for n in nodes.values() for e in n.edges}
            roots = tuple(h for h in nodes if h not in reached)
        self._cycles(nodes)
        self._count_unsaid()
        return WantedDag(self.label, kind, nodes, roots, self.old_hashes, self.problems)

    def _read(self, documents: list[Any]) -> str:
        first = documents[0]
        if len(documents) == 1 and isinstance(first, dict) and "concrete_specs" in first:
            return self._lockfile(first)
        if len(documents) == 1 and isinstance(first, dict) and isinstance(first.get("database"), dict):
            return self._database(first["database"])
        if all(isinstance(d, dict) and "spec" in d for d in documents):
            for document in documents:
                self._specfile(document["spec"])
            return "specfile" if len(documents) == 1 else f"stream of {counted(len(documents), 'specfile')}"
        raise UnreadableWanted(f"{self.label}: not a Spack lockfile, specfile or install database")

    def _lockfile(self, lock: dict[str, Any]) -> str:
        meta = lock.get("_meta")
        version = meta.get("lockfile-version") if isinstance(meta, dict) else None
        self.old_hashes = isinstance(version, int) and version < 4
        self.newer("lockfile", version, NEWEST_LOCKFILE)
        self._environment(lock, "")
        return f"lockfile v{version}" if isinstance(version, int) else "lockfile"

    def _environment(self, env: dict[str, Any], where: str) -> None:
        """One environment's roots and nodes, then those of the concrete environments it includes (nested)."""
        specs = env.get("concrete_specs")
        for key, value in (specs.items() if isinstance(specs, dict) else ()):
            self._add(str(key), value)
        roots = env.get("roots")
        for root in roots if isinstance(roots, list) else ():
            if isinstance(root, dict) and isinstance(root.get("hash"), str):
                self.roots.append(root["hash"])
                self._check_root(root["hash"], root.get("spec"), where)
        included = env.get("include_concrete")
        for path, inner in (included.items() if isinstance(included, dict) else ()):
            if isinstance(inner, dict):
                self._environment(inner, f" (included from {echo(str(path))})")

    def _check_root(self, hash_: str, spec: Any, where: str) -> None:
        node = self.raw.get(self.aliases.get(hash_, ""))
        if node is None:
            self.warn(f"root {echo(hash_[:7])}{where} is not among the concrete specs", _ROOT_MISSING)
            return
        named = _NAME.match(spec) if isinstance(spec, str) else None
        if named and named.group() != node.name:
            self.warn(f"root {echo(spec, quoted=True)}{where} names hash {hash_[:7]}, which is a "
                      f"{echo(node.name)} node (the node is trusted)", _ROOT_NAMING_ANOTHER)

    def _specfile(self, spec: Any) -> None:
        meta = spec.get("_meta") if isinstance(spec, dict) else None
        version = meta.get("version") if isinstance(meta, dict) else 1
        self.old_hashes = self.old_hashes or not isinstance(version, int) or version < 3
        self.newer("specfile", version, NEWEST_SPECFILE)
        nodes = spec.get("nodes") if isinstance(spec, dict) else spec  # v1: a list of {name: node}
        first = True
        for value in nodes if isinstance(nodes, list) else ():
            key = self._add(None, value)
            if key is not None and first:
                self.roots.append(key)  # the first node of a specfile is its root
                first = False

    def _database(self, database: dict[str, Any]) -> str:
        installs = database.get("installs")
        self.newer("install database", database.get("version"), NEWEST_DATABASE)
        explicit = []
        for key, record in (installs.items() if isinstance(installs, dict) else ()):
            if isinstance(record, dict) and record.get("installed") is False:
                # Not wanted (not installed), but named by the edges of what is: Spack keeps a record that
                # installed specs still reference, so an edge to it is the file's own, not a dangling one.
                spec = unwrapped(record.get("spec"))
                self.uninstalled[str(key)] = spec["name"] if spec is not None else ""
            elif isinstance(record, dict):
                if self._add(str(key), record.get("spec")) is not None and record.get("explicit") is True:
                    explicit.append(str(key))
        self.roots.extend(explicit)
        version = database.get("version")
        return f"install database v{version if isinstance(version, str | int) else '?'}"

    def _add(self, key: str | None, value: Any) -> str | None:
        """A node under its key (a lockfile's or database's), else under the hash it carries; None if not a node."""
        spec = unwrapped(value)
        if spec is None:
            self.warn(f"{'node ' + key[:7] if key else 'an entry'}: not a Spack node; left out", _LEFT_OUT)
            return None
        try:
            node = mended_node(spec)
        except UnicodeEncodeError:
            self.warn(f"node {echo(spec['name'], quoted=True)}: holds text that is not UTF-8; left out", _LEFT_OUT)
            return None
        except TypeError:  # YAML gives values JSON has no form for (a set, a binary string)
            self.warn(f"node {echo(spec['name'], quoted=True)}: holds values of no JSON type; left out", _LEFT_OUT)
            return None
        full_hash = spec.get("full_hash") if isinstance(spec.get("full_hash"), str) else ""
        key = key or node.hash or full_hash or node.build_hash or node.name
        if key in self.raw:
            return key  # the same node from another document of the stream
        self.raw[key] = node
        for alias in (key, node.hash, full_hash, node.build_hash):
            if alias:
                self.aliases.setdefault(alias, key)
        return key

    def _nodes(self) -> dict[str, WantedNode]:
        renderer = Renderer()
        found = {}
        for key, node in self.raw.items():
            edges, ranks = [], []
            for edge in node.dependencies or ():
                target = self.aliases.get(edge.hash) or self.aliases.get(edge.build_hash)
                if target is None and edge.hash not in self.uninstalled:
                    self.warn(f"{echo(node.name)} depends on {echo(edge.name or '?')} "
                              f"{(edge.hash or edge.build_hash)[:7]}, which the file does not hold",
                              _NOT_HELD)
                if target is None:
                    target = edge.hash or edge.build_hash
                if not target:
                    continue
                bits, virtuals, rank = edge_meaning(bytes(edge.parameters), tuple(edge.type or ()))
                held = self.raw.get(target)
                named = held.name if held else self.uninstalled.get(target) or edge.name
                edges.append(WantedEdge(named, target, bits, virtuals))
                ranks.append(rank)
            best = min(range(len(ranks)), key=ranks.__getitem__, default=None)
            provider, compiler_edge = ("", ""), ""
            if best is not None and ranks[best] < NOT_A_COMPILER:
                compiler_edge = edges[best].hash
                held = self.raw.get(compiler_edge)
                provider = (held.name, held.version) if held else (edges[best].name, "")
            f = renderer.fields(node)
            found[key] = WantedNode(
                key, f.name, f.version, f.platform, f.os, f.target,
                node_compiler(f.own_compiler, provider, f.annotated_compiler),
                f.variants, f.build_provenance, is_set(node.external),
                tuple(edges), compiler_edge,
            )
        return found

    def _cycles(self, nodes: dict[str, WantedNode]) -> None:
        """Each dependency cycle said once (Spack's DAGs have none; a damaged file may): each edge that closes
        one, in one walk, a long one shortened (`_cycle_text`), past MAX_SAID only counted."""
        on_path: dict[str, int] = {}  # a node on the current path -> its place on it
        done: set[str] = set()
        kind = _CYCLE
        for start in nodes:
            if start in done:
                continue
            path, stack = [start], [iter(nodes[start].edges)]
            on_path[start] = 0
            while stack:
                edge = next(stack[-1], None)
                if edge is None:
                    finished = path.pop()
                    stack.pop()
                    del on_path[finished]
                    done.add(finished)
                elif edge.hash in on_path:
                    said = self.said.get(kind, 0) < MAX_SAID
                    self.warn(_cycle_text(nodes, path, on_path[edge.hash]) if said else "", kind)
                elif edge.hash in nodes and edge.hash not in done:
                    on_path[edge.hash] = len(path)
                    path.append(edge.hash)
                    stack.append(iter(nodes[edge.hash].edges))


def _cycle_text(nodes: dict[str, WantedNode], path: list[str], start: int) -> str:
    """`dependency cycle: a -> b -> a`; one of more than `_SHOWN_IN_CYCLE` nodes by its first ones and its length
    (`a -> b -> c -> … (20,000 nodes) -> a`), so that what is said of a cycle is bounded whatever its length."""
    length = len(path) - start
    names = [echo(nodes[h].name) for h in path[start : start + _SHOWN_IN_CYCLE]]
    if length > _SHOWN_IN_CYCLE:
        names.append(f"… ({length:,} nodes)")
    return "dependency cycle: " + " -> ".join([*names, echo(nodes[path[start]].name)])
