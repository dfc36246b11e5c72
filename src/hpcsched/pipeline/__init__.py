"""pipeline: micro-batch schedules of pipeline-parallel training under per-device memory.

See ``docs/pipeline.md``. Importing this package registers the problem and
its methods with `hpcsched.core.registry`.
"""

from collections.abc import Callable
from typing import Any

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, simulate
from .bounds import best as lower_bound
from .formulations import BruteForceParams, CpSatParams, MilpParams
from .generate import (
    generate_interleaved,
    generate_random,
    generate_uniform,
    generate_vshape,
    generate_zero_bubble,
)
from .model import DATA_SCHEMA, Block, Edge, Instance, Solution, evaluate, validate
from .plot import plot_solution

#: Generator families by name.
GENERATORS: dict[str, Callable[..., Any]] = {
    "uniform": generate_uniform,
    "random": generate_random,
    "interleaved": generate_interleaved,
    "vshape": generate_vshape,
    "zero-bubble": generate_zero_bubble,
}

PROBLEM = register_problem(
    Problem(
        name="pipeline",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="cpsat",
        data_schema=DATA_SCHEMA,
        generators=dict(GENERATORS),
        plot=plot_solution,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=CpSatParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=MilpParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=BruteForceParams)
PROBLEM.add_method("sequential", heuristics.sequential, kind="baseline")

__all__ = [
    "DATA_SCHEMA",
    "GENERATORS",
    "PROBLEM",
    "Block",
    "BruteForceParams",
    "CpSatParams",
    "Edge",
    "Instance",
    "MilpParams",
    "Solution",
    "bounds",
    "evaluate",
    "formulations",
    "generate_interleaved",
    "generate_random",
    "generate_uniform",
    "generate_vshape",
    "generate_zero_bubble",
    "heuristics",
    "lower_bound",
    "plot_solution",
    "simulate",
    "validate",
]
