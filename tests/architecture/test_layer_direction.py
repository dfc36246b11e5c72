"""Problem packages are layered as docs/architecture.md says: every import points down.

model → simulate → bounds → special_cases → heuristics → formulations → __init__
(generate and plot sit just above model). test_import_cycles.py checks that no
package has an import cycle; this test checks the direction in every problem
package, and that every module of a package has a layer (a new module needs one,
stated here and in docs/architecture.md).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from hpcsched.core.registration import PROBLEM_PACKAGES

BASE_LAYERS = {
    "model": 0,
    "simulate": 1,
    "generate": 1,
    "plot": 1,
    "bounds": 2,
    "special_cases": 3,
    "heuristics": 4,
    "formulations": 5,
    "__init__": 6,
}
#: Package -> its layers, where they differ from BASE_LAYERS (each difference says why).
LAYERS = {
    "transfers": BASE_LAYERS,
    # The generators time a schedule with the simulator.
    "offload": {**BASE_LAYERS, "generate": 2},
    # phases: ordering an LP's phases into a schedule (networkx only), shared by special cases, heuristics, formulations.
    "coschedule": {**BASE_LAYERS, "phases": 1},
    # The generators size the buffers from the bounds.
    "burstbuffer": {**BASE_LAYERS, "generate": 3},
    # flows: the max-flow networks that bounds, special cases and heuristics share.
    "locality": {**BASE_LAYERS, "flows": 1},
    "hetero": BASE_LAYERS,
    "partition": BASE_LAYERS,
    # stages: the stage-chain structure and order templates that special cases and heuristics share;
    # partition_stages: the stage DP (no package import); importers: layer chains -> stage chains (uses generate).
    "pipeline": {**BASE_LAYERS, "stages": 1, "partition_stages": 1, "importers": 2},
    # The generators simulate recompute-all's peak (the budget floor). The two-level (chain-offload)
    # methods build on the remat ones: offload_bridges (copies, gaps, timing) and offload_mapping (to
    # the offload problem) read the model only; persistent: rotor's persistent DP, shared by
    # formulations.dp, the offload candidates and offload_dp; profile: chains measured with torch
    # (uses generate); offload_candidates: the remat sequences (persistent DP) that offload_greedy
    # starts from; h_revolve: a special case (uses the bounds); offload_greedy: a heuristic, which
    # gives cpsat-offload its horizon; offload_dp starts from the remat formulations' incumbents.
    "checkpoint": {
        **BASE_LAYERS,
        "generate": 2,
        "offload_bridges": 1,
        "offload_mapping": 1,
        "persistent": 2,
        "profile": 3,
        "offload_candidates": 3,
        "offload_greedy": 4,
        "h_revolve": 3,
        "offload_dp": 6,
        "__init__": 7,
    },
    # Liu's algorithms (special_cases) use no bound and are the feasibility test of the out-of-core
    # bound (io_bounds) that bounds.best answers with, so here they sit below the bounds; plot draws
    # the MemReq bound; sparse: the assembly trees of sparse matrices (no package import); the
    # generators size M from Liu's optimum or the best heuristic order.
    "treemem": {
        "model": 0,
        "simulate": 1,
        "sparse": 1,
        "special_cases": 2,
        "io_bounds": 3,
        "bounds": 4,
        "plot": 5,
        "heuristics": 5,
        "generate": 6,
        "formulations": 6,
        "__init__": 7,
    },
}


def _package_folder(name: str) -> Path:
    return Path(importlib.import_module(f"hpcsched.{name}").__file__).parent


def _unit(package: Path, path: Path) -> str:
    """The top-level module or subpackage of ``path`` inside the package."""
    return path.relative_to(package).parts[0].removesuffix(".py")


def _imported_units(package: Path, path: Path) -> set[str]:
    """Top-level modules of the package that ``path`` imports (relative imports only; the packages use those)."""
    depth = len(path.relative_to(package).parts)  # 1 for model.py, 2 for formulations/cpsat.py
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == depth:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == depth - 1 and depth == 2:
            found.add(_unit(package, path))  # inside a subpackage: same unit
    return found


def test_every_problem_package_is_layered():
    """A problem package added to the registry gets its layers here (else its imports go unchecked)."""
    assert sorted(LAYERS) == sorted(PROBLEM_PACKAGES)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_every_module_has_a_layer(name):
    package, layers = _package_folder(name), LAYERS[name]
    units = {_unit(package, path) for path in package.rglob("*.py")}
    assert units <= set(layers), units - set(layers)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_imports_point_down(name):
    package, layers = _package_folder(name), LAYERS[name]
    wrong = []
    for path in package.rglob("*.py"):
        source = _unit(package, path)
        for target in _imported_units(package, path) - {source}:
            if target in layers and layers[target] >= layers[source]:
                wrong.append(f"{path.relative_to(package)} imports {target}")
    assert wrong == []
