"""checkpoint: activation rematerialization on chains (rotor's DP, Revolve, exact models, baselines).

See ``docs/checkpoint.md`` and ``../shared/spec/checkpoint.md``. Importing
this package registers the problem and its methods.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from . import formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .generate import (
    GENERATORS as GENERATORS,
)
from .generate import (
    generate_homogeneous as generate_homogeneous,
)
from .generate import (
    generate_random as generate_random,
)
from .generate import (
    generate_transformer as generate_transformer,
)
from .generate import (
    import_kineto as import_kineto,
)
from .generate import (
    import_pipedream as import_pipedream,
)
from .model import (
    DATA_SCHEMA as DATA_SCHEMA,
)
from .model import (
    Instance as Instance,
)
from .model import (
    Solution as Solution,
)
from .model import (
    evaluate as evaluate,
)
from .model import (
    memory_lower_bound as memory_lower_bound,
)
from .model import (
    memory_profile as memory_profile,
)
from .model import (
    store_all_peak as store_all_peak,
)
from .model import (
    validate as validate,
)
from .plot import plot_solution as plot_solution

PROBLEM = register_problem(
    Problem(
        name="checkpoint",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="dp",
        data_schema=DATA_SCHEMA,
        generators=dict(GENERATORS),
        importers={"pipedream": import_pipedream, "kineto": import_kineto},
        plot=plot_solution,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("dp", formulations.dp, kind="exact", params=formulations.DpParams)
PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=formulations.CpsatParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=formulations.BruteForceParams)
PROBLEM.add_method("store-all", special_cases.store_all, kind="special")
PROBLEM.add_method("revolve", special_cases.revolve, kind="special")
PROBLEM.add_method("recompute-all", heuristics.recompute_all, kind="baseline")
PROBLEM.add_method("chen", heuristics.chen, kind="heuristic")
PROBLEM.add_method("checkpoint-sequential", heuristics.checkpoint_sequential, kind="heuristic")
PROBLEM.add_method("revolve-repaired", heuristics.revolve_repaired, kind="heuristic")
PROBLEM.add_method("greedy", heuristics.greedy, kind="heuristic")
PROBLEM.add_method("dp-coarse", heuristics.dp_coarse, kind="heuristic", params=heuristics.CoarseDpParams)

#: Method names by role (tests and benchmarks).
EXACT_METHODS = ("dp", "cpsat", "brute-force")
HEURISTIC_METHODS = ("recompute-all", "chen", "checkpoint-sequential", "revolve-repaired", "greedy", "dp-coarse")

__all__ = [
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "HEURISTIC_METHODS",
    "PROBLEM",
    "Instance",
    "Solution",
    "bounds",
    "evaluate",
    "formulations",
    "generate_homogeneous",
    "generate_random",
    "generate_transformer",
    "heuristics",
    "import_kineto",
    "import_pipedream",
    "lower_bound",
    "memory_lower_bound",
    "memory_profile",
    "plot_solution",
    "special_cases",
    "store_all_peak",
    "validate",
]
