"""Exact methods for hetero: CP-SAT, a time-indexed MILP, brute force.

All three produce integer schedules and are cross-checked by the tests.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Any, cast

from ..core.deadline import Deadline
from ..core.params import at_least, positive
from ..core.result import Result, Status
from ..solvers import cpsat as cpsat_backend
from ..solvers import milp as milp_backend
from ..taskgraph import Edge, predecessors
from . import bounds
from .heuristics import heft_insertion, heteroprio, hlp_rounding
from .model import TYPES, Instance, Solution, evaluate, require_runnable

#: Largest n brute force accepts.
BRUTE_FORCE_MAX_TASKS = 7


# --- machines from type-level starts ------------------------------------------------------------


def assign_machines(instance: Instance, kinds: list[str], starts: list[int]) -> list[int]:
    """Machine indices for a schedule given by types and starts only.

    Theorem: if, for each type, at most c (the type's machine count) tasks
    of that type run at any instant (the Cumulative's guarantee), then the
    sweep below puts every task on a machine with no overlap. Proof: sweep
    the tasks of the type by start (ends before starts at equal times: a
    task ending at t and one starting at t do not overlap); keep the free
    machines in a heap. When task j starts at S_j, the busy machines hold
    exactly the tasks started earlier that end after S_j, which together
    with j are at most c tasks running at S_j + ε; so at most c - 1 machines
    are busy and one is free (interval graphs are perfect: their chromatic
    number is their clique number). A zero-length task occupies nothing and
    goes on machine 0.
    """
    machine = [0] * instance.n
    for kind in TYPES:
        count = instance.cpus if kind == "cpu" else instance.gpus
        members = [j for j in range(instance.n) if kinds[j] == kind and (instance.time(j, kind) or 0) > 0]
        members.sort(key=lambda j: (starts[j], j))
        free = list(range(count))
        busy: list[tuple[int, int]] = []  # (end, machine)
        for j in members:
            while busy and busy[0][0] <= starts[j]:
                heapq.heappush(free, heapq.heappop(busy)[1])
            if not free:
                raise AssertionError(f"more than {count} {kind} tasks overlap at {starts[j]}")
            chosen = heapq.heappop(free)
            machine[j] = chosen
            heapq.heappush(busy, (starts[j] + (instance.time(j, kind) or 0), chosen))  # members have a time
    return machine


def _solution(instance: Instance, kinds: list[str], starts: list[int]) -> Solution:
    return Solution(tuple(kinds), tuple(assign_machines(instance, kinds, starts)), tuple(starts))


# --- brute force ----------------------------------------------------------------------------------


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Exhaustive search for n <= 7: every task order and type, each task at its earliest start.

    Theorem: some optimal schedule is produced. Take an optimal one and
    list its tasks by start time. Placing them in that order, each on its
    type, at max(data-ready, earliest free machine of the type) (a task of
    length 0 at its data-ready time, occupying nothing), every task starts
    no later than in the optimum (induction: its predecessors end no later;
    of the earlier tasks of its type, those still running at its optimal
    start S* in our schedule also run at S* in the optimum, since they end
    no later, and they are fewer than the machine count because the task
    itself runs at S* there). The search branches on (next ready task,
    type) and prunes by the best makespan found.
    """
    if instance.n > BRUTE_FORCE_MAX_TASKS:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"brute force is limited to n <= {BRUTE_FORCE_MAX_TASKS}",))
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    n = instance.n
    incoming = predecessors(n, instance.edges)
    best: dict = {"makespan": math.inf, "kinds": None, "starts": None}
    kinds: list[str | None] = [None] * n
    starts = [0] * n
    free = {"cpu": [0] * instance.cpus, "gpu": [0] * instance.gpus}
    counter = [0]

    def finish(u: int) -> int:
        """End of the placed task ``u`` (a task is placed after its predecessors, on a type it can run on)."""
        kind = kinds[u]
        assert kind is not None, "predecessors are placed first"
        return starts[u] + (instance.time(u, kind) or 0)

    def search(placed: int, makespan: int) -> None:
        counter[0] += 1
        if counter[0] % 4096 == 0:
            deadline.check("enumerating schedules (brute force)")
        if makespan >= best["makespan"]:
            return
        if placed == n:
            best.update(makespan=makespan, kinds=list(kinds), starts=list(starts))
            return
        for j in range(n):
            if kinds[j] is not None or any(kinds[e.u] is None for e in incoming[j]):
                continue
            for kind in TYPES:
                length = instance.time(j, kind)
                if length is None:
                    continue
                ready = max(
                    (finish(e.u) + (int(e.delay) if kinds[e.u] != kind else 0) for e in incoming[j]),
                    default=0,
                )
                machines = free[kind]
                if length == 0:
                    kinds[j], starts[j] = kind, ready
                    search(placed + 1, max(makespan, ready))
                    kinds[j] = None
                    continue
                index = min(range(len(machines)), key=lambda i: machines[i])
                previous = machines[index]
                start = max(ready, previous)
                kinds[j], starts[j] = kind, start
                machines[index] = start + length
                search(placed + 1, max(makespan, start + length))
                machines[index] = previous
                kinds[j] = None

    search(0, 0)
    return Result(
        status=Status.OPTIMAL,
        solution=_solution(instance, best["kinds"], best["starts"]),
        notes=(f"{counter[0]} search nodes",),
    )


# --- CP-SAT ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpSatParams:
    """Options of cpsat.

    Attributes
    ----------
    workers
        CP-SAT search workers.
    deterministic_time
        CP-SAT ``max_deterministic_time`` (None: only the wall-clock limit);
        tests that assert a proof set it.
    hint
        Start from the incumbent (best of HEFT with insertion, HeteroPrio, HLP rounding).
    stop_at_bound
        Return the incumbent as OPTIMAL without a solve when it meets `bounds.best`
        (False: always solve; the tests use it to exercise the model).
    """

    workers: int = 2
    deterministic_time: float | None = None
    hint: bool = True
    stop_at_bound: bool = True

    def __post_init__(self):
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


def _incumbent(instance: Instance, time_limit: float | None) -> Solution:
    """The best of HEFT with insertion, HeteroPrio and HLP rounding (its makespan is the horizon)."""
    # time_limit is None only on a direct call without a limit, which the heuristics accept.
    candidates = [
        method(instance, time_limit=cast(float, time_limit), seed=0, params=None).solution
        for method in (heft_insertion, heteroprio, hlp_rounding)
    ]
    return min(candidates, key=lambda s: evaluate(instance, s)["objective"])


@dataclass(frozen=True)
class _Start:
    """What both exact models start from: the heuristics' incumbent, its makespan and the lower bound."""

    incumbent: Solution
    horizon: int  # the incumbent's makespan: the optimum is not later
    lower: int  # `bounds.best`


def _start(instance: Instance, deadline: Deadline) -> _Start:
    incumbent = _incumbent(instance, deadline.remaining())
    horizon = int(evaluate(instance, incumbent)["objective"])
    return _Start(incumbent, horizon, bounds.best(instance))


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT: start and GPU literal per task, optional interval per type, one Cumulative per type.

    Machines are then assigned by a sweep (`assign_machines`).

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Seconds for everything (heuristics, model building, solve).
    seed
        CP-SAT random seed.
    params
        `CpSatParams` (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when CP-SAT proved it (or the incumbent meets the lower bound),
        else FEASIBLE with the best schedule found; the bound is the larger of
        `bounds.best` and CP-SAT's, rounded down.

    Notes
    -----
    Model: per task S_j, E_j, literal g_j (on GPU); an optional fixed-size
    interval per allowed type, present iff that type is chosen; a Cumulative
    of capacity m over the CPU intervals and one of capacity k over the GPU
    intervals; S_v >= E_u + c_uv·d_uv with d_uv >= |g_u - g_v|; makespan >=
    E_j. Exactness: a schedule of the model is a schedule of the instance
    once machines are assigned, which `assign_machines` always can (its
    docstring: at most c overlapping intervals of a type go on c machines,
    interval graphs are perfect); conversely every schedule satisfies the
    model. The horizon is the incumbent's makespan (the best of HEFT with
    insertion, HeteroPrio and HLP rounding), which the optimum does not exceed.
    """
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    begin = _start(instance, deadline)
    deadline.check("computing the incumbent and bounds")
    if begin.lower >= begin.horizon and params.stop_at_bound:
        return Result(
            status=Status.OPTIMAL,
            solution=begin.incumbent,
            bound=begin.lower,
            notes=("the incumbent meets the lower bound",),
            solver=cpsat_backend.version(),
        )
    builder = _CpSatModel(instance, begin.horizon)
    builder.add_tasks(deadline)
    builder.add_capacities()
    builder.add_precedences()
    builder.add_makespan(begin.lower)
    if params.hint:
        builder.add_hint(begin.incumbent)
    outcome = cpsat_backend.solve_cpsat(
        builder.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    bound = max(begin.lower, math.floor(outcome.bound + 1e-9)) if outcome.bound is not None else begin.lower
    if outcome.has_solution:
        solution = builder.solution(outcome)
        if evaluate(instance, begin.incumbent)["objective"] < evaluate(instance, solution)["objective"]:
            solution = begin.incumbent  # pragma: no cover - the hint is never worse in practice
        return Result(
            status=outcome.status,
            solution=solution,
            bound=bound,
            solver=outcome.backend,
            notes=(f"CP-SAT {outcome.message}, deterministic time {outcome.deterministic_time:.2f}",),
        )
    # No CP-SAT solution in time (or an error): the incumbent is a valid schedule.
    return Result(
        status=Status.FEASIBLE,
        solution=begin.incumbent,
        bound=bound,
        solver=outcome.backend,
        notes=(f"CP-SAT {outcome.message}: the HEFT/HeteroPrio/HLP-rounding incumbent is returned",),
    )


class _CpSatModel:
    """The CP-SAT model of `cpsat`, one method per variable or constraint family (PyJobShop style)."""

    def __init__(self, instance: Instance, horizon: int) -> None:
        self.instance = instance
        self.horizon = horizon
        self.model = cpsat_backend.new_model()
        self.start: list[Any] = []  # S_j
        self.end: list[Any] = []  # E_j
        self.on_gpu: list[Any] = []  # g_j
        self.intervals: dict[str, list[Any]] = {"cpu": [], "gpu": []}  # optional interval per task and type

    def add_tasks(self, deadline: Deadline) -> None:
        """S_j, E_j, g_j; E_j = S_j + p_jc under the type's literal; the optional interval of each type."""
        model = self.model
        for j in range(self.instance.n):
            deadline.check("building the CP-SAT model")
            s = model.new_int_var(0, self.horizon, f"S{j}")
            e = model.new_int_var(0, self.horizon, f"E{j}")
            g = model.new_bool_var(f"g{j}")
            cpu, gpu = self.instance.time(j, "cpu"), self.instance.time(j, "gpu")
            if cpu is None:
                model.add(g == 1)
            if gpu is None:
                model.add(g == 0)
            for kind, time, literal in (("cpu", cpu, ~g), ("gpu", gpu, g)):
                if time is None:
                    continue
                model.add(e == s + time).only_enforce_if(literal)
                if time > 0:
                    interval = model.new_optional_fixed_size_interval_var(s, time, literal, f"{kind}{j}")
                    self.intervals[kind].append(interval)
            self.start.append(s)
            self.end.append(e)
            self.on_gpu.append(g)

    def add_capacities(self) -> None:
        """At most m tasks on the CPUs and k on the GPUs at any instant (one Cumulative per type)."""
        for kind, capacity in (("cpu", self.instance.cpus), ("gpu", self.instance.gpus)):
            if self.intervals[kind]:
                self.model.add_cumulative(self.intervals[kind], [1] * len(self.intervals[kind]), capacity)

    def add_precedences(self) -> None:
        """S_v >= E_u + c_uv·d_uv with d_uv >= |g_u - g_v| (d only for an edge with a delay)."""
        model, start, end, on_gpu = self.model, self.start, self.end, self.on_gpu
        for edge in self.instance.edges:
            if edge.delay:
                apart = model.new_bool_var(f"d{edge.u}_{edge.v}")
                model.add(apart >= on_gpu[edge.u] - on_gpu[edge.v])
                model.add(apart >= on_gpu[edge.v] - on_gpu[edge.u])
                model.add(start[edge.v] >= end[edge.u] + edge.delay * apart)
            else:
                model.add(start[edge.v] >= end[edge.u])

    def add_makespan(self, lower: int) -> None:
        """Minimize the makespan, the latest E_j, in ``[lower, horizon]``."""
        makespan = self.model.new_int_var(lower, self.horizon, "makespan")
        self.model.add_max_equality(makespan, self.end)
        self.model.minimize(makespan)

    def add_hint(self, incumbent: Solution) -> None:
        for j in range(self.instance.n):
            self.model.add_hint(self.start[j], incumbent.start[j])
            self.model.add_hint(self.on_gpu[j], incumbent.type[j] == "gpu")

    def solution(self, outcome: Any) -> Solution:
        n = self.instance.n
        kinds = ["gpu" if outcome.value(self.on_gpu[j]) else "cpu" for j in range(n)]
        starts = [int(outcome.value(self.start[j])) for j in range(n)]
        return _solution(self.instance, kinds, starts)


# --- time-indexed MILP ------------------------------------------------------------------------------


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
        FEASIBLE otherwise, NOT_APPLICABLE beyond ``max_variables``.

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
    begin = _start(instance, deadline)
    if begin.lower >= begin.horizon and params.stop_at_bound:
        return Result(
            status=Status.OPTIMAL,
            solution=begin.incumbent,
            bound=begin.lower,
            notes=("the incumbent meets the lower bound",),
        )
    size = _time_indexed_size(instance, begin.horizon)
    if size > params.max_variables:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"{size} time-indexed variables exceed options.max_variables = {params.max_variables}",),
        )
    builder = _TimeIndexedMilp(instance, begin.horizon, deadline)
    builder.add_start_variables()
    builder.add_makespan(begin.lower)
    builder.add_assignment_rows()
    builder.add_capacity_rows()
    builder.add_precedence_rows()
    builder.warm_start(begin.incumbent)
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


def _time_indexed_size(instance: Instance, horizon: int) -> int:
    """The number of x_{j,c,t} variables of the time-indexed MILP."""
    return sum(
        horizon - time + 1 for j in range(instance.n) for c in TYPES if (time := instance.time(j, c)) is not None
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

    def warm_start(self, incumbent: Solution) -> None:
        for (j, c, t), var in self.x.items():
            var.setInitialValue(1 if (incumbent.type[j] == c and incumbent.start[j] == t) else 0)

    def solution(self, outcome: Any) -> Solution:
        n = self.instance.n
        kinds: list[str] = [""] * n
        starts = [0] * n
        for (j, c, t), var in self.x.items():
            if outcome.value(var) > 0.5:
                kinds[j], starts[j] = c, t
        return _solution(self.instance, kinds, starts)
