"""treemem: memory-minimal traversals of task trees and DAGs.

See ``docs/treemem.md`` and ``../shared/spec/treemem.md``. Importing this
package registers the problem and its methods with `hpcsched.core.registry`.
The ``"sequential"``, ``"parallel"`` and ``"out-of-core"`` (MinIO) questions
are implemented.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from . import formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .formulations.search_io import SearchIoParams, search_io
from .generate import (
    as_out_of_core as as_out_of_core,
)
from .generate import (
    as_parallel as as_parallel,
)
from .generate import (
    generate_assembly as generate_assembly,
)
from .generate import (
    generate_harpoon as generate_harpoon,
)
from .generate import (
    generate_parallel_tree as generate_parallel_tree,
)
from .generate import (
    generate_random_dag as generate_random_dag,
)
from .generate import (
    generate_random_tree as generate_random_tree,
)
from .generate import (
    import_dnn as import_dnn,
)
from .generate import (
    import_dot as import_dot,
)
from .generate import (
    import_memdag as import_memdag,
)
from .model import (
    DATA_SCHEMA as DATA_SCHEMA,
)
from .model import (
    Instance as Instance,
)
from .model import (
    Node as Node,
)
from .model import (
    Solution as Solution,
)
from .model import (
    evaluate as evaluate,
)
from .model import (
    memory_profile as memory_profile,
)
from .model import (
    validate as validate,
)
from .plot import plot_solution as plot_solution
from .plot import save_plot as save_plot

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
            "parallel-tree": generate_parallel_tree,
        },
        importers={"memdag": import_memdag, "dnn": import_dnn, "dot": import_dot},
        plot=save_plot,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("dp", formulations.dp, kind="exact", params=formulations.DpParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=formulations.MilpParams)
PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=formulations.CpSatParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=None)
PROBLEM.add_method("liu-optimal", special_cases.liu_optimal, kind="special", params=None)
PROBLEM.add_method("sp-exact", formulations.sp_exact, kind="special", params=None)
PROBLEM.add_method("best-postorder", special_cases.best_postorder, kind="heuristic", params=None)
PROBLEM.add_method("greedy", heuristics.greedy, kind="heuristic", params=None)
PROBLEM.add_method("forest-postorder", heuristics.forest_postorder, kind="heuristic", params=heuristics.ForestParams)
PROBLEM.add_method("local-search", heuristics.local_search, kind="heuristic", params=heuristics.LocalSearchParams)
PROBLEM.add_method("sp-ization", heuristics.sp_ization, kind="heuristic", params=None)
PROBLEM.add_method("dfs-postorder", heuristics.dfs_postorder, kind="baseline", params=None)
# parallel question (TOPC 2015)
PROBLEM.add_method("cpsat-parallel", formulations.cpsat_parallel, kind="exact", params=formulations.CpSatParams)
PROBLEM.add_method("par-subtrees", heuristics.par_subtrees, kind="heuristic", params=None)
PROBLEM.add_method("par-subtrees-optim", heuristics.par_subtrees_optim, kind="heuristic", params=None)
PROBLEM.add_method("par-inner-first", heuristics.par_inner_first, kind="heuristic", params=None)
PROBLEM.add_method("par-deepest-first", heuristics.par_deepest_first, kind="heuristic", params=None)
PROBLEM.add_method("par-inner-first-capped", heuristics.par_inner_first_capped, kind="heuristic", params=None)
PROBLEM.add_method("par-deepest-first-capped", heuristics.par_deepest_first_capped, kind="heuristic", params=None)
PROBLEM.add_method(
    "par-inner-first-memlimit", heuristics.par_inner_first_memlimit, kind="heuristic", params=heuristics.MemLimitParams
)
PROBLEM.add_method(
    "par-deepest-first-memlimit",
    heuristics.par_deepest_first_memlimit,
    kind="heuristic",
    params=heuristics.MemLimitParams,
)
# out-of-core question (MinIO)
PROBLEM.add_method("milp-io", formulations.milp_io, kind="exact", params=formulations.MilpIoParams)
PROBLEM.add_method("search-io", search_io, kind="exact", params=SearchIoParams)
PROBLEM.add_method("brute-force-io", formulations.brute_force_io, kind="brute-force", params=None)
PROBLEM.add_method("io-belady", heuristics.io_belady, kind="heuristic", params=heuristics.EvictionParams)
PROBLEM.add_method("io-largest", heuristics.io_largest, kind="heuristic", params=heuristics.EvictionParams)
PROBLEM.add_method("io-first-fit", heuristics.io_first_fit, kind="heuristic", params=heuristics.EvictionParams)
PROBLEM.add_method("io-best-fit", heuristics.io_best_fit, kind="heuristic", params=heuristics.EvictionParams)


#: ``auto`` tries sp-exact's class recognition on DAGs of 26 to this many nodes, for at most
#: `SP_RECOGNITION_SECONDS` and a tenth of the time limit (the recognition counts in the limit:
#: the chosen method gets what is left).
SP_RECOGNITION_MAX_N = 20_000
SP_RECOGNITION_SECONDS = 0.5


def _in_sp_exact_class(instance: Instance, seconds: float) -> bool:
    """Whether ``instance`` is in ``sp-exact``'s class: the method's own tests, under a short deadline.

    The tests are sp-exact's (``formulations.series_parallel``): every shared
    non-empty output has a forced last consumer, and the split graph is
    two-terminal series-parallel (the decomposition succeeds). False past
    ``seconds`` or beyond `SP_RECOGNITION_MAX_N` nodes.
    """
    from ..core.deadline import Deadline, TimeLimitReached
    from .formulations.series_parallel import last_consumers, split_graph
    from .formulations.sp_min_cut import min_cut_order
    from .simulate import Graph

    if instance.n > SP_RECOGNITION_MAX_N:
        return False
    graph = Graph.of(instance)
    deadline = Deadline.after(seconds)
    try:
        last, unforced = last_consumers(graph, deadline)
        if unforced is not None:
            return False
        n_vertices, edges = split_graph(graph, last)
        return min_cut_order(n_vertices, edges, 2 * graph.n, 2 * graph.n + 1, deadline) is not None
    except TimeLimitReached:
        return False


def _choose(instance: Instance, time_limit: float | None = None) -> str:
    """The method ``auto`` runs for ``instance``.

    Parallel: CP-SAT up to 30 nodes, else capped ParInnerFirst. Out-of-core: milp-io on in-forests up to 20
    nodes, search-io on larger in-forests, brute-force-io on other graphs up to 8 (its limit), else Belady evictions.
    Sequential: liu-optimal on in-forests, dp up to 25 nodes, else sp-exact on the DAGs of its class
    (`_in_sp_exact_class`), else local search.

    Parameters
    ----------
    instance : Instance
        The treemem instance (any question).
    time_limit : float or None
        The run's limit in seconds: the class test takes at most a tenth of it
        (and `SP_RECOGNITION_SECONDS`); None when only the name is wanted.

    Returns
    -------
    str
        The name of the registered method the dispatcher runs.
    """
    if instance.question == "parallel":
        return "cpsat-parallel" if instance.n <= 30 else "par-inner-first-capped"
    if instance.question == "out-of-core":
        if instance.is_in_forest:
            return "milp-io" if instance.n <= 20 else "search-io"
        return "brute-force-io" if instance.n <= 8 else "io-belady"
    if instance.is_in_forest:
        return "liu-optimal"
    if instance.n <= 25:
        return "dp"
    seconds = SP_RECOGNITION_SECONDS if time_limit is None else min(SP_RECOGNITION_SECONDS, time_limit / 10)
    return "sp-exact" if _in_sp_exact_class(instance, seconds) else "local-search"


PROBLEM.add_dispatcher(
    "auto",
    _choose,
    kind="exact",
    summary="liu-optimal on in-trees, dp up to 25 nodes, beyond sp-exact on series-parallel DAGs of its class "
    "(recognized up to 20,000 nodes), else local search; parallel: cpsat-parallel up to 30 "
    "nodes, else par-inner-first-capped; out-of-core: milp-io on in-forests up to 20 nodes, "
    "search-io on larger in-forests, brute-force-io on DAGs up to 8, else io-belady",
)

#: Method names by role (tests and benchmarks).
EXACT_METHODS = ("dp", "milp", "cpsat", "brute-force")
TREE_METHODS = ("liu-optimal", "best-postorder")
HEURISTIC_METHODS = ("greedy", "forest-postorder", "local-search", "sp-ization", "dfs-postorder")
PARALLEL_METHODS = (
    "par-subtrees",
    "par-subtrees-optim",
    "par-inner-first",
    "par-deepest-first",
    "par-inner-first-capped",
    "par-deepest-first-capped",
    "par-inner-first-memlimit",
    "par-deepest-first-memlimit",
)
OUT_OF_CORE_EXACT = ("milp-io", "search-io", "brute-force-io")
OUT_OF_CORE_HEURISTICS = ("io-belady", "io-largest", "io-first-fit", "io-best-fit")

__all__ = [
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "HEURISTIC_METHODS",
    "OUT_OF_CORE_EXACT",
    "OUT_OF_CORE_HEURISTICS",
    "PARALLEL_METHODS",
    "PROBLEM",
    "TREE_METHODS",
    "Instance",
    "Node",
    "Solution",
    "as_out_of_core",
    "as_parallel",
    "evaluate",
    "generate_assembly",
    "generate_harpoon",
    "generate_parallel_tree",
    "generate_random_dag",
    "generate_random_tree",
    "import_dnn",
    "import_dot",
    "import_memdag",
    "lower_bound",
    "memory_profile",
    "plot_solution",
    "save_plot",
    "validate",
]
