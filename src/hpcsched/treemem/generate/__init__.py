"""Seeded generators and importers of treemem instances (`synthetic`, `importers`)."""

from .importers import import_dnn, import_dot, import_memdag
from .synthetic import (
    MAX_DAG_EDGES,
    MAX_DAG_NODES,
    MAX_GRID_POINTS,
    MAX_HARPOON_BRANCHES,
    MAX_PARALLEL_TREE_NODES,
    MAX_TREE_NODES,
    as_out_of_core,
    as_parallel,
    generate_assembly,
    generate_harpoon,
    generate_parallel_tree,
    generate_random_dag,
    generate_random_tree,
)

__all__ = [
    "MAX_DAG_EDGES",
    "MAX_DAG_NODES",
    "MAX_GRID_POINTS",
    "MAX_HARPOON_BRANCHES",
    "MAX_PARALLEL_TREE_NODES",
    "MAX_TREE_NODES",
    "as_out_of_core",
    "as_parallel",
    "generate_assembly",
    "generate_harpoon",
    "generate_parallel_tree",
    "generate_random_dag",
    "generate_random_tree",
    "import_dnn",
    "import_dot",
    "import_memdag",
]
