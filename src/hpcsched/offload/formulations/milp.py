"""``milp-fixed-order``: the exact MILP of the fixed-order restricted problem, an upper bound of the problem.

The restricted problem is the problem plus two chains: for offloaded i < j,
offload_i ends before offload_j starts (out channel) and prefetch_j ends
before prefetch_i starts (in channel).  Fixing the orders is *not* w.l.o.g.,
so the method claims OPTIMAL only when its makespan meets a proven lower
bound of the problem (`bounds.best`, also its ``bound``); the MILP's own
bound, a bound of the restricted model only, goes to ``notes``.

Notes
-----
The model and why it is exact for the restricted problem: docs/offload.md, "The fixed-order MILP".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from ...core.deadline import Deadline, TimeLimitReached, now
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..heuristics import best_heuristic_solution
from ..model import Instance, Solution, check_feasible, validate
from ..simulate import simulate, simulation_deadline
from .cpsat_model import exact_timing, makespan
from .milp_model import FixedOrderMilp, build_milp_fixed_order, follows_fixed_orders


@dataclass(frozen=True)
class MilpFixedOrderParams:
    """Options of ``milp-fixed-order``.

    Attributes
    ----------
    backend
        The MILP backend (PuLP's HiGHS or CBC).
    workers
        Backend threads.
    heuristic_time
        Seconds for the heuristic whose makespan is the big-M horizon (None: a tenth of the time
        limit, at most 1 s).
    """

    backend: Literal["highs", "cbc"] = "highs"
    workers: int = 2
    heuristic_time: float | None = None

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)
        at_least("heuristic_time", self.heuristic_time, 0.0)


def milp_fixed_order(
    instance: Instance, /, *, time_limit: float, seed: int, params: MilpFixedOrderParams | None
) -> Result:
    """Exact MILP of the fixed-order restricted problem; an upper bound of the problem.

    Parameters
    ----------
    instance
        The chain to schedule.
    time_limit
        Seconds for every phase: the heuristic, the build (its rows are checked against the
        deadline), the hand-over to the backend and the solves.
    seed
        Seed of the heuristic and of the backend.
    params
        `MilpFixedOrderParams` (None: the defaults).

    Returns
    -------
    Result
        The MILP's schedule (or, when time runs out before the MILP has an incumbent, the horizon
        schedule, valid and keeping the orders), OPTIMAL only when it meets `bounds.best`, the bound.
    """
    params = params or MilpFixedOrderParams()
    check_feasible(instance)
    budget = float(time_limit)
    deadline = Deadline.after(budget)
    heuristic_time = params.heuristic_time if params.heuristic_time is not None else min(1.0, 0.1 * budget)
    reference = _fixed_order_horizon(instance, heuristic_time, seed, deadline)
    run = _MilpRun(instance, params, seed, deadline, reference)
    return run.solve()


def _fixed_order_horizon(instance: Instance, time_limit: float, seed: int, deadline: Deadline) -> Solution:
    """A schedule that keeps the fixed orders, as short as the heuristics find (its makespan is the big-M horizon).

    `best_heuristic_solution` may reorder the channels (its order local search), so its schedule
    is used only if `follows_fixed_orders` accepts it; otherwise its set, and offload-all, are timed
    by the simulator with its default orders (offloads in production order, prefetches in order of
    use: the fixed orders, checked again here).  Offload-all always fits on a feasible instance.
    Past ``deadline`` the first valid candidate is taken (each further one is a simulation, ~0.6 s
    on 2,000 layers).
    """
    with simulation_deadline(deadline):  # every simulation of the heuristics stops at the method's deadline
        heuristic = best_heuristic_solution(instance, time_limit=time_limit, seed=seed)
    candidates = (
        lambda: heuristic,
        lambda: simulate(instance, heuristic.offloaded, deadline=deadline),
        lambda: simulate(instance, instance.offloadable, deadline=deadline),
    )
    valid: list[Solution] = []
    for candidate in candidates:
        if valid and deadline.expired():
            break
        try:
            schedule = candidate()
        except TimeLimitReached:  # a simulation at the method's deadline: the first valid candidate stands
            break
        if schedule is not None and follows_fixed_orders(instance, schedule) and not validate(instance, schedule):
            valid.append(schedule)
    return min(valid, key=lambda c: makespan(instance, c))


def _milp_schedule(model: FixedOrderMilp, value) -> tuple[Solution, float]:
    """The MILP's schedule with its times rounded, and the largest distance of a time to its rounding."""
    chosen = [i for i, o in model.offloaded.items() if value(o) > 0.5]
    forward = [value(v) for v in model.forward_start]
    backward = [value(v) for v in model.backward_start]
    offload = {i: value(model.offload_start[i]) for i in chosen}
    prefetch = {i: value(model.prefetch_start[i]) for i in chosen}
    flat = forward + backward + list(offload.values()) + list(prefetch.values())
    drift = max((abs(t - round(t)) for t in flat), default=0.0)
    solution = Solution(
        tuple(chosen),
        tuple(round(t) for t in forward),
        tuple(round(t) for t in backward),
        {i: round(t) for i, t in offload.items()},
        {i: round(t) for i, t in prefetch.items()},
    )
    return solution, drift


@dataclass
class _MilpRun:
    """The phases of `milp_fixed_order` after the horizon heuristic: build, hand over, solve, repair."""

    instance: Instance
    params: MilpFixedOrderParams
    seed: int
    deadline: Deadline
    reference: Solution

    def __post_init__(self) -> None:
        self.horizon = makespan(self.instance, self.reference)
        self.lower = math.ceil(bounds.best(self.instance) - 1e-9)  # a proven bound of the problem
        self.notes = [
            f"restricted model (offloads in increasing i, prefetches in decreasing i): horizon "
            f"{self.horizon} from a heuristic schedule that keeps these orders"
        ]

    def horizon_schedule(self, why: str, solver: str | None = None) -> Result:
        # Like the other exact methods' warm starts: the horizon schedule keeps the fixed orders, so it
        # is a solution of the restricted model, and a user who asked for a schedule gets one.
        objective = self.horizon  # the reference's makespan
        return Result(
            status=Status.OPTIMAL if objective <= self.lower else Status.FEASIBLE,
            objective=objective,
            bound=self.lower,
            solution=self.reference,
            notes=(*self.notes, f"{why}: the horizon schedule is returned"),
            solver=solver,
        )

    def solve_lp(self, lp: Any) -> Any:
        from ...solvers.milp import solve_pulp

        return solve_pulp(
            lp,
            backend=self.params.backend,
            time_limit=self.deadline.remaining(),
            threads=self.params.workers,
            seed=self.seed,
        )

    def solve(self) -> Result:
        building = now()
        try:
            model = build_milp_fixed_order(self.instance, horizon=self.horizon, deadline=self.deadline)
        except TimeLimitReached as reached:
            return self.horizon_schedule(str(reached))
        build_seconds = now() - building
        left = self.deadline.remaining()
        assert left is not None, "the deadline of a time limit"
        if left < build_seconds:
            # Handing the model to the backend (PuLP writes every row again) takes about as long as building
            # it and cannot be interrupted: starting it now would overrun the limit.
            return self.horizon_schedule(
                f"built in {build_seconds:.1f} s, {self.deadline.remaining():.1f} s left, "
                "not enough to hand the MILP to the backend"
            )
        outcome = self.solve_lp(model.lp)
        self.notes.append(f"milp {outcome.message}")
        if outcome.bound is not None:
            # The restricted optimum is an integer (docs/offload.md), so the bound rounds up.
            self.notes.append(f"bound of the restricted model: {math.ceil(outcome.bound - 1e-6)}")
        if not outcome.has_solution:
            if outcome.status is Status.INFEASIBLE:  # the horizon's schedule is a solution: a modelling bug
                return Result(
                    status=Status.ERROR,
                    notes=(*self.notes, "restricted model infeasible although the horizon schedule keeps its orders"),
                    solver=outcome.backend,
                )
            return self.horizon_schedule("no MILP incumbent in time", outcome.backend)
        value = round(outcome.objective)
        solution = self.integral_schedule(model, outcome, value)
        objective = makespan(self.instance, solution)
        proven = objective <= self.lower  # a schedule that meets a proven bound of the problem is optimal
        if outcome.status is Status.OPTIMAL:
            self.notes.append(
                f"restricted optimum {value}"
                + (" meets the problem's lower bound" if proven else f"; problem lower bound {self.lower}")
            )
        return Result(
            status=Status.OPTIMAL if proven else Status.FEASIBLE,
            objective=objective,
            bound=self.lower,
            solution=solution,
            notes=tuple(self.notes),
            solver=outcome.backend,
        )

    def integral_schedule(self, model: FixedOrderMilp, outcome: Any, value: int) -> Solution:
        """The MILP's schedule on integer times: rounded, else the LP of the times, else CP-SAT's timing."""
        instance = self.instance
        solution, drift = _milp_schedule(model, outcome.value)
        if drift <= 1e-6 and not validate(instance, solution) and makespan(instance, solution) == value:
            return solution
        # Fix the binaries and solve the LP of the times: its vertices are integral (difference constraints).
        for var in model.binaries:
            var.lowBound = var.upBound = round(outcome.value(var))
        retimed = self.solve_lp(model.lp)
        self.notes.append(f"times of the MILP incumbent off integers by {drift:.2g}: LP of the times re-solved")
        if retimed.has_solution:
            solution, drift = _milp_schedule(model, retimed.value)
        if (
            not retimed.has_solution
            or drift > 1e-6
            or validate(instance, solution)
            or makespan(instance, solution) > value
        ):
            left = self.deadline.remaining()
            timing = exact_timing(
                instance, set(solution.offloaded), seed=self.seed, time_limit=None if left is None else max(0.0, left)
            )
            solution = timing.schedule if timing.schedule is not None else self.reference
            self.notes.append(
                "the MILP's offload set was re-timed by CP-SAT (exact_timing, orders free)"
                if timing.schedule is not None
                else "the horizon schedule is returned"
            )
        return solution
