"""checkpoint: activation rematerialization on chains (rotor's DP, Revolve, exact models, baselines).

See ``docs/checkpoint.md`` and ``../shared/spec/checkpoint.md``. Importing
this package registers the problem and its methods.
"""

from ..core.registry import Problem, register_problem
from . import bounds as bounds
from . import formulations, h_revolve, heuristics, offload_dp, offload_greedy, special_cases
from .bounds import best as lower_bound
from .generate import (
    GENERATORS as GENERATORS,
)
from .generate import (
    generate_homogeneous as generate_homogeneous,
)
from .generate import (
    generate_random as generate_random,
)
from .generate import (
    generate_transformer as generate_transformer,
)
from .generate import (
    import_kineto as import_kineto,
)
from .generate import (
    import_pipedream as import_pipedream,
)
from .model import (
    DATA_SCHEMA as DATA_SCHEMA,
)
from .model import (
    Instance as Instance,
)
from .model import (
    Solution as Solution,
)
from .model import (
    evaluate as evaluate,
)
from .model import (
    memory_lower_bound as memory_lower_bound,
)
from .model import (
    memory_profile as memory_profile,
)
from .model import (
    store_all_peak as store_all_peak,
)
from .model import (
    validate as validate,
)
from .plot import plot_solution as plot_solution

PROBLEM = register_problem(
    Problem(
        name="checkpoint",
        instance_type=Instance,
        solution_type=Solution,
        evaluate=evaluate,
        validate=validate,
        default_method="dp",
        data_schema=DATA_SCHEMA,
        generators=dict(GENERATORS),
        importers={"pipedream": import_pipedream, "kineto": import_kineto},
        plot=plot_solution,
        lower_bound=lower_bound,
    )
)


def _remat_only(method):
    """``method`` (a remat-only method of kind ``chain``) on a ``chain-offload`` instance: run it on the chain.

    Its sequence (no link operations, run back to back) is a valid two-level
    schedule of the same makespan; its optimality and bounds hold for remat
    only, so OPTIMAL becomes FEASIBLE and only Σfw + Σbw stays as a bound
    (offloading can beat the remat optimum). Below the remat-only memory
    floor the method is NOT_APPLICABLE. A sequence too long to be checked
    against the two-level definition in the time left
    (`model.too_long_to_check`) is not returned: TIME_LIMIT_NO_SOLUTION.
    """
    import functools

    from ..core.deadline import Deadline
    from ..core.errors import InfeasibleError, InvalidInstanceError
    from ..core.result import Result, Status
    from .model import too_long_to_check

    @functools.wraps(method)
    def wrapped(instance, /, *, time_limit, seed, params):
        if instance.kind != "chain-offload":
            return method(instance, time_limit=time_limit, seed=seed, params=params)
        deadline = Deadline.after(time_limit)
        # Below the remat-only floor the two-level instance may still be feasible (offloading): say what to run.
        offload = "recomputation alone cannot fit here; offloading may: try -m offload-greedy or -m offload-dp"
        try:
            chain = instance.as_chain()
        except InvalidInstanceError as error:
            return Result(status=Status.NOT_APPLICABLE, notes=(f"{offload} (as a chain: {error})",))
        try:
            result = method(chain, time_limit=time_limit, seed=seed, params=params)
        except InfeasibleError as error:
            return Result(status=Status.NOT_APPLICABLE, notes=(f"{offload} (remat only: {error})",))
        if result.solution is not None:
            # the chain's check is cheaper than the two-level definition that will check it here
            why = too_long_to_check(instance.kind, len(result.solution.sequence), deadline)
            if why is not None:
                return Result(status=Status.TIME_LIMIT_NO_SOLUTION, notes=(*result.notes, why))
        status = Status.FEASIBLE if result.status is Status.OPTIMAL else result.status
        notes = (*result.notes, "remat only, run back to back (no link operation used)")
        bound = float(instance.compute_time) if result.solution is not None else None
        return Result(status=status, solution=result.solution, bound=bound, notes=notes, solver=result.solver)

    return wrapped


PROBLEM.add_method("dp", _remat_only(formulations.dp), kind="exact", params=formulations.DpParams)
PROBLEM.add_method("cpsat", _remat_only(formulations.cpsat), kind="exact", params=formulations.CpsatParams)
PROBLEM.add_method(
    "brute-force", _remat_only(formulations.brute_force), kind="brute-force", params=formulations.BruteForceParams
)
PROBLEM.add_method("store-all", _remat_only(special_cases.store_all), kind="special")
PROBLEM.add_method("revolve", _remat_only(special_cases.revolve), kind="special")
PROBLEM.add_method("recompute-all", _remat_only(heuristics.recompute_all), kind="baseline")
PROBLEM.add_method("chen", _remat_only(heuristics.chen), kind="heuristic")
PROBLEM.add_method("checkpoint-sequential", _remat_only(heuristics.checkpoint_sequential), kind="heuristic")
PROBLEM.add_method("revolve-repaired", _remat_only(heuristics.revolve_repaired), kind="heuristic")
PROBLEM.add_method("greedy", _remat_only(heuristics.greedy), kind="heuristic")
PROBLEM.add_method(
    "dp-coarse", _remat_only(formulations.dp_coarse), kind="heuristic", params=formulations.CoarseDpParams
)

PROBLEM.add_method("cpsat-offload", formulations.cpsat_offload, kind="exact", params=formulations.CpsatOffloadParams)
PROBLEM.add_method(
    "brute-force-offload",
    formulations.brute_force_offload,
    kind="brute-force",
    params=formulations.BruteForceOffloadParams,
)
PROBLEM.add_method("h-revolve", h_revolve.h_revolve, kind="special")
PROBLEM.add_method(
    "offload-greedy", offload_greedy.offload_greedy, kind="heuristic", params=offload_greedy.OffloadGreedyParams
)
PROBLEM.add_method("offload-dp", offload_dp.offload_dp, kind="heuristic", params=offload_dp.OffloadDpParams)

#: Method names by role (tests and benchmarks).
EXACT_METHODS = ("dp", "cpsat", "brute-force")
HEURISTIC_METHODS = ("recompute-all", "chen", "checkpoint-sequential", "revolve-repaired", "greedy", "dp-coarse")

__all__ = [
    "DATA_SCHEMA",
    "EXACT_METHODS",
    "HEURISTIC_METHODS",
    "PROBLEM",
    "Instance",
    "Solution",
    "bounds",
    "evaluate",
    "formulations",
    "generate_homogeneous",
    "generate_random",
    "generate_transformer",
    "heuristics",
    "import_kineto",
    "import_pipedream",
    "lower_bound",
    "memory_lower_bound",
    "memory_profile",
    "plot_solution",
    "special_cases",
    "store_all_peak",
    "validate",
]
