"""No module of cachetui imports, directly or through others, a module that imports it back.

Every `import` and `from ... import` in a module counts, at any depth: at the top, inside a function
(a deferred import still runs, only later), under `if TYPE_CHECKING:` (mypy and a reader follow it as
the interpreter would). A relative import is resolved against the module's package, and
`from pkg import name` is an edge to `pkg.name` when that is a module of cachetui, else to `pkg`.

How packages count: an edge goes to the module an import names, not to the packages above it.
Importing `a.b.c` also runs `a/__init__` and `a/b/__init__`, but those run before `a.b.c` and do not
need it back unless they import it themselves, which is then an edge of theirs: a package
`__init__` that re-exports its submodules (eagerly, or lazily through PEP 562 `__getattr__` with its
imports under `TYPE_CHECKING`, as `cachetui.core.load` does) imports each of them here. Counting the
parents too would make every such package a circle by construction (each child reaches its parent,
which names the child), and would say nothing about the order in which modules need each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import cachetui

ROOT = Path(cachetui.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("cachetui", *path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imported(module: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every cachetui module `module` names in an import, wherever the import stands."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                yield submodule if submodule in known else source


def import_graph() -> dict[str, set[str]]:
    """Each cachetui module -> the cachetui modules it imports."""
    modules = _modules()
    known = set(modules)
    return {name: {m for m in _imported(name, path, known) if m in known} for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, and modules importing themselves (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # iterative: a long chain of imports must not reach the recursion limit
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def test_no_module_imports_one_that_imports_it_back() -> None:
    found = circles(import_graph())
    assert not found, "import circles:\n" + "\n".join("  " + " <-> ".join(c) for c in found)


def test_the_graph_sees_every_kind_of_import() -> None:
    """The scan must see what the rule counts, or the rule passes by seeing nothing."""
    graph = import_graph()
    assert "cachetui.core.load.pipeline" in graph["cachetui.core.load"]  # under TYPE_CHECKING, exported lazily
    assert "cachetui.cli.web" in graph["cachetui.cli.serve"]  # inside a function
    assert "cachetui.core.load.sources" in graph["cachetui.core.load.pipeline"]
    assert len(graph) > 150 and sum(map(len, graph.values())) > 500


def test_a_circle_is_found_however_it_is_reached() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}, "f": {"d"}}
    assert circles(graph) == [["a", "b", "c"], ["e"]]


def test_relative_imports_and_submodules_named_from_their_package_are_resolved(tmp_path: Path) -> None:
    package = tmp_path / "__init__.py"
    package.write_text("from . import a, b\nfrom .a import thing\nfrom .. import c\nimport d.e\n")
    known = {"p.q", "p.q.a", "p.c", "d.e"}  # `b` is a name in p.q, not a module
    assert set(_imported("p.q", package, known)) == {"p.q.a", "p.q", "p.c", "d.e"}
