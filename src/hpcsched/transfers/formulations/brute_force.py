"""Brute force: every transfer order × every compute order through the earliest-start simulator (n ≤ 6).

Why this is exact (every feasible schedule is matched or beaten by the
simulated schedule of its own orders) is proven in docs/transfers.md,
"Why brute force over order pairs is exact".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, require_fits
from ..simulate import Simulator

BRUTE_FORCE_MAX_N = 6


@dataclass(frozen=True)
class BruteForceParams:
    """Options of `brute_force`.

    Attributes
    ----------
    max_n
        Largest n enumerated ((n!)^2 order pairs); larger is NOT_APPLICABLE.
    stop_at_bound
        Stop at the first schedule meeting `bounds.best`; False enumerates every
        pair, for checks that must not lean on the bounds.
    """

    max_n: int = BRUTE_FORCE_MAX_N
    stop_at_bound: bool = True

    def __post_init__(self) -> None:
        at_least("max_n", self.max_n, 1)


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceParams | None) -> Result:
    """Every transfer order x every compute order through the simulator (n <= 6).

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds; checked after each transfer order (then FEASIBLE).
    seed
        Unused (deterministic).
    params
        `BruteForceParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL (the minimum over all order pairs is the optimum), FEASIBLE on
        the time limit, NOT_APPLICABLE above ``max_n``.
    """
    require_fits(instance)
    params = params or BruteForceParams()
    if instance.n > params.max_n:
        return Result(
            status=Status.NOT_APPLICABLE, notes=(f"n = {instance.n} > {params.max_n}: (n!)^2 order pairs is too many",)
        )
    deadline = Deadline.after(time_limit)
    simulator = Simulator(instance)
    lower = bounds.best(instance) if params.stop_at_bound else -math.inf
    best_value, best_pair = math.inf, None
    stopped_early = timed_out = False
    orders = list(itertools.permutations(range(instance.n)))
    for transfer_order in orders:
        for compute_order in orders:
            value = simulator.makespan(transfer_order, compute_order)
            if value < best_value:
                best_value, best_pair = value, (transfer_order, compute_order)
                if best_value <= lower:
                    stopped_early = True
                    break
        if stopped_early:
            break
        if deadline.expired():
            timed_out = True
            break
    assert best_pair is not None  # σ = π never deadlocks once every task fits
    solution = simulator.schedule(*best_pair)
    if timed_out:
        return Result(
            status=Status.FEASIBLE,
            objective=best_value,
            bound=bounds.best(instance),
            solution=solution,
            notes=("time limit before all order pairs were tried",),
        )
    note = "stopped at the lower bound" if stopped_early else f"all {len(orders) ** 2} order pairs tried"
    return Result(status=Status.OPTIMAL, objective=best_value, bound=best_value, solution=solution, notes=(note,))
