"""The package is layered: no import cycle between the modules of hpcsched.

Every import counts, deferred ones inside functions included (a deferred
import that closes a cycle is a cycle the layering hides), except those under
``if TYPE_CHECKING:``, which never run. See docs/architecture.md.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

SOURCE = Path(__file__).resolve().parents[2] / "src" / "hpcsched"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# The fields of a statement that hold statements: an import is a statement, so it is
# found by descending these alone, never into expressions (most of a module's nodes).
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(nodes: list) -> Iterator[ast.AST]:
    """Every statement under ``nodes`` (nested bodies included), except what an
    ``if TYPE_CHECKING:`` holds (its branches too: they never run)."""
    for node in nodes:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        yield node
        for field in _BODIES:
            yield from _statements(getattr(node, field, None) or [])


def _imports(path: Path) -> set[str]:
    """Modules of hpcsched that ``path`` imports, resolved to dotted names."""
    tree = ast.parse(path.read_text())
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found = set()
    for node in _statements(tree.body):
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


@pytest.fixture(scope="module")
def cycles() -> list[list[str]]:
    """Every import cycle of hpcsched, the graph parsed once for all packages."""
    graph = import_graph()
    graph.remove_edges_from([(u, v) for u, v in list(graph.edges) if _is_package_init_edge(u, v)])
    return list(nx.simple_cycles(graph))


@pytest.mark.parametrize("package", sorted(p.name for p in SOURCE.iterdir() if (p / "__init__.py").exists()))
def test_no_import_cycle(package, cycles):
    through = [c for c in cycles if any(m.startswith(f"hpcsched.{package}") for m in c)]
    assert through == [], f"import cycles through hpcsched.{package}: {through[:5]}"
