"""``brute-force``: every offload set (L <= 12), each timed exactly by CP-SAT; the minimum is the optimum."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers.cpsat import version
from ..model import Instance, check_feasible, kept_prefix_fits
from .cpsat_model import exact_timing, makespan


@dataclass(frozen=True)
class BruteForceParams:
    """Options of ``brute-force``.

    Attributes
    ----------
    max_layers
        Refuse (NOT_APPLICABLE) chains of more layers (2^L offload sets).
    """

    max_layers: int = 12

    def __post_init__(self) -> None:
        at_least("max_layers", self.max_layers, 1)


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceParams | None) -> Result:
    """Every offload set, each timed exactly by CP-SAT (L <= 12).

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for the enumeration; the sets not reached leave the result FEASIBLE.
    seed
        CP-SAT's seed.
    params
        `BruteForceParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL (bound = value) when every set was timed to proven optimality.
    """
    params = params or BruteForceParams()
    check_feasible(instance)
    if instance.n_layers > params.max_layers:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{instance.n_layers} layers > {params.max_layers}",))
    deadline = Deadline.after(time_limit)
    candidates = list(instance.offloadable)
    best, best_value, proven = None, math.inf, True
    subsets = (
        set(subset) for size in range(len(candidates) + 1) for subset in itertools.combinations(candidates, size)
    )
    for subset in subsets:
        if deadline.expired():
            proven = False
            break
        if not kept_prefix_fits(instance, subset):
            continue  # proven infeasible without a solver call
        left = deadline.remaining()
        timing = exact_timing(instance, subset, seed=seed, time_limit=10.0 if left is None else min(10.0, left))
        proven = proven and timing.proven
        if timing.schedule is not None and makespan(instance, timing.schedule) < best_value:
            best, best_value = timing.schedule, makespan(instance, timing.schedule)
    if best is None:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION)
    status = Status.OPTIMAL if proven else Status.FEASIBLE
    return Result(
        status=status,
        objective=best_value,
        bound=best_value if proven else None,
        solution=best,
        solver=version(),
        notes=(f"{2 ** len(candidates)} offload sets",),
    )
