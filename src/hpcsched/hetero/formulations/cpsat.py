"""CP-SAT model of hetero on type-level starts (machines assigned afterwards)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_backend
from ..model import Instance, Solution, evaluate, require_runnable
from .common import StartingPoint, incumbent_at_the_limit, solution_from_starts, starting_point


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
    begin = starting_point(instance, deadline)
    if begin.lower >= begin.horizon and params.stop_at_bound:
        return Result(
            status=Status.OPTIMAL,
            solution=begin.incumbent,
            bound=begin.lower,
            notes=("the incumbent meets the lower bound",),
            solver=cpsat_backend.version(),
        )
    try:
        builder = _built_model(instance, begin, params, deadline)
    except TimeLimitReached as reached:
        return incumbent_at_the_limit(begin, reached)
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


def _built_model(instance: Instance, begin: StartingPoint, params: CpSatParams, deadline: Deadline) -> _CpSatModel:
    """The CP-SAT model; `TimeLimitReached` when the deadline passes before or while it is built."""
    deadline.check("computing the incumbent and bounds")
    builder = _CpSatModel(instance, begin.horizon)
    builder.add_tasks(deadline)
    builder.add_capacities()
    builder.add_precedences(deadline)
    builder.add_makespan(begin.lower)
    deadline.check("building the CP-SAT model")
    if params.hint:
        builder.add_hint(begin.incumbent, deadline)
    return builder


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

    def add_precedences(self, deadline: Deadline) -> None:
        """S_v >= E_u + c_uv·d_uv with d_uv >= |g_u - g_v| (d only for an edge with a delay)."""
        model, start, end, on_gpu = self.model, self.start, self.end, self.on_gpu
        for count, edge in enumerate(self.instance.edges):
            if count % 1024 == 0:  # graphs have up to ~10^6 edges
                deadline.check("building the CP-SAT model")
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

    def add_hint(self, incumbent: Solution, deadline: Deadline) -> None:
        for j in range(self.instance.n):
            if j % 1024 == 0:
                deadline.check("building the CP-SAT model")
            self.model.add_hint(self.start[j], incumbent.start[j])
            self.model.add_hint(self.on_gpu[j], incumbent.type[j] == "gpu")

    def solution(self, outcome: Any) -> Solution:
        n = self.instance.n
        kinds = ["gpu" if outcome.value(self.on_gpu[j]) else "cpu" for j in range(n)]
        starts = [int(outcome.value(self.start[j])) for j in range(n)]
        return solution_from_starts(self.instance, kinds, starts)


# --- time-indexed MILP ------------------------------------------------------------------------------
