"""Read the Spack spec JSON files (`spec-N.json`) that the oldest site generation listed.

The root node is read as a build-cache database's nodes are (`spack_node`): same fields, same
rules for the target, the compiler and the variants; a field of the wrong type reads as empty.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cachetui.core.load.sources.spack_node import (
    ParameterTexts,
    arch_of,
    mended_node,
    own_compiler,
    parameters_of,
)
from cachetui.core.model.records import UNKNOWN_SIZE, RawSpec
from cachetui.core.spack.compilers import normalise_compiler

# name -> (text or None, reason when None); bound to one document's directory by the loader.
SpecFileReader = Callable[[str], tuple[str | None, str]]


def spec_from_spec_json(reader: SpecFileReader, name: str) -> tuple[RawSpec | None, str]:
    """The root node of a spec file as a RawSpec, or None and the reason."""
    text, reason = reader(name)
    if text is None:
        return None, reason
    try:
        root = _root_node(json.loads(text))
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON: {exc}"
    if root is None or not isinstance(root.get("hash"), str):
        return None, "no root node with a hash"
    try:
        node = mended_node(root)
    except UnicodeEncodeError:
        return None, "not valid UTF-8 text (a lone surrogate escaped in the JSON)"
    platform, os_, target = arch_of(node)
    return RawSpec(
        hash=root["hash"],
        version=node.version,
        compiler=normalise_compiler(own_compiler(node)),
        platform=platform,
        os=os_,
        target=target,
        variants=parameters_of(node.parameters, ParameterTexts())[0],
        stacks=(),
        size=UNKNOWN_SIZE,
    ), ""


def _root_node(data: Any) -> dict[str, Any] | None:
    spec = data.get("spec") if isinstance(data, dict) else None
    nodes = spec.get("nodes") if isinstance(spec, dict) else None
    if isinstance(nodes, list) and nodes and isinstance(nodes[0], dict):
        return nodes[0]
    return None
