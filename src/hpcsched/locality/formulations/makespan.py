"""Objective 1 (restricted assignment P|M_j|Cmax, NP-hard): CP-SAT and MILP on the replica pairs.

``x[j, i]`` binary for ``i in R_j`` only, ``sum_i x[j, i] = 1``,
``sum_j p_j x[j, i] <= C``, minimize ``C``; the trivial bound
``max(ceil(sum p / m), max p)`` is added as ``C >= LB`` (not the flow bound,
so that the model stays an independent check of the flow methods).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat
from ...solvers.milp import solve_pulp
from .. import bounds
from ..heuristics import lpt_assignment
from ..model import Instance, Solution, evaluate
from .common import (
    CHECK_EVERY,
    MILP_BOUND_TOLERANCE,
    ReplicaPairs,
    beyond_milp_range,
    chosen_assignment,
    not_applicable,
    result_of,
)


@dataclass(frozen=True)
class CpsatParams:
    """Options of `cpsat`.

    Attributes
    ----------
    workers
        CP-SAT workers.
    deterministic_time
        CP-SAT's ``max_deterministic_time`` (work units, the same on a loaded
        and an idle machine): a proof that must be reproducible uses it, with
        the time limit as a safety net only. None: no such limit.
    """

    workers: int = 2
    deterministic_time: float | None = None

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


@dataclass(frozen=True)
class MilpParams:
    """Options of `milp`.

    Attributes
    ----------
    backend
        ``"highs"`` or ``"cbc"`` (CBC gives no bound after a time limit).
    workers
        Backend threads.
    """

    backend: Literal["highs", "cbc"] = "highs"
    workers: int = 2

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)


class _AssignmentRows:
    """The variables of the replica pairs grouped per task (``once`` rows) and per server (``load`` rows)."""

    def __init__(self, instance: Instance, assign: list[Any], pairs: ReplicaPairs, deadline: Deadline, phase: str):
        durations = instance.durations.tolist()
        self.per_task: dict[int, list[Any]] = {}
        self.per_server: dict[int, list[tuple[Any, int]]] = {}
        for count, (variable, (j, i)) in enumerate(zip(assign, pairs.rows(), strict=True)):
            if count % CHECK_EVERY == 0:
                deadline.check(phase)
            self.per_task.setdefault(j, []).append(variable)
            self.per_server.setdefault(i, []).append((variable, durations[j]))


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpsatParams | None) -> Result:
    """CP-SAT for objective 1: Boolean assignment on replica pairs, max-load objective.

    Parameters
    ----------
    instance
        Objective 1 (else NOT_APPLICABLE), any durations.
    time_limit
        Seconds for building and solving.
    seed
        CP-SAT's ``random_seed``.
    params
        `CpsatParams`; None: the defaults.

    Returns
    -------
    Result
        OPTIMAL when CP-SAT proved it, else FEASIBLE with CP-SAT's incumbent
        or, when the limit leaves none (or a worse one), the LPT assignment
        (made first, O(pairs); also CP-SAT's hint); the bound is CP-SAT's, at
        least the trivial one when the LPT assignment is returned.
    """
    if instance.objective != "makespan":
        return not_applicable("objective 1 model; use milp-communication for objective 2")
    params = params or CpsatParams()
    deadline = Deadline.after(time_limit)
    servers = lpt_assignment(instance)
    start = Solution.from_assignment(servers, instance.servers)
    try:
        model, assign, pairs = _cpsat_model(instance, servers, deadline)
    except TimeLimitReached as reached:
        return _fallback(instance, start, str(reached))
    outcome = solve_cpsat(
        model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        seed=seed,
        workers=params.workers,
    )
    return _better(instance, result_of(outcome, chosen_assignment(instance, outcome, assign, pairs), 0.0), start)


def _cpsat_model(instance: Instance, start: Any, deadline: Deadline) -> tuple[Any, list[Any], ReplicaPairs]:
    """The CP-SAT model (its variables and pairs), hinted with ``start`` (the server of each task)."""
    phase = "building the CP-SAT model"
    pairs = ReplicaPairs.of(instance)
    model = new_model()
    lower = bounds.trivial_bound(instance)  # independent of the flow methods
    upper = int(instance.durations.sum())
    makespan = model.new_int_var(lower, max(lower, upper), "makespan")
    assign = [model.new_bool_var(f"x_{j}_{i}") for j, i in pairs.rows()]
    rows = _AssignmentRows(instance, assign, pairs, deadline, phase)
    for j, variables in enumerate(rows.per_task.values()):
        if j % CHECK_EVERY == 0:
            deadline.check(phase)
        model.add_exactly_one(variables)
    for terms in rows.per_server.values():
        deadline.check(phase)
        model.add(sum(p * v for v, p in terms) <= makespan)
    model.minimize(makespan)
    server_of = start.tolist()
    for count, (variable, (j, i)) in enumerate(zip(assign, pairs.rows(), strict=True)):
        if count % CHECK_EVERY == 0:
            deadline.check(phase)
        model.add_hint(variable, server_of[j] == i)
    deadline.check(phase)
    return model, assign, pairs


def _fallback(instance: Instance, start: Solution, why: str, bound: float | None = None) -> Result:
    """FEASIBLE with the LPT assignment (its trivial bound, or a better proven one) when the model gave none."""
    proven = float(bounds.trivial_bound(instance))
    return Result(
        status=Status.FEASIBLE,
        bound=proven if bound is None else max(proven, bound),
        solution=start,
        notes=(f"{why}: the LPT assignment (longest task first on its least-loaded replica)",),
    )


def _better(instance: Instance, result: Result, start: Solution) -> Result:
    """``result``, or the LPT assignment when the backend found nothing or something worse (time limit)."""
    if result.status is Status.OPTIMAL:
        return result
    if result.solution is None:
        if result.status.has_solution or result.status is Status.ERROR:
            return result  # a backend that claims a solution that was not read: ERROR stays
        return _fallback(instance, start, f"no incumbent from the backend ({result.status.value})", result.bound)
    if evaluate(instance, start)["makespan"] < evaluate(instance, result.solution)["makespan"]:
        return _fallback(instance, start, "the backend's incumbent is worse", result.bound)
    return result


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: MilpParams | None) -> Result:
    """MILP (PuLP + HiGHS) for objective 1: assignment binaries on replica pairs only.

    Parameters
    ----------
    instance
        Objective 1 (else NOT_APPLICABLE), total load at most 2^40 (else NOT_APPLICABLE).
    time_limit
        Seconds for building and solving.
    seed
        The backend's random seed.
    params
        `MilpParams`; None: the defaults.

    Returns
    -------
    Result
        OPTIMAL when the backend proved it, else FEASIBLE with the backend's
        incumbent or, when the limit leaves none (or a worse one), the LPT
        assignment (made first, O(pairs)); the backend's bound rounded down
        through its tolerance, at least the trivial one with the LPT assignment.
    """
    if instance.objective != "makespan":
        return not_applicable("objective 1 model; use milp-communication for objective 2")
    if refused := beyond_milp_range(instance):
        return refused
    params = params or MilpParams()
    deadline = Deadline.after(time_limit)
    start = Solution.from_assignment(lpt_assignment(instance), instance.servers)  # the fallback, O(pairs)
    try:
        model, assign, pairs = _milp_model(instance, deadline)
    except TimeLimitReached as reached:
        return _fallback(instance, start, str(reached))
    outcome = solve_pulp(
        model, backend=params.backend, time_limit=deadline.remaining(), threads=params.workers, seed=seed
    )
    solution = chosen_assignment(instance, outcome, assign, pairs)
    return _better(instance, result_of(outcome, solution, MILP_BOUND_TOLERANCE), start)


def _milp_model(instance: Instance, deadline: Deadline) -> tuple[Any, list[Any], ReplicaPairs]:
    """The PuLP model of objective 1 (its variables and pairs)."""
    import pulp

    phase = "building the MILP"
    pairs = ReplicaPairs.of(instance)
    model = pulp.LpProblem("locality_makespan", pulp.LpMinimize)
    # Only the trivial bound: the model stays independent of the flow methods it is checked against.
    makespan = pulp.LpVariable("makespan", lowBound=bounds.trivial_bound(instance))
    assign = [pulp.LpVariable(f"x_{j}_{i}", cat=pulp.LpBinary) for j, i in pairs.rows()]
    model += makespan
    rows = _AssignmentRows(instance, assign, pairs, deadline, phase)
    for j, variables in rows.per_task.items():
        if j % CHECK_EVERY == 0:
            deadline.check(phase)
        model += pulp.lpSum(variables) == 1, f"once_{j}"
    for i, terms in rows.per_server.items():
        deadline.check(phase)
        model += pulp.lpSum(p * v for v, p in terms) <= makespan, f"load_{i}"
    deadline.check(phase)
    return model, assign, pairs
