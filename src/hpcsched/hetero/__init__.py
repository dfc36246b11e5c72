"""hetero: task graphs on CPUs and GPUs (two resource types).

See ``docs/hetero.md`` and ``../shared/spec/hetero.md``. Importing this
package registers the problem and its methods with `hpcsched.core.registry`.
The schedule validator and the list-scheduling engine are the shared ones of
`hpcsched.taskgraph`.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from . import formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .generate import (
    generate_cholesky as generate_cholesky,
)
from .generate import (
    generate_fork_join as generate_fork_join,
)
from .generate import (
    generate_heteroprio_trap as generate_heteroprio_trap,
)
from .generate import (
    generate_layered as generate_layered,
)
from .generate import (
    import_dnn as import_dnn,
)
from .generate import (
    import_swf as import_swf,
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
    Task as Task,
)
from .model import (
    evaluate as evaluate,
)
from .model import (
    validate as validate,
)
from .plot import plot_solution as plot_solution
from .plot import save_plot as save_plot

PROBLEM = register_problem(
    Problem(
        name="hetero",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="cpsat",
        data_schema=DATA_SCHEMA,
        generators={
            "layered": generate_layered,
            "fork-join": generate_fork_join,
            "cholesky": generate_cholesky,
            "heteroprio-trap": generate_heteroprio_trap,
        },
        importers={"hetero-swf": import_swf, "dnn-partitioning": import_dnn},
        plot=save_plot,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=formulations.CpSatParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=formulations.MilpParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force")
PROBLEM.add_method(
    "independent-dp", special_cases.independent_dp, kind="special", params=special_cases.IndependentDpParams
)
PROBLEM.add_method("one-type", special_cases.one_type, kind="special")
PROBLEM.add_method("heft", heuristics.heft, kind="heuristic")
PROBLEM.add_method("heft-insertion", heuristics.heft_insertion, kind="heuristic")
PROBLEM.add_method("heteroprio", heuristics.heteroprio, kind="heuristic", params=heuristics.HeteroPrioParams)
PROBLEM.add_method("heteroprio-nospol", heuristics.heteroprio_nospol, kind="heuristic")
PROBLEM.add_method("hlp-rounding", heuristics.hlp_rounding, kind="heuristic")
PROBLEM.add_method("minmin", heuristics.minmin, kind="heuristic")
PROBLEM.add_method("dualhp", heuristics.dualhp, kind="heuristic")
PROBLEM.add_method("clb2c", heuristics.clb2c, kind="heuristic")
PROBLEM.add_method("all-cpu", heuristics.all_cpu, kind="baseline")
PROBLEM.add_method("all-gpu", heuristics.all_gpu, kind="baseline")

#: Method names by role (tests and benchmarks).
EXACT_METHODS = ("cpsat", "milp", "brute-force")
HEURISTIC_METHODS = ("heft", "heft-insertion", "heteroprio", "heteroprio-nospol", "hlp-rounding", "minmin")
INDEPENDENT_METHODS = ("dualhp", "clb2c")
BASELINE_METHODS = ("all-cpu", "all-gpu")

__all__ = [
    "BASELINE_METHODS",
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "HEURISTIC_METHODS",
    "INDEPENDENT_METHODS",
    "PROBLEM",
    "Instance",
    "Solution",
    "Task",
    "bounds",
    "evaluate",
    "generate_cholesky",
    "generate_fork_join",
    "generate_heteroprio_trap",
    "generate_layered",
    "import_dnn",
    "import_swf",
    "lower_bound",
    "plot_solution",
    "save_plot",
    "validate",
]
