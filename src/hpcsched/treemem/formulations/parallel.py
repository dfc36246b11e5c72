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

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_adapter
from ..bounds import parallel_lower_bound
from ..heuristics.parallel import par_deepest_first_capped, par_inner_first_capped, require_memory
from ..model import Instance, Solution, other_question
from ..simulate import Graph
from .sequential import CpSatParams


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


def cpsat_parallel(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT for the parallel question: intervals, precedences, a cumulative over processors and one over memory."""
    refused = other_question(instance, "parallel")
    if refused is not None:
        return refused
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    require_memory(instance, graph)
    n, p, memory = graph.n, instance.processors or 1, instance.memory or 0
    times = [node.time for node in instance.nodes]
    incumbent = None
    for heuristic in (par_inner_first_capped, par_deepest_first_capped):
        result = heuristic(instance, time_limit=time_limit, seed=seed, params=None)
        if result.solution is not None:
            makespan = max(result.solution.start[v.name] + v.time for v in instance.nodes)
            if incumbent is None or makespan < incumbent[0]:
                incumbent = (makespan, result.solution)
    horizon = incumbent[0] if incumbent is not None else sum(times)
    lower = parallel_lower_bound(instance)
    model = cpsat_adapter.new_model()
    start = [model.new_int_var(0, horizon - times[i], f"s_{i}") for i in range(n)]
    run = [model.new_fixed_size_interval_var(start[i], times[i], f"run_{i}") for i in range(n)]
    for u, v in instance.edges:
        model.add(start[v] >= start[u] + times[u])
    model.add_cumulative(run, [1] * n, p)
    intervals, demands = [], []
    for i in range(n):
        deadline.check("building the CP-SAT model")
        if graph.successors[i]:
            release = model.new_int_var(0, horizon, f"release_{i}")
            model.add_max_equality(release, [start[s] + times[s] for s in graph.successors[i]])
            size = model.new_int_var(0, horizon, f"held_{i}")
            model.add(size == release - start[i])
            if graph.output[i]:
                intervals.append(model.new_interval_var(start[i], size, release, f"out_{i}"))
                demands.append(graph.output[i])
            if instance.nodes[i].exec:
                intervals.append(run[i])
                demands.append(instance.nodes[i].exec)
        elif graph.step[i]:
            intervals.append(run[i])
            demands.append(graph.step[i])
    if intervals:
        model.add_cumulative(intervals, demands, memory)
    makespan = model.new_int_var(lower, horizon, "makespan")
    for i in range(n):
        model.add(makespan >= start[i] + times[i])
    model.minimize(makespan)
    if incumbent is not None:
        for i, node in enumerate(instance.nodes):
            model.add_hint(start[i], incumbent[1].start[node.name])
    outcome = cpsat_adapter.solve_cpsat(model, time_limit=deadline.remaining(), deterministic_time=params.deterministic_time,
                                        workers=params.workers, seed=seed)
    bound = None if outcome.bound is None else float(max(lower, math.ceil(outcome.bound - 1e-9)))
    if outcome.status is Status.INFEASIBLE and incumbent is None:
        return Result(status=Status.INFEASIBLE, solver=outcome.backend,
                      notes=("CP-SAT proved that no schedule fits M",))
    if not outcome.has_solution:
        if incumbent is not None:
            return Result(status=Status.FEASIBLE, solution=incumbent[1], bound=bound, solver=outcome.backend,
                          notes=(f"CP-SAT: {outcome.message}; incumbent from the capped list schedules",))
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, solver=outcome.backend,
                      notes=(f"CP-SAT: {outcome.message}",))
    starts = [int(outcome.value(start[i])) for i in range(n)]
    processor = assign_processors(starts, times, p)
    assert processor is not None  # the cumulative of capacity p guarantees it
    return Result(status=outcome.status, solution=Solution.schedule(instance, starts, processor), bound=bound,
                  solver=outcome.backend, notes=(f"CP-SAT: {outcome.message}",))
