"""transfers: ordering data transfers and computations on one accelerator under a memory limit.

See ``docs/transfers.md`` and ``../shared/spec/transfers.md``. Importing this
package registers the problem and its methods with `hpcsched.core.registry`.
"""

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .formulations import BruteForceParams, CpsatParams, DpParams, MilpParams
from .generate import generate_ccsd_like, generate_correlated, generate_hf_like, generate_uniform, import_csv
from .heuristics import DYNAMIC_METHODS, STATIC_METHODS, IlsParams, IteratedGreedyParams
from .model import DATA_SCHEMA, Instance, Solution, Task, evaluate, validate
from .plot import plot_solution
from .simulate import Simulator, johnson_order

PROBLEM = register_problem(
    Problem(
        name="transfers",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="cpsat",
        data_schema=DATA_SCHEMA,
        generators={
            "uniform": generate_uniform,
            "correlated": generate_correlated,
            "hf-like": generate_hf_like,
            "ccsd-like": generate_ccsd_like,
        },
        importers={"csv": import_csv},
        plot=plot_solution,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=CpsatParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=MilpParams)
PROBLEM.add_method("dp", formulations.dp, kind="exact", params=DpParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=BruteForceParams)
PROBLEM.add_method("johnson", special_cases.johnson, kind="special")
PROBLEM.add_method("sequential", special_cases.sequential, kind="special")
PROBLEM.add_method("fifo", heuristics.fifo, kind="baseline")
PROBLEM.add_method("johnson-blocking", heuristics.johnson_blocking, kind="heuristic")
PROBLEM.add_method("sort-transfer-asc", heuristics.sort_transfer_asc, kind="heuristic")
PROBLEM.add_method("sort-compute-desc", heuristics.sort_compute_desc, kind="heuristic")
PROBLEM.add_method("sort-ratio-asc", heuristics.sort_ratio_asc, kind="heuristic")
PROBLEM.add_method("sort-gain-desc", heuristics.sort_gain_desc, kind="heuristic")
PROBLEM.add_method("dynamic-johnson", heuristics.dynamic_johnson, kind="heuristic")
PROBLEM.add_method("dynamic-largest-transfer", heuristics.dynamic_largest_transfer, kind="heuristic")
PROBLEM.add_method("dynamic-smallest-transfer", heuristics.dynamic_smallest_transfer, kind="heuristic")
PROBLEM.add_method("dynamic-max-gain", heuristics.dynamic_max_gain, kind="heuristic")
PROBLEM.add_method("neh", heuristics.neh, kind="heuristic")
PROBLEM.add_method("ils", heuristics.ils, kind="heuristic", params=IlsParams)
PROBLEM.add_method("iterated-greedy", heuristics.iterated_greedy, kind="heuristic", params=IteratedGreedyParams)

#: The heuristics and the baseline, by name (for tests, benchmarks and the notebook).
HEURISTIC_METHODS = (*STATIC_METHODS, *DYNAMIC_METHODS, "neh", "ils", "iterated-greedy")

__all__ = [
    "DATA_SCHEMA",
    "DYNAMIC_METHODS",
    "HEURISTIC_METHODS",
    "PROBLEM",
    "STATIC_METHODS",
    "BruteForceParams",
    "CpsatParams",
    "DpParams",
    "IlsParams",
    "Instance",
    "IteratedGreedyParams",
    "MilpParams",
    "Simulator",
    "Solution",
    "Task",
    "bounds",
    "evaluate",
    "formulations",
    "generate_ccsd_like",
    "generate_correlated",
    "generate_hf_like",
    "generate_uniform",
    "heuristics",
    "import_csv",
    "johnson_order",
    "lower_bound",
    "plot_solution",
    "special_cases",
    "validate",
]
