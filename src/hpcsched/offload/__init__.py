"""offload: GPU activation offloading during DNN training (see docs/offload.md)."""

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, special_cases
from .generate import (
    LINKS,
    generate_cnn,
    generate_homogeneous,
    generate_random,
    generate_transformer,
    import_kineto,
    import_pipedream,
    no_offload_peak,
)
from .model import DATA_SCHEMA, Instance, Solution, check_feasible, evaluate, memory_floors, validate
from .plot import plot_solution
from .simulate import simulate

PROBLEM = register_problem(
    Problem(
        name="offload",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="cpsat",
        data_schema=DATA_SCHEMA,
        generators={
            "homogeneous": generate_homogeneous,
            "random": generate_random,
            "cnn": generate_cnn,
            "transformer": generate_transformer,
        },
        importers={"pipedream": import_pipedream, "kineto": import_kineto},
        plot=plot_solution,
        lower_bound=bounds.best,
    )
)

PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=formulations.CpSatParams)
PROBLEM.add_method("cpsat-plain", formulations.cpsat_plain, kind="exact", params=formulations.CpSatPlainParams)
PROBLEM.add_method(
    "milp-fixed-order",
    formulations.milp_fixed_order,
    kind="heuristic",
    summary="MILP with fixed transfer orders (restricted model: upper bound only)",
    params=formulations.MilpFixedOrderParams,
)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force", params=formulations.BruteForceParams)
PROBLEM.add_method("no-offload-suffices", special_cases.no_offload_suffices, kind="special")
PROBLEM.add_method("zero-transfer", special_cases.zero_transfer, kind="special")
PROBLEM.add_method("no-offload", heuristics.no_offload, kind="baseline")
PROBLEM.add_method("offload-all", heuristics.offload_all, kind="baseline")
PROBLEM.add_method("vdnn-conv", heuristics.vdnn_conv, kind="baseline")
PROBLEM.add_method("greedy-size", heuristics.greedy_size, kind="heuristic")
PROBLEM.add_method("greedy-hideability", heuristics.greedy_hideability, kind="heuristic")
PROBLEM.add_method("lp-rounding", heuristics.lp_rounding, kind="heuristic")
PROBLEM.add_method("dp", heuristics.dp, kind="heuristic")
PROBLEM.add_method("local-search", heuristics.local_search, kind="heuristic")

__all__ = [
    "DATA_SCHEMA",
    "LINKS",
    "PROBLEM",
    "Instance",
    "Solution",
    "bounds",
    "check_feasible",
    "evaluate",
    "formulations",
    "generate_cnn",
    "generate_homogeneous",
    "generate_random",
    "generate_transformer",
    "heuristics",
    "import_kineto",
    "import_pipedream",
    "memory_floors",
    "no_offload_peak",
    "plot_solution",
    "simulate",
    "special_cases",
    "validate",
]
