"""partition: placing a DNN training graph on K GPUs under memory limits (ParDNN's problem).

See ``docs/partition.md`` and ``../shared/spec/partition.md``. Importing this
package registers the problem and its methods with `hpcsched.core.registry`.
The schedule validator and the list-scheduling engine are the shared ones of
`hpcsched.taskgraph` (delay charged between machines).
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from . import formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .generate import (
    generate_chain as generate_chain,
)
from .generate import (
    generate_random as generate_random,
)
from .generate import (
    generate_training as generate_training,
)
from .generate import (
    import_dnn as import_dnn,
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
    Node as Node,
)
from .model import (
    Solution as Solution,
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
        name="partition",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="cpsat",
        data_schema=DATA_SCHEMA,
        generators={"training": generate_training, "random": generate_random, "chain": generate_chain},
        importers={"dnn": import_dnn, "pipedream": import_pipedream},
        plot=save_plot,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=formulations.CpSatParams)
PROBLEM.add_method("cpsat-lns", formulations.cpsat_lns, kind="heuristic", params=formulations.LnsParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=formulations.MilpParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force")
PROBLEM.add_method("single-gpu", special_cases.single_gpu, kind="special")
PROBLEM.add_method("chain-cuts", special_cases.chain_cuts, kind="special")
PROBLEM.add_method("pipeline-split", special_cases.pipeline_split, kind="special")
PROBLEM.add_method("pardnn", heuristics.pardnn, kind="heuristic", params=heuristics.ParDnnParams)
PROBLEM.add_method("heft", heuristics.heft, kind="heuristic")
PROBLEM.add_method("etf", heuristics.etf, kind="heuristic")
PROBLEM.add_method("kl-partition", heuristics.kl_partition, kind="heuristic", params=heuristics.KlParams)
PROBLEM.add_method("metis", heuristics.metis, kind="heuristic")
PROBLEM.add_method("round-robin", heuristics.round_robin, kind="baseline")
PROBLEM.add_method("one-gpu", heuristics.one_gpu, kind="baseline")

#: Method names by role (tests and benchmarks).
EXACT_METHODS = ("cpsat", "milp", "brute-force")
SPECIAL_METHODS = ("single-gpu", "chain-cuts", "pipeline-split")
HEURISTIC_METHODS = heuristics.HEURISTIC_METHODS  # cpsat-lns (a CP-SAT search) is listed apart
LNS_METHODS = ("cpsat-lns",)
BASELINE_METHODS = heuristics.BASELINE_METHODS

__all__ = [
    "BASELINE_METHODS",
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "HEURISTIC_METHODS",
    "LNS_METHODS",
    "PROBLEM",
    "SPECIAL_METHODS",
    "Instance",
    "Node",
    "Solution",
    "bounds",
    "evaluate",
    "generate_chain",
    "generate_random",
    "generate_training",
    "import_dnn",
    "import_pipedream",
    "lower_bound",
    "plot_solution",
    "save_plot",
    "validate",
]
