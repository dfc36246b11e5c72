"""coschedule: co-scheduling GPU kernels two at a time, with and without preemption.

See ``docs/coschedule.md``. The default method is ``auto``: ``lp-preemptive``
on independent kernels, ``milp`` on instances with streams (the LP ignores
the stream order; the MILP honours it, and within its time limit returns at
least the best list schedule). Without streams the
preemptive variant is treated as the primary problem because its optimum is
an LP (polynomial, proven optimal at every size, n = 2,000 in seconds), it is
the paper's central result, and it is the yardstick (lower bound) of every
non-preemptive method. The non-preemptive exact methods (``milp``,
``cpsat``, ``brute-force``) prove optima only for small n.
"""

from ..core.registry import Problem, register_problem
from . import bounds
from .formulations import (
    brute_force_nonpreemptive,
    cpsat_nonpreemptive,
    lp_preemptive,
    milp_min_preemptions,
    milp_nonpreemptive,
)
from .generate import (
    generate_all_ones,
    generate_sm_model,
    generate_uniform,
    import_gavel,
    import_kineto,
    import_orion,
)
from .heuristics import fifo, greedy_partner, local_search, lp_merge, lpt, matching_list, serial, spt
from .model import Instance as Instance
from .model import Kernel as Kernel
from .model import Pair as Pair
from .model import Segment as Segment
from .model import Solution as Solution
from .model import evaluate as evaluate
from .model import validate as validate
from .plot import plot_solution
from .special_cases import matching_paired, mcnaughton

_PROFILE = {
    "type": "object",
    "description": "provenance only, any key (descriptive fields of a kernel go here): sm_demand, class (compute|memory|unknown), grid, block, registers, shared_memory, app, ...",
}

DATA_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "coschedule data",
    "type": "object",
    "required": ["kernels"],
    "additionalProperties": False,
    "properties": {
        "kernels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["duration"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "duration": {"type": "integer", "minimum": 1, "description": "solo duration in time_unit"},
                    "profile": _PROFILE,
                },
            },
        },
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["a", "b", "rate_a", "rate_b"],
                "additionalProperties": False,
                "properties": {
                    "a": {"type": "integer", "minimum": 0},
                    "b": {"type": "integer", "minimum": 0},
                    "rate_a": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "rate_b": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                },
            },
        },
        "gpu": {"type": "object", "additionalProperties": False, "properties": {"name": {"type": "string"}, "sms": {"type": "integer", "minimum": 1}}},
        "streams": {
            "type": "array",
            "description": "ordered kernel lists (CUDA streams): kernels of one stream run one after another in list order "
            "(start of k+1 >= end of k) and never co-run; each kernel in at most one stream; absent = independent kernels",
            "items": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}},
        },
    },
}

PROBLEM = register_problem(
    Problem(
        name="coschedule",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="auto",
        data_schema=DATA_SCHEMA,
        generators={"uniform": generate_uniform, "all-ones": generate_all_ones, "sm-model": generate_sm_model},
        importers={"orion": import_orion, "kineto": import_kineto, "gavel": import_gavel},
        plot=plot_solution,
        lower_bound=bounds.best,
    )
)


def auto_choice(instance: Instance) -> str:
    """The method ``auto`` runs: ``milp`` with streams, else ``lp-preemptive``."""
    return "milp" if instance.streams else "lp-preemptive"


def auto(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options):
    """Default method: ``lp-preemptive`` on independent kernels, ``milp`` with streams."""
    chosen = PROBLEM.method(auto_choice(instance))
    chosen.check_options(options)  # auto forwards options: refuse bad ones as the chosen method would
    result = chosen.func(instance, time_limit=time_limit, seed=seed, **options)
    return result.with_note(f"auto chose {chosen.name}")


PROBLEM.add_method("auto", auto, kind="exact", forwards_options=True)
PROBLEM.add_method("lp-preemptive", lp_preemptive, kind="exact")
PROBLEM.add_method("milp-min-preemptions", milp_min_preemptions, kind="exact")
PROBLEM.add_method("milp", milp_nonpreemptive, kind="exact")
PROBLEM.add_method("cpsat", cpsat_nonpreemptive, kind="exact")
PROBLEM.add_method("mcnaughton", mcnaughton, kind="special")
PROBLEM.add_method("matching-paired", matching_paired, kind="special")
PROBLEM.add_method("serial", serial, kind="baseline")
PROBLEM.add_method("fifo", fifo, kind="baseline")
PROBLEM.add_method("lpt", lpt, kind="heuristic")
PROBLEM.add_method("spt", spt, kind="heuristic")
PROBLEM.add_method("greedy-partner", greedy_partner, kind="heuristic")
PROBLEM.add_method("matching-list", matching_list, kind="heuristic")
PROBLEM.add_method("lp-merge", lp_merge, kind="heuristic")
PROBLEM.add_method("local-search", local_search, kind="heuristic")
PROBLEM.add_method("brute-force", brute_force_nonpreemptive, kind="brute-force")

#: Methods that return non-preemptive schedules (one segment per kernel).
NONPREEMPTIVE_METHODS = (
    "milp", "cpsat", "brute-force", "matching-paired", "serial", "fifo", "lpt", "spt",
    "greedy-partner", "matching-list", "lp-merge", "local-search",
)
PREEMPTIVE_METHODS = ("lp-preemptive", "milp-min-preemptions", "mcnaughton")
#: Methods that return NOT_APPLICABLE on instances with streams (they ignore the stream order).
STREAM_BLIND_METHODS = ("lp-preemptive", "milp-min-preemptions", "mcnaughton", "matching-paired")
