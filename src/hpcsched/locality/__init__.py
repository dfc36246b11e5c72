"""locality: independent tasks with replicated inputs (data-locality aware scheduling).

See ``docs/locality.md`` and ``shared/spec/locality.md``. Registers the
problem ``locality`` with its exact methods, special cases, heuristics,
generators (``uniform``, ``rack-aware``) and the ``csv`` importer.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from .formulations import auto, brute_force, cpsat_makespan, milp_communication, milp_makespan
from .generate import generate_rack_aware as generate_rack_aware
from .generate import generate_uniform as generate_uniform
from .generate import import_csv as import_csv
from .heuristics import (
    delay_scheduling,
    fewest_choices_first,
    hadoop_greedy,
    least_loaded_replica,
    lpt_replicas,
    plan_then_execute,
    random_local,
)
from .model import Instance as Instance
from .model import Solution as Solution
from .model import evaluate as evaluate
from .model import load_npz as load_npz
from .model import read_any as read_any
from .model import save_npz as save_npz
from .model import validate as validate
from .plot import plot_solution as plot_solution
from .model import DATA_SCHEMA as DATA_SCHEMA
from .special_cases import quota_flow, semi_matching, unit_flow, unit_flow_networkx

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
        lower_bound=bounds.best,
        file_formats={".npz": (load_npz, save_npz)},
    )
)
PROBLEM.add_method("auto", auto, kind="exact", forwards_options=True)
PROBLEM.add_method("cpsat", cpsat_makespan, kind="exact")
PROBLEM.add_method("milp", milp_makespan, kind="exact")
PROBLEM.add_method("milp-communication", milp_communication, kind="exact")
PROBLEM.add_method("semi-matching", semi_matching, kind="special")
PROBLEM.add_method("unit-flow", unit_flow, kind="special")
PROBLEM.add_method("unit-flow-networkx", unit_flow_networkx, kind="special")
PROBLEM.add_method("quota-flow", quota_flow, kind="special")
PROBLEM.add_method("least-loaded", least_loaded_replica, kind="heuristic")
PROBLEM.add_method("lpt", lpt_replicas, kind="heuristic")
PROBLEM.add_method("fewest-choices", fewest_choices_first, kind="heuristic")
PROBLEM.add_method("plan-then-execute", plan_then_execute, kind="heuristic")
PROBLEM.add_method("hadoop-greedy", hadoop_greedy, kind="baseline")
PROBLEM.add_method("delay-scheduling", delay_scheduling, kind="baseline")
PROBLEM.add_method("random-local", random_local, kind="baseline")
PROBLEM.add_method("brute-force", brute_force, kind="brute-force")
