"""A Spack spec node as build-cache databases and specfiles write it: the fields rendered, declared once.

The msgspec Structs below are the only list of what is read from a node, and of each field's
type. A typed decode reads big indexes with them; a node of the wrong shape is mended to
them (`fitting`: each field of the wrong type left out, so it reads as empty, never guessed)
and then decoded the same way, so every reader renders a node by the same rules:

- target: the string, or the dict's `name`;
- the node's own compiler: `name@version` of its `compiler` object (specfiles before Spack 1.x);
- variants from `parameters` (see `core.spack.variants.parameters_variants`);
- external: set when Spack would use it where it is (its `external` is truthy);
- build provenance (`Renderer.fields`): the package hash, the namespace and the compiler flags.

A node of specfile v1 (`{name: node}`, dependencies `{name: {hash, type}}`) is unwrapped to the later
shape first (`unwrapped`), wherever it is read.
"""

from __future__ import annotations

from functools import cache, lru_cache
from operator import attrgetter
from types import NoneType, UnionType
from typing import Any, NamedTuple, get_args, get_origin

import msgspec

from cachetui.core.model.records import build_provenance_text
from cachetui.core.spack.compilers import compiler_rank, name_at_version
from cachetui.core.spack.deptypes import deptype_bits
from cachetui.core.spack.variants import ParameterMemory, ParameterValue, parameters_texts


class Target(msgspec.Struct):
    name: str = ""


class Arch(msgspec.Struct):
    platform: str = ""
    platform_os: str = ""
    target: str | Target = ""


class CompilerObject(msgspec.Struct):
    name: str = ""
    version: str = ""


class Edge(msgspec.Struct):
    name: str = ""
    hash: str = ""
    build_hash: str = ""  # lockfile v3 (specfile v2) points at a dependency by its build hash
    parameters: msgspec.Raw = msgspec.Raw()  # {deptypes, virtuals}: few distinct values, read once each
    type: list[str] | None = None  # DB 6 (specfile v2/v3) wrote the deptypes here


class Annotations(msgspec.Struct):
    compiler: str = ""


class Node(msgspec.Struct):
    name: str = ""
    version: str = ""
    arch: Arch | None = None
    compiler: CompilerObject | None = None
    parameters: msgspec.Raw = msgspec.Raw()  # rendered once per distinct value
    dependencies: list[Edge] | None = None
    annotations: Annotations | None = None
    external: msgspec.Raw = msgspec.Raw()  # set (truthy) for an external: Spack uses it where it is
    namespace: str = ""
    package_hash: str = ""
    hash: str = ""  # the node's own DAG hash (specfile v2 on; lockfile v2 keys by build hash, this is the DAG hash)
    build_hash: str = ""  # specfiles of Spack 0.13-0.17


_NODE_DECODER = msgspec.json.Decoder(Node)


class HeldEdge(msgspec.Struct):
    """An edge as a binary is rendered from it: its name is its record's (read again only for a dependency
    the index has no record of), and a million names in a whole-site index are not made for nothing."""

    hash: str = ""
    parameters: msgspec.Raw = msgspec.Raw()
    type: list[str] | None = None


class HeldNode(msgspec.Struct):
    """`Node` as a binary is rendered from it, its `parameters` decoded with it: a record whose parameters hold
    another shape is read as `Record` (`parameters_of` renders it), so nothing is guessed."""

    name: str = ""
    version: str = ""
    arch: Arch | None = None
    compiler: CompilerObject | None = None
    parameters: dict[str, ParameterValue] = {}
    dependencies: list[HeldEdge] | None = None
    annotations: Annotations | None = None
    namespace: str = ""
    package_hash: str = ""


AnyNode = Node | HeldNode  # a binary's node, from either reading


class NodeFields(NamedTuple):
    """What every reader takes from a node, rendered by the rules above. Its compiler is settled later
    (`node_compiler`): a Spack 1.x node names it through an edge, whose record another part of the file holds."""

    name: str
    version: str
    platform: str
    os: str
    target: str
    variants: tuple[str, ...]
    own_compiler: str  # the node's compiler object (specfiles before Spack 1.x); "" when it has none
    annotated_compiler: str  # `annotations.compiler` (nodes converted from older specfiles); ""
    build_provenance: str  # package hash, namespace and flags (`records.build_provenance_text`)


class Renderer:
    """Renders the nodes of one reading; each distinct `parameters` text, and each distinct parameter in them, is
    worked out once (`ParameterTexts`)."""

    def __init__(self) -> None:
        self._parameters = ParameterTexts()

    def fields(self, node: Node) -> NodeFields:
        variants, flags = self.parameters(node.parameters)
        return NodeFields(node.name, node.version, *arch_of(node), variants, own_compiler(node),
                          annotated_compiler(node), build_provenance_text(node.package_hash, node.namespace, flags))

    def parameters(self, parameters: msgspec.Raw | dict[str, ParameterValue]) -> Rendered:
        """A node's variants and compiler flags, from its `parameters`: decoded with it (`HeldNode`), else from
        their text (`parameters_of`)."""
        if isinstance(parameters, dict):
            return parameters_texts(parameters, self._parameters.items)
        return parameters_of(parameters, self._parameters)


def arch_of(node: AnyNode) -> tuple[str, str, str]:
    """(platform, os, target) of a node."""
    (platform,), (os,), (target,) = arch_columns([node])
    return platform, os, target


def arch_columns(nodes: list[AnyNode]) -> tuple[list[str], list[str], list[str]]:
    """The platforms, oss and targets of these nodes (a node without `arch` has empty ones; the target is the
    string, or the object's `name`), a column each, in C: a mirror has a hundred thousand nodes."""
    arches = list(map(_ARCH, nodes))
    if None in arches:
        arches = [arch or _NO_ARCH for arch in arches]
    targets = list(map(_TARGET, arches))
    kinds = set(map(type, targets))
    if kinds == {Target}:
        targets = list(map(_NAME, targets))
    elif kinds != {str}:
        targets = [target if isinstance(target, str) else target.name for target in targets]
    return list(map(_PLATFORM, arches)), list(map(_OS, arches)), targets


_ARCH, _TARGET, _NAME = attrgetter("arch"), attrgetter("target"), attrgetter("name")
_PLATFORM, _OS = attrgetter("platform"), attrgetter("platform_os")
_NO_ARCH = Arch()


def own_compiler(node: AnyNode) -> str:
    """`name@version` of the node's own compiler object; "" when it has none (Spack 1.x: see node_compiler)."""
    own = node.compiler
    return name_at_version(own.name, own.version) if own is not None and own.name else ""


def annotated_compiler(node: AnyNode) -> str:
    """The compiler annotated on a node converted from an older specfile; ""."""
    return node.annotations.compiler if node.annotations is not None else ""


@lru_cache(maxsize=4096)
def edge_meaning(parameters: bytes, legacy_types: tuple[str, ...]) -> tuple[int, str, int]:
    """(deptype bits, virtuals, compiler rank) of an edge: the deptypes of its `parameters`, else (DB 6, specfiles
    v1-v3) of its `type`; its virtuals a list of names (anything else provides nothing). A handful of distinct values.
    """
    data = msgspec.json.decode(parameters) if parameters else {}
    if not isinstance(data, dict):
        data = {}
    bits = deptype_bits(_strings(data["deptypes"] if "deptypes" in data else list(legacy_types)))
    virtuals = _strings(data.get("virtuals"))
    return bits, ",".join(virtuals), compiler_rank(bits, virtuals)


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def is_set(raw: msgspec.Raw) -> bool:
    """Whether a field holds a truthy value, as Spack tests `external` (absent, null, false, 0, "", [] and {}
    are not set)."""
    text = bytes(raw).strip()
    return bool(text) and text not in (b"null", b"false") and bool(msgspec.json.decode(text))


Rendered = tuple[tuple[str, ...], tuple[str, ...]]  # a node's variants and compiler flags
# The shapes Spack writes a parameter in, decoded in C: a text holding any other shape is read the general way.
_SPACK_PARAMETERS = msgspec.json.Decoder(dict[str, bool | str | tuple[str, ...]])


class ParameterTexts:
    """One reading's memory of rendered `parameters`: per distinct text, and per distinct (name, value) in
    them. A mirror's nodes mostly differ in a variant or two, so most texts are distinct but their parameters
    are few: each is rendered once and then only looked up (`parameters_texts`)."""

    def __init__(self) -> None:
        self.texts: dict[bytes, Rendered] = {}
        self.items = ParameterMemory()


def parameters_of(parameters: msgspec.Raw, memory: ParameterTexts) -> Rendered:
    """A node's variants and compiler flags (`core.spack.variants.parameters_texts`), from its `parameters`."""
    key = bytes(parameters)
    found = memory.texts.get(key)
    if found is None:
        found = memory.texts[key] = _rendered(key, memory.items) if key else ((), ())
    return found


def _rendered(text: bytes, items: ParameterMemory) -> Rendered:
    try:
        return parameters_texts(_SPACK_PARAMETERS.decode(text), items)  # every value hashable: remembered
    except (msgspec.ValidationError, msgspec.DecodeError):  # another shape somewhere in it, or not an object
        general = msgspec.json.decode(text)
        return parameters_texts(general) if isinstance(general, dict) else ((), ())


def unwrapped(spec: Any) -> dict[str, Any] | None:
    """A node in the shape of specfile v2 on: specfile v1's `{name: node}` unwrapped, its dependency mapping
    `{name: {hash, type}}` made a list of edges; None for anything that is not a node with a name."""
    if isinstance(spec, dict) and "name" not in spec and len(spec) == 1:
        (name, inner), = spec.items()
        spec = {**inner, "name": name} if isinstance(inner, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        return None
    if isinstance(spec.get("dependencies"), dict):
        edges = [{**edge, "name": str(name)} for name, edge in spec["dependencies"].items() if isinstance(edge, dict)]
        spec = {**spec, "dependencies": edges}
    return spec


def mended_node(value: dict[str, Any]) -> Node:
    """A node of any shape, read as the typed decode reads one: fields of the wrong type read as empty.

    Raises UnicodeEncodeError when it holds text no UTF-8 can (a lone surrogate escaped in the JSON).
    """
    encoded = msgspec.json.encode(value)  # NaN and Infinity encode as null
    try:
        return _NODE_DECODER.decode(encoded)  # a node of Spack's shape, as most are: nothing to mend
    except msgspec.ValidationError:
        return _NODE_DECODER.decode(msgspec.json.encode(fitting(value, Node)))


# -- mending: what a struct takes, out of what a node holds -------------------------------------------------

_LEFT_OUT = object()


def fitting(value: dict[str, Any], struct: type[msgspec.Struct]) -> dict[str, Any]:
    """The fields of `struct` that `value` holds with a type the struct takes, each nested struct and list
    mended alike; the rest left out. The result always decodes as `struct` (once encoded)."""
    kept = {}
    for name, kind in _fields(struct):
        if name in value:
            fitted = _fit(value[name], kind)
            if fitted is not _LEFT_OUT:
                kept[name] = fitted
    return kept


@cache
def _fields(struct: type[msgspec.Struct]) -> tuple[tuple[str, Any], ...]:
    return tuple((field.encode_name, field.type) for field in msgspec.structs.fields(struct))


def _fit(value: Any, kind: Any) -> Any:
    for option in get_args(kind) if isinstance(kind, UnionType) else (kind,):
        if option is msgspec.Raw:
            return value  # anything: read where it is used
        if option is NoneType:
            if value is None:
                return None
        elif isinstance(option, type) and issubclass(option, msgspec.Struct):
            if isinstance(value, dict):
                return fitting(value, option)
        elif get_origin(option) is list:
            if isinstance(value, list):
                (item,) = get_args(option)
                return [fitted for fitted in (_fit(v, item) for v in value) if fitted is not _LEFT_OUT]
        elif type(value) is option:
            return value
    return _LEFT_OUT
