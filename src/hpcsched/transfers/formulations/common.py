"""What the exact formulations share: the warm start, re-timing, task groups, and reading a backend's outcome."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...solvers.outcome import Outcome
from .. import bounds
from ..heuristics import NEH_MAX_N, IteratedGreedyParams, best_constructive, iterated_greedy_search, neh_order
from ..model import Instance, Solution, makespan_of
from ..simulate import Simulator

NO_DEADLINE = Deadline(None)
WARM_START_STALL = 20  # iterations per task without improvement before the warm-start search stops

#: Transfer and compute starts read from a backend's schedule (task order of the instance).
Starts = tuple[list[int], list[int]]


@dataclass(frozen=True)
class WarmStart:
    """The best heuristic schedule: which heuristic found it, the schedule and its makespan."""

    name: str
    solution: Solution
    makespan: int


def incumbent(
    instance: Instance, search_seconds: float = 0.0, seed: int = 0, deadline: Deadline = NO_DEADLINE
) -> WarmStart:
    """Best heuristic schedule for the warm start and the horizon / big-M.

    The best static or dynamic rule, NEH when n <= `NEH_MAX_N`, and iterated
    greedy from there (seeded) when ``search_seconds`` is positive, stopped
    earlier after 20 n iterations without improvement (on small instances
    it would otherwise take the solver's time for nothing). The
    ``search_seconds`` count from the call, the rules included, and nothing
    runs past ``deadline`` (the method's): past it, the best rule scored so
    far is the warm start.
    """
    window = Deadline.after(search_seconds)
    if deadline.at is not None and (window.at is None or deadline.at < window.at):
        window = deadline
    start = best_constructive(instance, deadline)
    name, solution, value = start.name, start.solution, start.makespan
    if value <= bounds.best(instance) or deadline.expired():
        return WarmStart(name, solution, value)
    if search_seconds > 0:
        params = IteratedGreedyParams(stall=WARM_START_STALL * instance.n)
        order = iterated_greedy_search(instance, window, seed, params, start=start).order
        improved_name = "iterated-greedy"
    elif instance.n <= NEH_MAX_N:
        order, _ = neh_order(instance, deadline)
        improved_name = "neh"
    else:
        return WarmStart(name, solution, value)
    if order == start.order:  # nothing better found: no second simulation
        return WarmStart(name, solution, value)
    improved = Simulator(instance).schedule(order)
    assert improved is not None  # a permutation order never deadlocks once every task fits
    improved_value = makespan_of(instance, improved)
    if improved_value < value:
        return WarmStart(improved_name, improved, improved_value)
    return WarmStart(name, solution, value)


def warm_start_seconds(option: float | None, time_limit: float) -> float:
    """Search time of the warm start: the option, else 20 % of the time limit (at most 10 s)."""
    if option is not None:
        return float(option)
    return min(10.0, 0.2 * float(time_limit))


def proven_by_bound(instance: Instance, warm: WarmStart) -> Result | None:
    """OPTIMAL without a solve when the warm-start schedule already meets `bounds.best`."""
    lower = bounds.best(instance)
    if warm.makespan > lower:
        return None
    return Result(
        status=Status.OPTIMAL,
        objective=warm.makespan,
        bound=lower,
        solution=warm.solution,
        notes=(f"the warm-start schedule of {warm.name} meets the lower bound {lower}: no solve needed",),
    )


def out_of_time(instance: Instance, warm: WarmStart, notes: Sequence[str], phase: str) -> Result:
    """The warm-start schedule (FEASIBLE) with `bounds.best`, when the limit passes before the backend ends."""
    return Result(
        status=Status.FEASIBLE,
        objective=warm.makespan,
        bound=bounds.best(instance),
        solution=warm.solution,
        notes=(*notes, f"time limit reached while {phase}: returning the warm-start schedule of {warm.name}"),
    )


def retimed(instance: Instance, transfer_start: list[int], compute_start: list[int]) -> Solution:
    """The earliest-start schedule of the orders of a backend's schedule.

    The transfer order π sorts the tasks by s_i and the compute order σ by
    (t_i, t_i + p_i, position in π); the simulator's schedule of (π, σ) is
    feasible by construction and, when the backend's schedule is feasible, no
    later (the argument of ``brute-force`` in docs/transfers.md). A MILP's
    values are doubles within HiGHS' tolerances: with a big-M H, a binary
    that is 1e-6 off integrality relaxes a disjunction by 1e-6 H time units,
    so rounding the starts alone can overlap two operations or overfill
    memory; re-timing the orders cannot.
    """
    simulator = Simulator(instance)
    order = sorted(range(instance.n), key=lambda i: (transfer_start[i], i))
    position = {task: k for k, task in enumerate(order)}
    compute_order = sorted(
        range(instance.n),
        key=lambda i: (compute_start[i], compute_start[i] + instance.tasks[i].compute, position[i]),
    )
    solution = simulator.schedule(order, compute_order)
    if solution is None:
        solution = simulator.schedule(order, order)
    assert solution is not None  # σ = π never deadlocks once every task fits
    return solution


def identical_groups(instance: Instance) -> list[list[int]]:
    """Groups (of size ≥ 2) of tasks with equal transfer, compute and memory."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, task in enumerate(instance.tasks):
        groups.setdefault((task.transfer, task.compute, task.memory), []).append(i)
    return [members for members in groups.values() if len(members) > 1]


def conflict_cliques(instance: Instance) -> list[list[int]]:
    """Cliques (size ≥ 2) covering every conflicting pair (m_i + m_j > M) of the threshold graph."""
    capacity, memory = instance.capacity, instance.memory
    big = [i for i in range(instance.n) if 2 * memory[i] > capacity]
    cliques = [big] if len(big) > 1 else []
    for k in range(instance.n):
        if 2 * memory[k] <= capacity:
            partners = [i for i in big if memory[i] + memory[k] > capacity]
            if partners:
                cliques.append([k, *partners])
    return cliques


def integer_bound(outcome: Outcome, slack: float) -> int | None:
    """The backend's dual bound as a proven integer bound: lowered by ``slack`` (its tolerances), rounded up."""
    bound = outcome.bound
    if bound is None or not math.isfinite(bound):
        return None
    return math.ceil(bound - 1e-6 - slack)  # integer makespan: a fractional bound rounds up


def finish(
    instance: Instance,
    outcome: Outcome,
    starts: Starts | None,
    use_lower_bound: bool,
    notes: list[str],
    fallback: Solution | None = None,
    bound_slack: float = 0.0,
) -> Result:
    """Turn a backend Outcome into a Result (bound combined with `bounds.best` if asked).

    ``bound_slack``: how far the backend's dual bound may lie above the true
    optimum because of its tolerances (the MILP's big-M rows); it is
    subtracted before the integer rounding. ``fallback`` is the heuristic
    schedule that set the horizon: a feasible point of the model, returned
    when the backend has none or a worse one.
    """
    bound = integer_bound(outcome, bound_slack)
    if use_lower_bound:
        best = bounds.best(instance)
        bound = best if bound is None else max(bound, best)
    status = outcome.status
    if not outcome.has_solution or starts is None:
        if fallback is None or status is not Status.TIME_LIMIT_NO_SOLUTION:
            status = status if status is not Status.OPTIMAL else Status.ERROR
            return Result(
                status=status, bound=bound, solver=outcome.backend, notes=(*notes, f"backend: {outcome.message}")
            )
        solution, status = fallback, Status.FEASIBLE
        notes.append("backend found no incumbent in time: returning the heuristic schedule of the horizon")
    else:
        solution = Solution(tuple(starts[0]), tuple(starts[1]))
        if fallback is not None and makespan_of(instance, fallback) < makespan_of(instance, solution):
            solution = fallback
            notes.append("the heuristic schedule of the horizon beats the backend incumbent: returned instead")
    objective = makespan_of(instance, solution)
    if status is Status.FEASIBLE and bound is not None and objective <= bound:
        status = Status.OPTIMAL
        notes.append("objective meets the lower bound")
    return Result(
        status=status,
        objective=objective,
        bound=bound,
        solution=solution,
        solver=outcome.backend,
        notes=(*notes, f"backend: {outcome.message}"),
    )
