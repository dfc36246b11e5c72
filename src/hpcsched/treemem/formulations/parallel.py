"""Exact CP-SAT model for the parallel question (small trees and DAGs).

Variables: start s_i in [0, H - w_i] (H: the makespan of a capped list
schedule, or Σ w), interval [s_i, s_i + w_i). Precedence s_v >= e_u.
Processors: a cumulative of capacity p over the intervals (demand 1); a
schedule meeting it is assigned processors afterwards by giving each node, in
start order, a processor free at its start (interval graphs are perfect: at
most p intervals overlap, so p processors suffice). Memory: a cumulative of
capacity M over n_i on [s_i, e_i) and f_i on [s_i, L_i) with
L_i = max over successors of e_s (e_i for a sink); CP-SAT's intervals are
half-open, so a release at t and an allocation at t never meet (frees before
allocations, as the validator says). Minimize the makespan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_adapter
from ..bounds import parallel_lower_bound
from ..heuristics.parallel import par_deepest_first_capped, par_inner_first_capped, require_memory
from ..model import Instance, Solution, other_question
from ..simulate import Graph
from .slot_models import CpSatParams


def assign_processors(starts: list[int], times: list[int], p: int) -> list[int] | None:
    """A processor per node such that none runs two nodes at once (None if more than p overlap)."""
    free = list(range(p))
    busy: list[tuple[int, int]] = []  # (end, processor)
    processor = [0] * len(starts)
    import heapq

    for i in sorted(range(len(starts)), key=lambda k: (starts[k], times[k])):
        while busy and busy[0][0] <= starts[i]:
            heapq.heappush(free, heapq.heappop(busy)[1])
        if not free:
            return None
        processor[i] = heapq.heappop(free)
        heapq.heappush(busy, (starts[i] + times[i], processor[i]))
    return processor


@dataclass(frozen=True)
class _Incumbent:
    """A valid schedule from the capped list heuristics and its makespan."""

    makespan: int
    solution: Solution


def _best_list_schedule(instance: Instance, deadline: Deadline, seed: int) -> _Incumbent | None:
    """The shorter schedule of the capped list heuristics (the first on ties), None if neither fits M.

    Both share what is left of the method's limit (a heuristic cut by it gives nothing).
    """
    incumbent = None
    for heuristic in (par_inner_first_capped, par_deepest_first_capped):
        if deadline.expired():
            break
        try:
            left = deadline.remaining()
            result = heuristic(instance, time_limit=math.inf if left is None else left, seed=seed, params=None)
        except TimeLimitReached:
            continue
        if result.solution is not None:
            makespan = max(result.solution.start[v.name] + v.time for v in instance.nodes)
            if incumbent is None or makespan < incumbent.makespan:
                incumbent = _Incumbent(makespan, result.solution)
    return incumbent


class _ParallelModel:
    """The CP-SAT model of `cpsat_parallel`, one method per constraint family.

    Parameters
    ----------
    instance
        A parallel-question instance.
    graph
        Its graph.
    horizon
        Latest end of any task (a known schedule's makespan, else the total time).
    lower
        A proven lower bound on the makespan.
    deadline
        Checked inside the long build loops.
    """

    def __init__(self, instance: Instance, graph: Graph, horizon: int, lower: int, deadline: Deadline) -> None:
        self.instance, self.graph, self.horizon, self.lower, self.deadline = instance, graph, horizon, lower, deadline
        self.n = graph.n
        self.times = [node.time for node in instance.nodes]
        self.model = cpsat_adapter.new_model()
        self.start = [self.model.new_int_var(0, horizon - self.times[i], f"s_{i}") for i in range(self.n)]
        self.run = [
            self.model.new_fixed_size_interval_var(self.start[i], self.times[i], f"run_{i}") for i in range(self.n)
        ]

    def build(self, incumbent: _Incumbent | None) -> _ParallelModel:
        """Every constraint family, the objective and the incumbent's hint, in the model's fixed order."""
        model, start, times = self.model, self.start, self.times
        for k, (u, v) in enumerate(self.instance.edges):
            if k % 1024 == 0:
                self.deadline.check("building the CP-SAT model")
            model.add(start[v] >= start[u] + times[u])
        model.add_cumulative(self.run, [1] * self.n, self.instance.processors or 1)
        self._add_memory()
        self._add_makespan()
        if incumbent is not None and incumbent.solution.start is not None:
            for i, node in enumerate(self.instance.nodes):
                model.add_hint(start[i], incumbent.solution.start[node.name])
        return self

    def _add_memory(self) -> None:
        """One cumulative over memory: outputs held until their last consumer ends, exec while running."""
        intervals, demands = [], []
        for i in range(self.n):
            self.deadline.check("building the CP-SAT model")
            for interval, demand in self._memory_uses(i):
                intervals.append(interval)
                demands.append(demand)
        if intervals:
            self.model.add_cumulative(intervals, demands, self.instance.memory or 0)

    def _memory_uses(self, i: int) -> list[tuple[object, int]]:
        """(interval, bytes) of task i: its output until released and its exec, or its step if a root."""
        model, graph, start, times, horizon = self.model, self.graph, self.start, self.times, self.horizon
        if not graph.successors[i]:
            return [(self.run[i], graph.step[i])] if graph.step[i] else []
        uses = []
        release = model.new_int_var(0, horizon, f"release_{i}")
        model.add_max_equality(release, [start[s] + times[s] for s in graph.successors[i]])
        size = model.new_int_var(0, horizon, f"held_{i}")
        model.add(size == release - start[i])
        if graph.output[i]:
            uses.append((model.new_interval_var(start[i], size, release, f"out_{i}"), graph.output[i]))
        if self.instance.nodes[i].exec:
            uses.append((self.run[i], self.instance.nodes[i].exec))
        return uses

    def _add_makespan(self) -> None:
        """Minimize the makespan, the latest end of a task."""
        makespan = self.model.new_int_var(self.lower, self.horizon, "makespan")
        for i in range(self.n):
            self.model.add(makespan >= self.start[i] + self.times[i])
        self.model.minimize(makespan)


def cpsat_parallel(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT for the parallel question: intervals, precedences, a cumulative over processors and one over memory.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Used: it seeds the solver's or the search's randomness.
    params : CpSatParams | None
        Options; None takes the defaults of ``CpSatParams``.

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, INFEASIBLE, NOT_APPLICABLE, TIME_LIMIT_NO_SOLUTION
        (and the statuses the CP-SAT adapter maps a solver outcome to).
    """
    refused = other_question(instance, "parallel")
    if refused is not None:
        return refused
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    require_memory(instance, graph)
    incumbent = _best_list_schedule(instance, deadline, seed)
    horizon = incumbent.makespan if incumbent is not None else sum(node.time for node in instance.nodes)
    lower = parallel_lower_bound(instance)
    try:
        built = _ParallelModel(instance, graph, horizon, lower, deadline).build(incumbent)
    except TimeLimitReached as stopped:
        if incumbent is None:
            raise
        return Result(
            status=Status.FEASIBLE,
            solution=incumbent.solution,
            bound=float(lower),
            notes=(f"{stopped}; incumbent from the capped list schedules, bound: TOPC Lemma 1",),
        )
    outcome = cpsat_adapter.solve_cpsat(
        built.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    return _parallel_result(instance, built, outcome, incumbent)


def _parallel_result(instance: Instance, built: _ParallelModel, outcome, incumbent: _Incumbent | None) -> Result:
    """The method's result: CP-SAT's schedule, else the incumbent, with the proven bound."""
    bound = None if outcome.bound is None else float(max(built.lower, math.ceil(outcome.bound - 1e-9)))
    if outcome.status is Status.INFEASIBLE and incumbent is None:
        return Result(
            status=Status.INFEASIBLE, solver=outcome.backend, notes=("CP-SAT proved that no schedule fits M",)
        )
    if not outcome.has_solution:
        if incumbent is not None:
            return Result(
                status=Status.FEASIBLE,
                solution=incumbent.solution,
                bound=bound,
                solver=outcome.backend,
                notes=(f"CP-SAT: {outcome.message}; incumbent from the capped list schedules",),
            )
        return Result(
            status=Status.TIME_LIMIT_NO_SOLUTION,
            bound=bound,
            solver=outcome.backend,
            notes=(f"CP-SAT: {outcome.message}",),
        )
    starts = [int(outcome.value(built.start[i])) for i in range(built.n)]
    processor = assign_processors(starts, built.times, instance.processors or 1)
    assert processor is not None  # the cumulative of capacity p guarantees it
    return Result(
        status=outcome.status,
        solution=Solution.schedule(instance, starts, processor),
        bound=bound,
        solver=outcome.backend,
        notes=(f"CP-SAT: {outcome.message}",),
    )
