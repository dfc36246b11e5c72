"""treemem: memory-minimal traversals of task trees and DAGs.

See ``docs/treemem.md`` and ``../shared/spec/treemem.md``. Importing this
package registers the problem and its methods with `hpcsched.core.registry`.
Only the ``"sequential"`` question is implemented; ``"parallel"`` and
``"out-of-core"`` instances are refused when read, with a message saying so.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds, formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .generate import (
    generate_assembly as generate_assembly,
    generate_harpoon as generate_harpoon,
    generate_random_dag as generate_random_dag,
    generate_random_tree as generate_random_tree,
    import_dnn as import_dnn,
    import_memdag as import_memdag,
)
from .model import (
    DATA_SCHEMA as DATA_SCHEMA,
    Instance as Instance,
    Node as Node,
    Solution as Solution,
    evaluate as evaluate,
    memory_profile as memory_profile,
    validate as validate,
)
from .plot import plot_solution as plot_solution, save_plot as save_plot

PROBLEM = register_problem(
    Problem(
        name="treemem",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="auto",
        data_schema=DATA_SCHEMA,
        generators={
            "random-tree": generate_random_tree,
            "random-dag": generate_random_dag,
            "harpoon": generate_harpoon,
            "assembly": generate_assembly,
        },
        importers={"memdag": import_memdag, "dnn": import_dnn},
        plot=save_plot,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("dp", formulations.dp, kind="exact", params=formulations.DpParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=formulations.MilpParams)
PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=formulations.CpSatParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=None)
PROBLEM.add_method("liu-optimal", special_cases.liu_optimal, kind="special", params=None)
PROBLEM.add_method("best-postorder", special_cases.best_postorder, kind="heuristic", params=None)
PROBLEM.add_method("greedy", heuristics.greedy, kind="heuristic", params=None)
PROBLEM.add_method("forest-postorder", heuristics.forest_postorder, kind="heuristic", params=heuristics.ForestParams)
PROBLEM.add_method("local-search", heuristics.local_search, kind="heuristic", params=heuristics.LocalSearchParams)
PROBLEM.add_method("dfs-postorder", heuristics.dfs_postorder, kind="baseline", params=None)


def _choose(instance: Instance) -> str:
    """liu-optimal on in-trees/forests, the DP up to 25 nodes, else local search."""
    if instance.is_in_forest:
        return "liu-optimal"
    return "dp" if instance.n <= 25 else "local-search"


PROBLEM.add_dispatcher("auto", _choose, kind="exact",
                       summary="liu-optimal on in-trees, dp up to 25 nodes, local search beyond")

#: Method names by role (tests and benchmarks).
EXACT_METHODS = ("dp", "milp", "cpsat", "brute-force")
TREE_METHODS = ("liu-optimal", "best-postorder")
HEURISTIC_METHODS = ("greedy", "forest-postorder", "local-search", "dfs-postorder")

__all__ = [
    "DATA_SCHEMA", "EXACT_METHODS", "HEURISTIC_METHODS", "Instance", "Node", "PROBLEM", "Solution", "TREE_METHODS",
    "evaluate", "generate_assembly", "generate_harpoon", "generate_random_dag", "generate_random_tree",
    "import_dnn", "import_memdag", "lower_bound", "memory_profile", "plot_solution", "save_plot", "validate",
]
