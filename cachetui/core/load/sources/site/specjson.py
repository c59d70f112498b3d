"""Read the Spack spec JSON files (`spec-N.json`) that the oldest site generation listed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from cachetui.core.load.sources.shapes import as_dict
from cachetui.core.model.records import UNKNOWN_SIZE, RawSpec
from cachetui.core.spack.compilers import normalise_compiler

# name -> (text or None, reason when None); bound to one document's directory by the loader.
SpecFileReader = Callable[[str], tuple[str | None, str]]

_NOT_VARIANTS = {"cflags", "cxxflags", "fflags", "cppflags", "ldflags", "ldlibs"}


def spec_from_spec_json(reader: SpecFileReader, name: str) -> tuple[RawSpec | None, str]:
    """The root node of a spec file as a RawSpec, or None and the reason."""
    text, reason = reader(name)
    if text is None:
        return None, reason
    try:
        node = _root_node(json.loads(text))
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON: {exc}"
    if node is None or not isinstance(node.get("hash"), str):
        return None, "no root node with a hash"
    arch = as_dict(node.get("arch"))
    target = arch.get("target")
    target = target.get("name") if isinstance(target, dict) else target
    compiler = as_dict(node.get("compiler"))
    compiler_str = f"{compiler.get('name', '')}@{compiler.get('version', '')}".strip("@")
    return RawSpec(
        hash=node["hash"],
        version=str(node.get("version", "")),
        compiler=normalise_compiler(compiler_str),
        platform=str(arch.get("platform", "")),
        os=str(arch.get("platform_os", "")),
        target=str(target or ""),
        variants=_variants(node.get("parameters")),
        stacks=(),
        size=UNKNOWN_SIZE,
    ), ""


def _root_node(data: Any) -> dict[str, Any] | None:
    spec = data.get("spec") if isinstance(data, dict) else None
    nodes = spec.get("nodes") if isinstance(spec, dict) else None
    if isinstance(nodes, list) and nodes and isinstance(nodes[0], dict):
        return nodes[0]
    return None


def _variants(parameters: Any) -> tuple[str, ...]:
    if not isinstance(parameters, dict):
        return ()
    out = []
    for key in sorted(parameters):
        value = parameters[key]
        if key in _NOT_VARIANTS:
            continue
        if isinstance(value, bool):
            out.append(("+" if value else "~") + key)
        elif isinstance(value, str):
            out.append(f"{key}={value}")
        elif isinstance(value, list) and all(isinstance(v, str) for v in value) and value:
            out.append(f"{key}={','.join(value)}")
    return tuple(out)
