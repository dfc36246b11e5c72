"""pipeline: micro-batch schedules of pipeline-parallel training under per-device memory.

See ``docs/pipeline.md``. Importing this package registers the problem and
its methods with `hpcsched.core.registry`.
"""

from collections.abc import Callable
from typing import Any

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, simulate, special_cases
from .bounds import best as lower_bound
from .formulations import BruteForceParams, CpSatParams, MilpParams
from .generate import (
    generate_interleaved,
    generate_random,
    generate_uniform,
    generate_vshape,
    generate_zero_bubble,
)
from .importers import import_checkpoint_chain, import_pipedream
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
        importers={"pipedream": import_pipedream, "checkpoint-chain": import_checkpoint_chain},
        plot=plot_solution,
        lower_bound=lower_bound,
    )
)

PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=CpSatParams)
PROBLEM.add_method("milp", formulations.milp, kind="exact", params=MilpParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=BruteForceParams)
PROBLEM.add_method("sequential", heuristics.sequential, kind="baseline")
PROBLEM.add_method("one-device", special_cases.one_device, kind="special")
PROBLEM.add_method("uniform-1f1b", special_cases.uniform_1f1b, kind="special")
PROBLEM.add_method("unlimited-period", special_cases.unlimited_period, kind="special")
PROBLEM.add_method("gpipe", heuristics.gpipe, kind="heuristic")
PROBLEM.add_method("1f1b", heuristics.one_f_one_b, kind="heuristic")
PROBLEM.add_method("interleaved-1f1b", heuristics.interleaved_1f1b, kind="heuristic")
PROBLEM.add_method("zb-h1", heuristics.zb_h1, kind="heuristic")
PROBLEM.add_method("zb-h2", heuristics.zb_h2, kind="heuristic")
PROBLEM.add_method("greedy", heuristics.greedy, kind="heuristic")
PROBLEM.add_method("greedy-backward-first", heuristics.greedy_backward_first, kind="heuristic")
PROBLEM.add_method("greedy-critical-path", heuristics.greedy_critical_path, kind="heuristic")
PROBLEM.add_method("greedy-memory-tight", heuristics.greedy_memory_tight, kind="heuristic")
PROBLEM.add_method("local-search", heuristics.local_search, kind="heuristic", params=heuristics.LocalSearchParams)

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
    "import_checkpoint_chain",
    "import_pipedream",
    "lower_bound",
    "plot_solution",
    "simulate",
    "special_cases",
    "validate",
]
