"""Time-indexed MILP of hetero (HiGHS), warm-started from the heuristics' incumbent."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers import milp as milp_backend
from ...taskgraph import Edge
from ..model import TYPES, Instance, Solution, evaluate, require_runnable
from .common import StartingPoint, horizon_at_least, incumbent_at_the_limit, solution_from_starts, starting_point


@dataclass(frozen=True)
class MilpParams:
    """Options of milp.

    Attributes
    ----------
    max_variables
        Refuse (NOT_APPLICABLE) when n x types x horizon exceeds this.
    threads
        HiGHS threads.
    stop_at_bound
        As for cpsat.
    """

    max_variables: int = 20000
    threads: int = 2
    stop_at_bound: bool = True

    def __post_init__(self):
        at_least("max_variables", self.max_variables, 1)
        at_least("threads", self.threads, 1)


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: MilpParams | None) -> Result:
    """Time-indexed MILP (PuLP/HiGHS): x_{j,c,t} = 1 iff j starts at t on type c.

    Capacity rows per type and instant, strong precedence rows.

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Seconds for everything (heuristics, model building, solve).
    seed
        HiGHS random seed.
    params
        `MilpParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when HiGHS proved it (or the incumbent meets the lower bound),
        FEASIBLE otherwise, NOT_APPLICABLE beyond ``max_variables`` (checked first at the least horizon
        any schedule has, before the warm start, then at the incumbent's makespan).

    Notes
    -----
    Rows: Σ_{c,t} x_{jct} = 1; for each type c and instant t, the tasks of
    type c running at t (started in (t - p_jc, t]) are at most the machine
    count; for an edge (u, v), each type c' of v and each t: v started on c'
    by t implies u started on some c by t - p_uc - c_uv·[c != c']
    (Σ_{t' <= t} x_{vc't'} <= Σ_c Σ_{t'' <= t - p_uc - δ} x_{uct''}), which
    is exact; C >= Σ (t + p_jc) x_{jct}. Horizon: the HEFT/HeteroPrio
    incumbent's makespan (the optimum is not later). Machines by the sweep
    of `assign_machines`. The bound is HiGHS' dual bound rounded up after
    subtracting its tolerance (the optimum is an integer).
    """
    params = params or MilpParams()
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    # before any warm start: at the least horizon any schedule has, the model is already this large
    size = _time_indexed_size(instance, horizon_at_least(instance))
    if size > params.max_variables:
        return _too_large(size, params, "at least ")
    begin = starting_point(instance, deadline)
    if begin.lower >= begin.horizon and params.stop_at_bound:
        return Result(
            status=Status.OPTIMAL,
            solution=begin.incumbent,
            bound=begin.lower,
            notes=("the incumbent meets the lower bound",),
        )
    size = _time_indexed_size(instance, begin.horizon)
    if size > params.max_variables:
        return _too_large(size, params)
    try:
        builder = _built_model(instance, begin, deadline)
    except TimeLimitReached as reached:
        return incumbent_at_the_limit(begin, reached)
    outcome = milp_backend.solve_pulp(
        builder.problem, time_limit=deadline.remaining(), threads=params.threads, seed=seed
    )
    bound = begin.lower
    if outcome.bound is not None and math.isfinite(outcome.bound):
        bound = max(begin.lower, math.ceil(outcome.bound - 1e-6 * max(1.0, abs(outcome.bound))))
    if outcome.has_solution:
        solution = builder.solution(outcome)
        if evaluate(instance, solution)["objective"] > begin.horizon:  # pragma: no cover
            solution = begin.incumbent
        return Result(
            status=outcome.status, solution=solution, bound=bound, solver=outcome.backend, notes=(outcome.message,)
        )
    return Result(
        status=Status.FEASIBLE,
        solution=begin.incumbent,
        bound=bound,
        solver=outcome.backend,
        notes=(f"HiGHS {outcome.message}: the HEFT/HeteroPrio/HLP-rounding incumbent is returned",),
    )


def _too_large(size: int, params: MilpParams, at_least: str = "") -> Result:
    """NOT_APPLICABLE: the time-indexed model exceeds ``max_variables``."""
    return Result(
        status=Status.NOT_APPLICABLE,
        notes=(f"{at_least}{size} time-indexed variables exceed options.max_variables = {params.max_variables}",),
    )


def _built_model(instance: Instance, begin: StartingPoint, deadline: Deadline) -> _TimeIndexedMilp:
    """The time-indexed MILP; `TimeLimitReached` when the deadline passes before or while it is built."""
    deadline.check("computing the incumbent and bounds")
    builder = _TimeIndexedMilp(instance, begin.horizon, deadline)
    builder.add_start_variables()
    builder.add_makespan(begin.lower)
    builder.add_assignment_rows()
    builder.add_capacity_rows()
    builder.add_precedence_rows()
    builder.warmstarting_point(begin.incumbent)
    return builder


def _time_indexed_size(instance: Instance, horizon: int) -> int:
    """The number of x_{j,c,t} variables of the time-indexed MILP (none for a type slower than the horizon)."""
    return sum(
        max(0, horizon - time + 1)
        for j in range(instance.n)
        for c in TYPES
        if (time := instance.time(j, c)) is not None
    )


class _TimeIndexedMilp:
    """The time-indexed MILP of `milp`, one method per variable or row family (PyJobShop style)."""

    def __init__(self, instance: Instance, horizon: int, deadline: Deadline) -> None:
        import pulp

        self.pulp = pulp
        self.instance = instance
        self.horizon = horizon
        self.deadline = deadline
        self.problem = pulp.LpProblem("hetero", pulp.LpMinimize)
        self.x: dict[tuple[int, str, int], Any] = {}  # x_{j,c,t}: j starts at t on type c
        self.makespan: Any = None

    def _time(self, j: int, c: str) -> int:
        time = self.instance.time(j, c)
        assert time is not None, "only the types a task can run on have variables"
        return time

    def _types(self, j: int) -> list[str]:
        """The types task ``j`` can run on."""
        return [c for c in TYPES if self.instance.time(j, c) is not None]

    def add_start_variables(self) -> None:
        """x_{j,c,t} for every allowed type c of j and start t in ``[0, horizon - p_jc]``."""
        for j in range(self.instance.n):
            for c in self._types(j):
                for t in range(self.horizon - self._time(j, c) + 1):
                    self.x[j, c, t] = self.pulp.LpVariable(f"x_{j}_{c}_{t}", cat="Binary")
            self.deadline.check("building the MILP")

    def add_makespan(self, lower: int) -> None:
        """C in ``[lower, horizon]``, the objective."""
        self.makespan = self.pulp.LpVariable("C", lowBound=lower, upBound=self.horizon)
        self.problem += self.makespan

    def add_assignment_rows(self) -> None:
        """Each task starts once (Σ_{c,t} x_{jct} = 1), and C >= Σ (t + p_jc) x_{jct}."""
        lp_sum, x = self.pulp.lpSum, self.x
        for j in range(self.instance.n):
            self.problem += lp_sum(var for (i, _, _), var in x.items() if i == j) == 1
            self.problem += self.makespan >= lp_sum(
                (t + self._time(j, c)) * x[j, c, t]
                for c in self._types(j)
                for t in range(self.horizon - self._time(j, c) + 1)
            )

    def add_capacity_rows(self) -> None:
        """For each type and instant, the tasks running then are at most the type's machine count."""
        for c in TYPES:
            capacity = self.instance.cpus if c == "cpu" else self.instance.gpus
            for t in range(self.horizon):
                running = self._running(c, t)
                if len(running) > capacity:
                    self.problem += self.pulp.lpSum(running) <= capacity
            self.deadline.check("building the MILP")

    def _running(self, c: str, t: int) -> list[Any]:
        """The x of the tasks of positive length that would run on type c at t (started in (t - p_jc, t])."""
        x, instance = self.x, self.instance
        return [
            x[j, c, s]
            for j in range(instance.n)
            if (instance.time(j, c) or 0) > 0
            for s in range(max(0, t - self._time(j, c) + 1), t + 1)
            if (j, c, s) in x
        ]

    def add_precedence_rows(self) -> None:
        """v started on c' by t implies u started on some c by t - p_uc - c_uv·[c != c'] (every edge, c', t)."""
        for edge in self.instance.edges:
            for c2 in self._types(edge.v):
                for t in range(self.horizon - self._time(edge.v, c2) + 1):
                    left = self.pulp.lpSum(self.x[edge.v, c2, s] for s in range(t + 1))
                    self.problem += left <= self.pulp.lpSum(self._started_by(edge, c2, t))
            self.deadline.check("building the MILP")

    def _started_by(self, edge: Edge, c2: str, t: int) -> list[Any]:
        """The x of u's starts early enough for v to start on ``c2`` at ``t``."""
        right = []
        for c1 in self._types(edge.u):
            time = self._time(edge.u, c1)
            latest = t - time - (int(edge.delay) if c1 != c2 else 0)  # the model's delays are integers
            right += [self.x[edge.u, c1, s] for s in range(0, min(latest, self.horizon - time) + 1)]
        return right

    def warmstarting_point(self, incumbent: Solution) -> None:
        for (j, c, t), var in self.x.items():
            var.setInitialValue(1 if (incumbent.type[j] == c and incumbent.start[j] == t) else 0)

    def solution(self, outcome: Any) -> Solution:
        n = self.instance.n
        kinds: list[str] = [""] * n
        starts = [0] * n
        for (j, c, t), var in self.x.items():
            if outcome.value(var) > 0.5:
                kinds[j], starts[j] = c, t
        return solution_from_starts(self.instance, kinds, starts)
