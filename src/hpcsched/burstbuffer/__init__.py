"""burstbuffer: sizing and partitioning burst buffers against I/O contention.

See ``docs/burstbuffer.md`` and the module docstring of ``model.py`` for the
model and the three objectives (``sharing``, ``sizing-dynamic``,
``sizing-static``).
"""

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, special_cases
from .generate import generate_mix, generate_periodic
from .model import (
    DATA_SCHEMA,
    Application as Application,
    DrainSchedule as DrainSchedule,
    Instance as Instance,
    Platform as Platform,
    Solution as Solution,
    evaluate as evaluate,
    validate as validate,
)
from .plot import plot_solution

PROBLEM = register_problem(
    Problem(
        name="burstbuffer",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="exact",
        data_schema=DATA_SCHEMA,
        generators={"mix": generate_mix, "periodic": generate_periodic},
        importers={},
        plot=plot_solution,
        lower_bound=bounds.best,
    )
)
PROBLEM.add_method("exact", formulations.exact, kind="exact", forwards_options=True)
PROBLEM.add_method("sharing-dp", formulations.sharing_dp, kind="exact")
PROBLEM.add_method("sharing-milp", formulations.sharing_milp, kind="exact")
PROBLEM.add_method("sizing-dynamic-sweep", special_cases.sizing_dynamic_sweep, kind="exact")
PROBLEM.add_method("sizing-static-lp", formulations.sizing_static_lp, kind="exact")
PROBLEM.add_method("sizing-static-constant", special_cases.sizing_static_constant, kind="heuristic",
                   summary="Least static buffer with constant drain rates (optimal among constant rates only)")
PROBLEM.add_method("greedy-marginal", heuristics.greedy_marginal, kind="heuristic")
PROBLEM.add_method("equal-split", heuristics.equal_split, kind="heuristic")
PROBLEM.add_method("proportional-volume", heuristics.proportional_volume, kind="heuristic")
PROBLEM.add_method("proportional-rate", heuristics.proportional_rate, kind="heuristic")
PROBLEM.add_method("no-burst-buffer", heuristics.no_burst_buffer, kind="baseline")
PROBLEM.add_method("dynamic-reference", heuristics.dynamic_reference, kind="baseline",
                   summary="Dynamic sharing of the same buffer (reference outside the static solution space)")
PROBLEM.add_method("sharing-brute-force", formulations.sharing_brute_force, kind="brute-force")

__all__ = ["Application", "DrainSchedule", "Instance", "PROBLEM", "Platform", "Solution", "evaluate",
           "generate_mix", "generate_periodic", "plot_solution", "validate"]
