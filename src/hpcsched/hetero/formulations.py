"""Exact methods for hetero: CP-SAT, a time-indexed MILP, brute force.

All three produce integer schedules and are cross-checked by the tests.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from ..core.deadline import Deadline
from ..core.result import Result, Status
from ..solvers import cpsat as cpsat_backend
from ..solvers import milp as milp_backend
from ..taskgraph import predecessors, successors
from ..core.params import at_least, positive
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
            heapq.heappush(busy, (starts[j] + instance.time(j, kind), chosen))
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
                ready = max((starts[e.u] + instance.time(e.u, kinds[e.u]) + (e.delay if kinds[e.u] != kind else 0)
                             for e in incoming[j]), default=0)
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
    return Result(status=Status.OPTIMAL, solution=_solution(instance, best["kinds"], best["starts"]),
                  notes=(f"{counter[0]} search nodes",))


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


def _incumbent(instance: Instance, time_limit: float) -> Solution:
    """The best of HEFT with insertion, HeteroPrio and HLP rounding (its makespan is the horizon)."""
    candidates = [method(instance, time_limit=time_limit, seed=0, params=None).solution
                  for method in (heft_insertion, heteroprio, hlp_rounding)]
    return min(candidates, key=lambda s: evaluate(instance, s)["objective"])


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT: start and a GPU literal per task, an optional interval per type, one Cumulative per type; machines by a sweep.

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
    incumbent = _incumbent(instance, deadline.remaining())
    horizon = int(evaluate(instance, incumbent)["objective"])
    lower = bounds.best(instance)
    deadline.check("computing the incumbent and bounds")
    if lower >= horizon and params.stop_at_bound:
        return Result(status=Status.OPTIMAL, solution=incumbent, bound=lower,
                      notes=("the incumbent meets the lower bound",), solver=cpsat_backend.version())
    model = cpsat_backend.new_model()
    n = instance.n
    start, end, on_gpu = [], [], []
    intervals = {"cpu": ([], []), "gpu": ([], [])}
    for j in range(n):
        deadline.check("building the CP-SAT model")
        s = model.new_int_var(0, horizon, f"S{j}")
        e = model.new_int_var(0, horizon, f"E{j}")
        g = model.new_bool_var(f"g{j}")
        cpu, gpu = instance.time(j, "cpu"), instance.time(j, "gpu")
        if cpu is None:
            model.add(g == 1)
        if gpu is None:
            model.add(g == 0)
        for kind, time, literal in (("cpu", cpu, ~g), ("gpu", gpu, g)):
            if time is None:
                continue
            model.add(e == s + time).only_enforce_if(literal)
            if time > 0:
                intervals[kind][0].append(model.new_optional_fixed_size_interval_var(s, time, literal, f"{kind}{j}"))
                intervals[kind][1].append(1)
        start.append(s)
        end.append(e)
        on_gpu.append(g)
    for kind, capacity in (("cpu", instance.cpus), ("gpu", instance.gpus)):
        if intervals[kind][0]:
            model.add_cumulative(intervals[kind][0], intervals[kind][1], capacity)
    for edge in instance.edges:
        if edge.delay:
            apart = model.new_bool_var(f"d{edge.u}_{edge.v}")
            model.add(apart >= on_gpu[edge.u] - on_gpu[edge.v])
            model.add(apart >= on_gpu[edge.v] - on_gpu[edge.u])
            model.add(start[edge.v] >= end[edge.u] + edge.delay * apart)
        else:
            model.add(start[edge.v] >= end[edge.u])
    makespan = model.new_int_var(lower, horizon, "makespan")
    model.add_max_equality(makespan, end)
    model.minimize(makespan)
    if params.hint:
        for j in range(n):
            model.add_hint(start[j], incumbent.start[j])
            model.add_hint(on_gpu[j], incumbent.type[j] == "gpu")
    outcome = cpsat_backend.solve_cpsat(
        model, time_limit=deadline.remaining(), deterministic_time=params.deterministic_time,
        workers=params.workers, seed=seed,
    )
    bound = max(lower, math.floor(outcome.bound + 1e-9)) if outcome.bound is not None else lower
    if outcome.has_solution:
        kinds = ["gpu" if outcome.value(on_gpu[j]) else "cpu" for j in range(n)]
        starts = [int(outcome.value(start[j])) for j in range(n)]
        solution = _solution(instance, kinds, starts)
        if evaluate(instance, incumbent)["objective"] < evaluate(instance, solution)["objective"]:
            solution = incumbent  # pragma: no cover - the hint is never worse in practice
        return Result(status=outcome.status, solution=solution, bound=bound, solver=outcome.backend,
                      notes=(f"CP-SAT {outcome.message}, deterministic time {outcome.deterministic_time:.2f}",))
    # No CP-SAT solution in time (or an error): the incumbent is a valid schedule.
    return Result(status=Status.FEASIBLE, solution=incumbent, bound=bound, solver=outcome.backend,
                  notes=(f"CP-SAT {outcome.message}: the HEFT/HeteroPrio/HLP-rounding incumbent is returned",))


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
    """Time-indexed MILP (PuLP/HiGHS): x_{j,c,t} = 1 iff j starts at t on type c; capacity per type and instant; strong precedence rows.

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
    incumbent = _incumbent(instance, deadline.remaining())
    horizon = int(evaluate(instance, incumbent)["objective"])
    lower = bounds.best(instance)
    if lower >= horizon and params.stop_at_bound:
        return Result(status=Status.OPTIMAL, solution=incumbent, bound=lower, notes=("the incumbent meets the lower bound",))
    n = instance.n
    size = sum(horizon - (instance.time(j, c) or 0) + 1 for j in range(n) for c in TYPES if instance.time(j, c) is not None)
    if size > params.max_variables:
        return Result(status=Status.NOT_APPLICABLE,
                      notes=(f"{size} time-indexed variables exceed options.max_variables = {params.max_variables}",))
    import pulp

    problem = pulp.LpProblem("hetero", pulp.LpMinimize)
    x: dict[tuple[int, str, int], pulp.LpVariable] = {}
    for j in range(n):
        for c in TYPES:
            time = instance.time(j, c)
            if time is None:
                continue
            for t in range(horizon - time + 1):
                x[j, c, t] = pulp.LpVariable(f"x_{j}_{c}_{t}", cat="Binary")
        deadline.check("building the MILP")
    makespan = pulp.LpVariable("C", lowBound=lower, upBound=horizon)
    problem += makespan
    for j in range(n):
        problem += pulp.lpSum(var for (i, _, _), var in x.items() if i == j) == 1
        problem += makespan >= pulp.lpSum((t + instance.time(j, c)) * x[j, c, t]
                                          for c in TYPES if instance.time(j, c) is not None
                                          for t in range(horizon - instance.time(j, c) + 1))
    for c in TYPES:
        capacity = instance.cpus if c == "cpu" else instance.gpus
        for t in range(horizon):
            running = [x[j, c, s] for j in range(n) if (instance.time(j, c) or 0) > 0
                       for s in range(max(0, t - instance.time(j, c) + 1), t + 1) if (j, c, s) in x]
            if len(running) > capacity:
                problem += pulp.lpSum(running) <= capacity
        deadline.check("building the MILP")
    for edge in instance.edges:
        u, v = edge.u, edge.v
        for c2 in TYPES:
            if instance.time(v, c2) is None:
                continue
            for t in range(horizon - instance.time(v, c2) + 1):
                left = pulp.lpSum(x[v, c2, s] for s in range(t + 1))
                right = []
                for c1 in TYPES:
                    if instance.time(u, c1) is None:
                        continue
                    latest = t - instance.time(u, c1) - (edge.delay if c1 != c2 else 0)
                    right += [x[u, c1, s] for s in range(0, min(latest, horizon - instance.time(u, c1)) + 1)]
                problem += left <= pulp.lpSum(right)
        deadline.check("building the MILP")
    for (j, c, t), var in x.items():  # warm start from the incumbent
        var.setInitialValue(1 if (incumbent.type[j] == c and incumbent.start[j] == t) else 0)
    outcome = milp_backend.solve_pulp(problem, time_limit=deadline.remaining(), threads=params.threads, seed=seed)
    bound = lower
    if outcome.bound is not None and math.isfinite(outcome.bound):
        bound = max(lower, math.ceil(outcome.bound - 1e-6 * max(1.0, abs(outcome.bound))))
    if outcome.has_solution:
        kinds, starts = [None] * n, [0] * n
        for (j, c, t), var in x.items():
            if outcome.value(var) > 0.5:
                kinds[j], starts[j] = c, t
        solution = _solution(instance, kinds, starts)
        if evaluate(instance, solution)["objective"] > horizon:  # pragma: no cover
            solution = incumbent
        status = outcome.status
        return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=(outcome.message,))
    return Result(status=Status.FEASIBLE, solution=incumbent, bound=bound, solver=outcome.backend,
                  notes=(f"HiGHS {outcome.message}: the HEFT/HeteroPrio/HLP-rounding incumbent is returned",))
