"""transfers: ordering data transfers and computations on one accelerator under a memory limit.

See ``docs/transfers.md`` and ``../shared/spec/transfers.md``. Importing this
package registers the problem and its methods with `hpcsched.core.registry`.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds, formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .generate import (
    generate_ccsd_like as generate_ccsd_like,
    generate_correlated as generate_correlated,
    generate_hf_like as generate_hf_like,
    generate_uniform as generate_uniform,
    import_csv as import_csv,
)
from .model import (
    DATA_SCHEMA as DATA_SCHEMA,
    Instance as Instance,
    Solution as Solution,
    Task as Task,
    evaluate as evaluate,
    validate as validate,
)
from .plot import plot_solution as plot_solution
from .simulate import Simulator as Simulator, johnson_order as johnson_order

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

PROBLEM.add_method("cpsat", formulations.solve_cpsat_model, kind="exact")
PROBLEM.add_method("milp", formulations.solve_milp, kind="exact")
PROBLEM.add_method("dp", formulations.solve_dp, kind="exact")
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force")
PROBLEM.add_method("johnson", special_cases.johnson, kind="special")
PROBLEM.add_method("sequential", special_cases.sequential, kind="special")
PROBLEM.add_method("fifo", heuristics.fifo, kind="baseline")
for _name in heuristics.STATIC_METHODS[1:] + heuristics.DYNAMIC_METHODS:
    PROBLEM.add_method(_name, getattr(heuristics, _name.replace("-", "_")), kind="heuristic")
PROBLEM.add_method("neh", heuristics.neh, kind="heuristic")
PROBLEM.add_method("ils", heuristics.ils, kind="heuristic")
PROBLEM.add_method("iterated-greedy", heuristics.iterated_greedy, kind="heuristic")

#: Exact methods, special cases and heuristics by name (for tests and benchmarks).
EXACT_METHODS = ("cpsat", "milp")
HEURISTIC_METHODS = (*heuristics.STATIC_METHODS, *heuristics.DYNAMIC_METHODS, "neh", "ils", "iterated-greedy")
