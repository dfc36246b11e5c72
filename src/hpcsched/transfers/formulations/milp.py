"""Disjunctive MILP on PuLP (HiGHS by default, CBC possible).

z_ij = 1 if transfer i starts before transfer j (z_ji = 1 − z_ij), y_ij the
same for computations, w_ij = 1 if i has finished by s_j (w_ij ≤ z_ij,
t_i + p_i ≤ s_j + H(1 − w_ij)). Memory row per task j:
m_j + Σ_{i≠j} m_i (z_ij − w_ij) ≤ M. Starts are integer variables. The
big-M H is the makespan of the warm-start schedule. Why each row is right
(and why the memory rows checked at transfer starts are exact) is in
docs/transfers.md.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import Any, Literal

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers.milp import solve_pulp
from .. import bounds
from ..model import Instance, require_fits
from .common import finish, identical_groups, incumbent, out_of_time, proven_by_bound, retimed, warm_start_seconds

#: HiGHS' largest matrix coefficient / bound (its ``large_matrix_value`` is 1e15); the MILP stays below it.
MILP_LARGEST_COEFFICIENT = 10**15
#: HiGHS' MIP feasibility (integrality) tolerance: a binary may sit this far from 0 or 1, which relaxes a
#: big-M row by this times H. The dual bound is lowered by that much before it is rounded up.
MILP_TOLERANCE = 1e-6


@dataclass(frozen=True)
class MilpParams:
    """Options of `milp`.

    Attributes
    ----------
    backend
        ``"highs"`` or ``"cbc"`` (PuLP reports no bound from CBC: after a time limit the bound is
        `bounds.best`, or none with ``lower_bound=False``).
    lower_bound
        C ≥ `bounds.best`; a warm-start schedule meeting it is OPTIMAL without a solve.
    symmetry
        Identical tasks in index order on both machines (z_ij = y_ij = 1 for i < j).
    conflicts
        w_ij + w_ji ≥ 1 for pairs that never fit together.
    warm_start_seconds
        Iterated-greedy time of the warm start (None: 20 % of the time limit, at most 10 s).
    workers
        Backend threads.
    """

    backend: Literal["highs", "cbc"] = "highs"
    lower_bound: bool = True
    symmetry: bool = True
    conflicts: bool = True
    warm_start_seconds: float | None = None
    workers: int = 2

    def __post_init__(self) -> None:
        at_least("warm_start_seconds", self.warm_start_seconds, 0)
        at_least("workers", self.workers, 1)


@dataclass(frozen=True)
class MilpModel:
    """A built PuLP problem and its start variables."""

    problem: Any
    transfer_start: list[Any]
    compute_start: list[Any]


class _MilpBuilder:
    """The disjunctive MILP with big-M ``horizon``, one method per row family; checks ``deadline`` while it builds."""

    def __init__(self, instance: Instance, horizon: int, params: MilpParams, deadline: Deadline):
        import pulp

        self.pulp = pulp
        self.instance, self.horizon, self.params, self.deadline = instance, horizon, params, deadline
        tasks = instance.tasks
        self.c = [task.transfer for task in tasks]
        self.p = [task.compute for task in tasks]
        self.m = [task.memory for task in tasks]
        self.problem = pulp.LpProblem("transfers", pulp.LpMinimize)
        self.before: dict[tuple[int, int], Any] = {}  # (i, j) -> expression equal to z_ij
        self.finished: dict[tuple[int, int], Any] = {}  # (i, j) -> w_ij
        self.identical: set[tuple[int, int]] = set()
        if params.symmetry:
            for group in identical_groups(instance):
                self.identical.update(itertools.combinations(group, 2))

    def build(self) -> MilpModel:
        self._starts_and_makespan()
        for i, j in itertools.combinations(range(self.instance.n), 2):
            if j == i + 1:
                self.deadline.check("building the MILP (disjunctions)")
            self._link_pair(i, j)
            self._device_pair(i, j)
        if sum(self.m) > self.instance.capacity:  # otherwise everything fits together: no memory row binds
            self._finished_indicators()
            self._memory_rows()
            if self.params.conflicts:
                self._conflict_rows()
        return MilpModel(self.problem, self.s, self.t)

    def _starts_and_makespan(self) -> None:
        problem, horizon, tasks = self.problem, self.horizon, self.instance.tasks
        self.s = [
            problem.add_variable(f"s{i}", 0, horizon - t.transfer - t.compute, cat="Integer")
            for i, t in enumerate(tasks)
        ]
        self.t = [
            problem.add_variable(f"t{i}", task.transfer, horizon - task.compute, cat="Integer")
            for i, task in enumerate(tasks)
        ]
        lowest = bounds.best(self.instance) if self.params.lower_bound else 0
        makespan = problem.add_variable("C", lowest, horizon)
        problem += makespan
        for i in range(self.instance.n):
            problem += self.t[i] >= self.s[i] + self.c[i]
            problem += makespan >= self.t[i] + self.p[i]

    def _link_pair(self, i: int, j: int) -> None:
        problem, horizon, s, c = self.problem, self.horizon, self.s, self.c
        if c[i] > 0 and c[j] > 0:
            if (i, j) in self.identical:
                z_ij: Any = 1  # identical tasks go in index order on both machines
            else:
                z_ij = problem.add_variable(f"z_{i}_{j}", cat="Binary")
            self.before[(i, j)], self.before[(j, i)] = z_ij, 1 - z_ij
            problem += s[j] >= s[i] + c[i] - horizon * (1 - z_ij)
            problem += s[i] >= s[j] + c[j] - horizon * z_ij
            return
        # An empty transfer overlaps nothing, so two starts may coincide; then both
        # tasks count in each other's memory row: z_ij = 1 iff s_i <= s_j (integers).
        z_ij = problem.add_variable(f"z_{i}_{j}", cat="Binary")
        z_ji = problem.add_variable(f"z_{j}_{i}", cat="Binary")
        self.before[(i, j)], self.before[(j, i)] = z_ij, z_ji
        problem += z_ij + z_ji >= 1
        problem += s[i] <= s[j] + horizon * (1 - z_ij)
        problem += s[j] <= s[i] + horizon * (1 - z_ji)
        problem += s[i] >= s[j] + 1 - (horizon + 1) * z_ij
        problem += s[j] >= s[i] + 1 - (horizon + 1) * z_ji

    def _device_pair(self, i: int, j: int) -> None:
        p, t, horizon = self.p, self.t, self.horizon
        if p[i] > 0 and p[j] > 0:
            y_ij = 1 if (i, j) in self.identical else self.problem.add_variable(f"y_{i}_{j}", cat="Binary")
            self.problem += t[j] >= t[i] + p[i] - horizon * (1 - y_ij)
            self.problem += t[i] >= t[j] + p[j] - horizon * y_ij

    def _finished_indicators(self) -> None:
        for i, j in itertools.permutations(range(self.instance.n), 2):
            if j == 0 or (i == 0 and j == 1):
                self.deadline.check("building the MILP (memory rows)")
            w_ij = self.finished[(i, j)] = self.problem.add_variable(f"w_{i}_{j}", cat="Binary")
            self.problem += w_ij <= self.before[(i, j)]
            self.problem += self.t[i] + self.p[i] <= self.s[j] + self.horizon * (1 - w_ij)

    def _memory_rows(self) -> None:
        n, m = self.instance.n, self.m
        for j in range(n):
            held = [m[i] * (self.before[(i, j)] - self.finished[(i, j)]) for i in range(n) if i != j]
            self.problem += m[j] + self.pulp.lpSum(held) <= self.instance.capacity

    def _conflict_rows(self) -> None:
        for i, j in itertools.combinations(range(self.instance.n), 2):
            if self.m[i] + self.m[j] > self.instance.capacity:
                self.problem += self.finished[(i, j)] + self.finished[(j, i)] >= 1


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: MilpParams | None) -> Result:
    """Disjunctive MILP (z, y, w binaries, memory row per task) on PuLP + HiGHS or CBC.

    Parameters
    ----------
    instance
        The instance.
    time_limit
        Seconds for the warm start, the model building and the solve together.
    seed
        The backend's seed and the warm-start search's seed.
    params
        `MilpParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when the backend proves it (and its schedule, re-timed exactly,
        meets the bound) or the warm start meets `bounds.best`; otherwise
        FEASIBLE with the backend's bound lowered by its tolerance.
    """
    require_fits(instance)
    params = params or MilpParams()
    deadline = Deadline.after(time_limit)
    search = min(warm_start_seconds(params.warm_start_seconds, time_limit), deadline.remaining() or 0.0)
    warm = incumbent(instance, search, seed, deadline)
    horizon = warm.makespan
    if params.lower_bound and (proven := proven_by_bound(instance, warm)):
        return proven
    notes = [
        f"big-M = {horizon} from {warm.name}; options: lower_bound={params.lower_bound}, "
        f"symmetry={params.symmetry}, conflicts={params.conflicts}"
    ]
    largest = max(horizon + 1, instance.capacity)
    if largest > MILP_LARGEST_COEFFICIENT:
        # HiGHS refuses a model with a coefficient or bound beyond 1e15 (PuLP then fails with an
        # IndexError); well before that its 1e-6 tolerances times the big-M exceed one time unit.
        notes.append(
            f"big-M or capacity {largest} > {MILP_LARGEST_COEFFICIENT:.0e}: beyond the numerical range of "
            "the MILP backend, no solve; returning the warm-start schedule"
        )
        return Result(
            status=Status.FEASIBLE,
            objective=horizon,
            bound=bounds.best(instance),
            solution=warm.solution,
            notes=tuple(notes),
        )
    if deadline.expired():
        return out_of_time(instance, warm, notes, "warm-starting")
    try:
        built = _MilpBuilder(instance, horizon, params, deadline).build()
    except TimeLimitReached as reached:
        return out_of_time(instance, warm, notes, str(reached).split(" while ")[-1])
    if deadline.expired():
        return out_of_time(instance, warm, notes, "building the MILP")
    outcome = solve_pulp(
        built.problem, backend=params.backend, time_limit=deadline.remaining(), threads=params.workers, seed=seed
    )
    starts = None
    if outcome.has_solution:
        assert outcome.value is not None
        value = outcome.value
        schedule = retimed(
            instance, [round(value(v)) for v in built.transfer_start], [round(value(v)) for v in built.compute_start]
        )
        starts = (list(schedule.transfer_start), list(schedule.compute_start))
    result = finish(
        instance,
        outcome,
        starts,
        params.lower_bound,
        notes,
        fallback=warm.solution,
        bound_slack=MILP_TOLERANCE * horizon,
    )
    if result.status is Status.OPTIMAL and (
        result.bound is None or result.objective is None or result.objective > result.bound
    ):
        # the backend's optimum was within its tolerances of a schedule the re-timing could not match
        result = replace(
            result,
            status=Status.FEASIBLE,
            notes=(*result.notes, "backend optimal, but its schedule re-timed exactly is above the bound: FEASIBLE"),
        )
    return result
