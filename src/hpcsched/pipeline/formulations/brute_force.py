"""Brute force: every tuple of per-device orders (makespan), every periodic schedule of each period (period).

Makespan: `order_search` enumerates the canonical job sequences, i.e. every
tuple of per-device orders once, each timed semi-actively; by the
memory-order lemma this is exact. Period: for P from the lower bound up,
`period_search` looks for a schedule of period P inside the period horizon
(exact by the horizon theorem); the first P that has one is optimal. The
search up to P = R T1 (T1: the shortest schedule of one micro-batch alone,
itself found by the order search) always ends: R micro-batches run one
after the other with period R T1 fit whenever one micro-batch alone fits.
Proofs: docs/pipeline.md, "Why brute force is exact".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ...core.deadline import Deadline, TimeLimitReached
from ...core.errors import InfeasibleError
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution, require_fits
from .order_search import search_orders
from .period_search import PeriodSearch

#: Default size limits: jobs (micro-batches x blocks) of a makespan instance, of one period.
BRUTE_FORCE_MAX_JOBS = 24
BRUTE_FORCE_MAX_PERIOD_JOBS = 8


@dataclass(frozen=True)
class BruteForceParams:
    """Options of `brute_force`.

    Attributes
    ----------
    max_jobs
        Largest N x B searched for a makespan instance; larger is NOT_APPLICABLE.
    max_period_jobs
        Largest R x B searched for a period instance; larger is NOT_APPLICABLE.
    stop_at_bound
        Stop at the first schedule meeting `bounds.best` (makespan); False
        searches everything, for checks that must not lean on the bounds.
    """

    max_jobs: int = BRUTE_FORCE_MAX_JOBS
    max_period_jobs: int = BRUTE_FORCE_MAX_PERIOD_JOBS
    stop_at_bound: bool = True

    def __post_init__(self) -> None:
        at_least("max_jobs", self.max_jobs, 1)
        at_least("max_period_jobs", self.max_period_jobs, 1)


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: BruteForceParams | None) -> Result:
    """Exhaustive search of per-device orders (makespan) or of periodic schedules (period); tiny instances only.

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds for the whole search (then FEASIBLE with the best found, or
        TIME_LIMIT_NO_SOLUTION).
    seed
        Unused (deterministic).
    params
        `BruteForceParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL, INFEASIBLE (no schedule fits in memory, proven by the
        exhaustive search), FEASIBLE or TIME_LIMIT_NO_SOLUTION on the time
        limit, NOT_APPLICABLE above the size limits.
    """
    require_fits(instance)
    params = params or BruteForceParams()
    jobs = instance.micro_batches * instance.n_blocks
    limit = params.max_period_jobs if instance.is_period else params.max_jobs
    if jobs > limit:
        what = "R x B" if instance.is_period else "N x B"
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{what} = {jobs} jobs > {limit}: too many to enumerate",))
    deadline = Deadline.after(time_limit)
    if instance.is_period:
        return _period(instance, deadline)
    return _makespan(instance, deadline, params.stop_at_bound)


def _makespan(instance: Instance, deadline: Deadline, stop_at_bound: bool) -> Result:
    lower = bounds.best(instance)
    search = search_orders(instance, deadline, lower if stop_at_bound else -math.inf)
    note = f"{search.nodes} jobs appended"
    if search.best_start is None:
        if search.timed_out:
            return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=lower, notes=(note,))
        raise InfeasibleError("no tuple of per-device orders fits in memory (exhaustive search)")
    solution = Solution.makespan(search.best_start)
    if search.timed_out:
        return Result(status=Status.FEASIBLE, solution=solution, bound=lower, notes=(f"time limit; {note}",))
    return Result(status=Status.OPTIMAL, solution=solution, bound=search.best_makespan, notes=(note,))


def lone_makespan(instance: Instance, deadline: Deadline) -> tuple[int, list[int]] | None:
    """The shortest schedule of one micro-batch alone: ``(makespan, starts)``, None when none fits in memory.

    Raises `TimeLimitReached` when the deadline cuts the search (nothing is proven then).
    """
    alone = replace(instance, objective="makespan", micro_batches=1)
    search = search_orders(alone, deadline, bounds.best(alone))
    if search.timed_out:
        raise TimeLimitReached("the search of one micro-batch's schedule")
    if search.best_start is None:
        return None
    return int(search.best_makespan), search.best_start[0]


def _period(instance: Instance, deadline: Deadline) -> Result:
    lower = bounds.best(instance)
    try:
        lone = lone_makespan(instance, deadline)
    except TimeLimitReached:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=lower, notes=("time limit",))
    if lone is None:
        raise InfeasibleError("no schedule of one micro-batch alone fits in memory, so no periodic schedule does")
    lone_span, lone_start = lone
    upper = instance.micro_batches * lone_span
    # fallback: the micro-batches one after the other, period R T1
    fallback = Solution.periodic(
        upper, [[s + r * lone_span for s in lone_start] for r in range(instance.micro_batches)]
    )
    nodes = 0
    for period in range(lower, upper):
        search = PeriodSearch(instance, period, deadline)
        try:
            found = search.run()
        except TimeLimitReached:
            notes = (f"time limit while trying period {period}; {nodes + search.nodes} offsets tried",)
            return Result(status=Status.FEASIBLE, solution=fallback, bound=period, notes=notes)
        nodes += search.nodes
        if found:
            assert search.found is not None
            return Result(
                status=Status.OPTIMAL,
                solution=Solution.periodic(period, search.found),
                bound=period,
                notes=(_tried(lower, period, nodes),),
            )
    note = "micro-batches one after the other meet the lower bound"
    if upper > lower:
        note = f"periods {lower}..{upper - 1} have no schedule ({nodes} offsets tried): one micro-batch after another"
    return Result(status=Status.OPTIMAL, solution=fallback, bound=upper, notes=(note,))


def _tried(lower: int, period: int, nodes: int) -> str:
    if period == lower:
        return f"the lower bound {lower} is met; {nodes} offsets tried"
    return f"periods {lower}..{period - 1} have no schedule; {nodes} offsets tried"
