"""The offload package is layered as docs/architecture.md says: every import points down.

model → simulate → bounds → special_cases / heuristics → formulations → __init__
(plot sits just above model; generate, whose no_offload_peak times a schedule,
just above simulate). tests/architecture/test_layers.py checks that no package
has an import cycle; this test checks the direction.
"""

from __future__ import annotations

import ast
from pathlib import Path

import hpcsched.offload

PACKAGE = Path(hpcsched.offload.__file__).parent
LAYER = {
    "model": 0,
    "simulate": 1,
    "generate": 2,
    "plot": 1,
    "bounds": 2,
    "special_cases": 3,
    "heuristics": 3,
    "formulations": 4,
    "__init__": 5,
}


def _unit(path: Path) -> str:
    """The top-level module or subpackage of ``path`` inside the package."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imported_units(path: Path) -> set[str]:
    """Top-level modules of the package that ``path`` imports (relative imports only; the package uses those)."""
    depth = len(path.relative_to(PACKAGE).parts)  # 1 for model.py, 2 for formulations/cpsat.py
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == depth:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == depth - 1 and depth == 2:
            found.add(_unit(path))  # inside a subpackage: same unit
    return found


def test_every_module_has_a_layer():
    units = {_unit(path) for path in PACKAGE.rglob("*.py")}
    assert units <= set(LAYER), units - set(LAYER)


def test_imports_point_down():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        source = _unit(path)
        for target in _imported_units(path) - {source}:
            if target in LAYER and LAYER[target] >= LAYER[source]:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {target}")
    assert wrong == []
