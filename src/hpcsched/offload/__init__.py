"""offload: GPU activation offloading during DNN training (see docs/offload.md)."""

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, special_cases
from .generate import (
    LINKS as LINKS,
    generate_cnn,
    generate_homogeneous,
    generate_random,
    generate_transformer,
    import_kineto,
    import_pipedream,
    no_offload_peak as no_offload_peak,
)
from .model import Instance as Instance
from .model import Solution as Solution
from .model import check_feasible as check_feasible
from .model import evaluate as evaluate
from .model import memory_floors as memory_floors
from .model import validate as validate
from .plot import plot_solution
from .simulate import simulate as simulate

_INT_LIST = {"type": "array", "items": {"type": "integer", "minimum": 0}}
_BANDWIDTH = {"type": ["number", "null"], "exclusiveMinimum": 0,
              "description": "bytes per time unit; null = infinite"}

DATA_SCHEMA = {
    "type": "object",
    "required": ["forward", "backward", "activation", "memory", "bandwidth_out", "bandwidth_in"],
    "properties": {
        "layers": {"type": "array", "items": {"type": "string"}},
        "forward": {**_INT_LIST, "minItems": 1, "description": "f_1..f_L"},
        "backward": {**_INT_LIST, "description": "b_1..b_L"},
        "activation": {**_INT_LIST, "description": "s_0..s_L in bytes"},
        "workspace_forward": _INT_LIST,
        "workspace_backward": _INT_LIST,
        "memory": {"type": "integer", "minimum": 0},
        "bandwidth_out": _BANDWIDTH,
        "bandwidth_in": _BANDWIDTH,
        "latency": {"type": "integer", "minimum": 0},
        "duplex": {"enum": ["full", "half"]},
        "offloadable": {"type": ["array", "null"], "items": {"type": "integer", "minimum": 0}},
    },
    "additionalProperties": False,
}

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

PROBLEM.add_method("cpsat", formulations.solve_cpsat_warm, kind="exact")
PROBLEM.add_method("cpsat-plain", formulations.solve_cpsat_plain, kind="exact")
PROBLEM.add_method("milp-fixed-order", formulations.solve_milp_fixed_order, kind="heuristic",
                   summary="MILP with fixed transfer orders (restricted model: upper bound only)")
PROBLEM.add_method("brute-force", formulations.solve_brute_force, kind="brute-force")
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
