"""The package is layered: no import cycle between the modules of hpcsched.

Every import counts, deferred ones inside functions included (a deferred
import that closes a cycle is a cycle the layering hides), except those under
``if TYPE_CHECKING:``, which never run. See docs/architecture.md.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

SOURCE = Path(__file__).resolve().parents[2] / "src" / "hpcsched"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Modules of hpcsched that ``path`` imports, resolved to dotted names."""
    tree = ast.parse(path.read_text())
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for child in ast.walk(node))
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("hpcsched"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            if not stem.startswith("hpcsched"):
                continue
            found.add(stem)
            found.update(f"{stem}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> nx.DiGraph:
    modules = {_module_name(path): path for path in SOURCE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in _imports(path):
            if target in modules and target != name:
                graph.add_edge(name, target)
    return graph


def _is_package_init_edge(source: str, target: str) -> bool:
    # A package's __init__ importing its own submodules (and a submodule
    # importing the package root through `from . import x`) is how Python
    # packages are assembled, not a layering cycle.
    return source.startswith(target + ".") or target.startswith(source + ".")


@pytest.mark.parametrize("package", sorted(p.name for p in SOURCE.iterdir() if (p / "__init__.py").exists()))
def test_no_import_cycle(package):
    graph = import_graph()
    graph.remove_edges_from([(u, v) for u, v in list(graph.edges) if _is_package_init_edge(u, v)])
    cycles = [c for c in nx.simple_cycles(graph) if any(m.startswith(f"hpcsched.{package}") for m in c)]
    assert cycles == [], f"import cycles through hpcsched.{package}: {cycles[:5]}"
