"""coschedule: co-scheduling GPU kernels two at a time, with and without preemption.

See ``docs/coschedule.md``. The default method is ``auto``, a dispatcher:
``lp-preemptive`` on independent kernels, ``milp`` on instances with streams
(the LP ignores the stream order; the MILP honours it, and within its time
limit returns at least the best list schedule). Without streams the
preemptive variant is treated as the primary problem because its optimum is
an LP (polynomial, proven optimal at every size, n = 2,000 in seconds), it is
the paper's central result, and it is the yardstick (lower bound) of every
non-preemptive method. The non-preemptive exact methods (``milp``,
``cpsat``, ``brute-force``) prove optima only for small n.
"""

from ..core.registry import Problem, register_problem
from . import bounds, formulations, heuristics, special_cases
from .formulations import CpsatParams, LpParams, MinPreemptionsParams
from .generate import generate_all_ones, generate_sm_model, generate_uniform, import_gavel, import_kineto, import_orion
from .heuristics import LocalSearchParams
from .model import DATA_SCHEMA, Instance, Kernel, Pair, Segment, Solution, evaluate, validate
from .plot import plot_solution

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


PROBLEM.add_dispatcher(
    "auto",
    auto_choice,
    kind="exact",
    summary="Default method: lp-preemptive on independent kernels, milp with streams.",
)
#: What the preemptive methods answer: compare and study reports label them and never rank them
#: against the non-preemptive ones (a preemptive makespan may beat every non-preemptive schedule).
PREEMPTIVE_QUESTION = "preemptive schedule (kernels may be split)"
PROBLEM.add_method("lp-preemptive", formulations.lp, kind="exact", params=LpParams, answers=PREEMPTIVE_QUESTION)
PROBLEM.add_method(
    "milp-min-preemptions",
    formulations.milp_min_preemptions,
    kind="exact",
    params=MinPreemptionsParams,
    answers=PREEMPTIVE_QUESTION,
)
PROBLEM.add_method("milp", formulations.milp, kind="exact")
PROBLEM.add_method("cpsat", formulations.cpsat, kind="exact", params=CpsatParams)
PROBLEM.add_method("mcnaughton", special_cases.mcnaughton, kind="special", answers=PREEMPTIVE_QUESTION)
PROBLEM.add_method("matching-paired", special_cases.matching_paired, kind="special")
PROBLEM.add_method("serial", heuristics.serial, kind="baseline")
PROBLEM.add_method("fifo", heuristics.fifo, kind="baseline")
PROBLEM.add_method("lpt", heuristics.lpt, kind="heuristic")
PROBLEM.add_method("spt", heuristics.spt, kind="heuristic")
PROBLEM.add_method("greedy-partner", heuristics.greedy_partner, kind="heuristic")
PROBLEM.add_method("matching-list", heuristics.matching_list, kind="heuristic")
PROBLEM.add_method("lp-merge", heuristics.lp_merge, kind="heuristic")
PROBLEM.add_method("local-search", heuristics.local_search, kind="heuristic", params=LocalSearchParams)
PROBLEM.add_method("brute-force", formulations.brute_force, kind="brute-force")

#: Methods that return non-preemptive schedules (one segment per kernel).
NONPREEMPTIVE_METHODS = (
    "milp", "cpsat", "brute-force", "matching-paired", "serial", "fifo", "lpt", "spt",
    "greedy-partner", "matching-list", "lp-merge", "local-search",
)  # fmt: skip
PREEMPTIVE_METHODS = ("lp-preemptive", "milp-min-preemptions", "mcnaughton")
#: Methods that return NOT_APPLICABLE on instances with streams (they ignore the stream order).
STREAM_BLIND_METHODS = ("lp-preemptive", "milp-min-preemptions", "mcnaughton", "matching-paired")

__all__ = [
    "DATA_SCHEMA",
    "NONPREEMPTIVE_METHODS",
    "PREEMPTIVE_METHODS",
    "PROBLEM",
    "STREAM_BLIND_METHODS",
    "CpsatParams",
    "Instance",
    "Kernel",
    "LocalSearchParams",
    "LpParams",
    "MinPreemptionsParams",
    "Pair",
    "Segment",
    "Solution",
    "auto_choice",
    "bounds",
    "evaluate",
    "formulations",
    "generate_all_ones",
    "generate_sm_model",
    "generate_uniform",
    "heuristics",
    "import_gavel",
    "import_kineto",
    "import_orion",
    "plot_solution",
    "special_cases",
    "validate",
]
