"""locality: independent tasks with replicated inputs (data-locality aware scheduling).

See ``docs/locality.md`` and ``shared/spec/locality.md``. Importing this
package registers the problem ``locality`` with its exact methods, special
cases, heuristics, generators (``uniform``, ``rack-aware``) and the ``csv``
importer with `hpcsched.core.registry`.

Layers: ``model`` -> ``simulate`` -> ``flows`` -> ``bounds`` ->
``special_cases`` / ``heuristics`` -> ``formulations`` -> this file.
"""

from ..core.registry import Problem, register_problem
from . import bounds, flows, formulations, heuristics, special_cases
from .bounds import best as lower_bound
from .formulations import BruteForceParams, CpsatParams, MilpCommunicationParams, MilpParams, choose_exact
from .generate import generate_rack_aware, generate_uniform, import_csv
from .heuristics import DelaySchedulingParams
from .model import DATA_SCHEMA, Instance, Solution, evaluate, load_npz, save_npz, validate
from .plot import plot_solution

PROBLEM = register_problem(
    Problem(
        name="locality",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="auto",
        data_schema=DATA_SCHEMA,
        generators={"uniform": generate_uniform, "rack-aware": generate_rack_aware},
        importers={"csv": import_csv},
        plot=plot_solution,
        lower_bound=lower_bound,
        file_formats={".npz": (load_npz, save_npz)},
    )
)

PROBLEM.add_dispatcher(
    "auto",
    choose_exact,
    kind="exact",
    summary="Best exact method for the instance: flow for equal durations, else CP-SAT / MILP",
)
PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=CpsatParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=MilpParams)
PROBLEM.add_method("milp-communication", formulations.milp_communication, kind="exact", params=MilpCommunicationParams)
PROBLEM.add_method("semi-matching", special_cases.semi_matching, kind="special")
PROBLEM.add_method("unit-flow", special_cases.unit_flow, kind="special")
PROBLEM.add_method("quota-flow", special_cases.quota_flow, kind="special")
PROBLEM.add_method("least-loaded", heuristics.least_loaded, kind="heuristic")
PROBLEM.add_method("lpt", heuristics.lpt, kind="heuristic")
PROBLEM.add_method("fewest-choices", heuristics.fewest_choices, kind="heuristic")
PROBLEM.add_method("plan-then-execute", heuristics.plan_then_execute, kind="heuristic")
PROBLEM.add_method("hadoop-greedy", heuristics.hadoop_greedy, kind="baseline")
PROBLEM.add_method("delay-scheduling", heuristics.delay_scheduling, kind="baseline", params=DelaySchedulingParams)
PROBLEM.add_method("random-local", heuristics.random_local, kind="baseline")
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=BruteForceParams)

#: Exact methods (``auto`` dispatches to one of them), objective-1 and objective-2 heuristics, by name.
EXACT_METHODS = ("auto", "semi-matching", "unit-flow", "quota-flow", "cpsat", "milp", "milp-communication")
MAKESPAN_HEURISTICS = ("random-local", "least-loaded", "lpt", "fewest-choices", "plan-then-execute")
COMMUNICATION_HEURISTICS = ("hadoop-greedy", "delay-scheduling", "plan-then-execute")

__all__ = [
    "COMMUNICATION_HEURISTICS",
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "MAKESPAN_HEURISTICS",
    "PROBLEM",
    "BruteForceParams",
    "CpsatParams",
    "DelaySchedulingParams",
    "Instance",
    "MilpCommunicationParams",
    "MilpParams",
    "Solution",
    "bounds",
    "choose_exact",
    "evaluate",
    "flows",
    "formulations",
    "generate_rack_aware",
    "generate_uniform",
    "heuristics",
    "import_csv",
    "load_npz",
    "lower_bound",
    "plot_solution",
    "save_npz",
    "special_cases",
    "validate",
]
