"""Heuristics and baselines of the locality problem.

Objective 1 (local-only makespan) — assignments, any server of ``R_j``:

* `random_local` — each task on a uniform random replica (vectorized).
* `least_loaded_replica` — online "power of r choices": tasks in index order,
  each on its currently least-loaded replica (ties: lowest server id).
* `lpt_replicas` — clairvoyant LPT: longest task first, least-loaded replica.
* `fewest_choices_first` — most constrained first: a replica is a *choice*
  while its load is below ``T = ceil(sum p / m)``; repeatedly the task with
  the fewest choices left (ties: longest, then lowest index) goes to its
  least-loaded replica. A heap with lazy deletion; each server becomes full
  once, so O(n r log n) in all.
* `plan_then_execute` — plan with an optimal *unit* semi-matching (durations
  ignored; `special_cases.optimal_semi_matching_assignment`, so the task
  counts per server are as balanced as the replicas allow, every L_p norm
  minimal, not only the largest), run it, and let a server whose queue is empty steal a task local
  to it from the others (objective 1: it stops when none is left; objective 2:
  it then takes any task, as the no-idle rule demands).

Objective 2 (non-local count under no idle) — online list scheduling, so the
no-idle rule holds by construction:

* `hadoop_greedy` — a free server takes a local task if any remains, else the
  first remaining task (remote).
* `delay_scheduling` — Zaharia et al.'s delay scheduling: a free server
  without a local task waits one heartbeat (``wait`` time units, default 1)
  up to ``delay`` times (default 3) before taking a remote task. The waits
  are idle time, which the no-idle rule forbids: the method reports the
  simulated idle time and non-local count in ``notes``, then returns the same
  queues run back to back, repaired (a task of the server with the latest
  start — preferably one local on the target — moves to the server that
  completes first, until max start <= min completion); the number of repair
  moves is in ``notes``.
* `plan_then_execute` (above).

Every heuristic attaches a cheap proven bound: objective 1 the trivial
bound; objective 2 the matching bound (n <= 200 000).
"""

from __future__ import annotations

import heapq
import time
from typing import Any

import numpy as np

from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution
from .simulate import list_schedule, local_flags, queue_lengths, repair_no_idle

NAME = "locality"


def _cheap_bound(instance: Instance) -> float | None:
    if instance.objective == "makespan":
        return float(bounds.trivial_bound(instance))
    if instance.num_tasks <= 200_000:
        return float(bounds.communication_bound(instance))
    return None


def _not_applicable(method: str, why: str) -> Result:
    return Result(NAME, method, Status.NOT_APPLICABLE, notes=(why,))


def _makespan_only(method: str, instance: Instance) -> Result | None:
    if instance.objective != "makespan":
        return _not_applicable(method, "objective 1 heuristic (local-only assignment); it ignores the no-idle rule")
    return None


def _assignment_result(method: str, instance: Instance, server_of_task: np.ndarray, started: float,
                       notes: tuple[str, ...] = (), sort_key: np.ndarray | None = None) -> Result:
    solution = Solution.from_assignment(server_of_task, instance.servers, sort_key=sort_key)
    return Result(NAME, method, Status.FEASIBLE, bound=_cheap_bound(instance), runtime_s=time.perf_counter() - started,
                  solution=solution, notes=notes)


def _least_loaded_in_order(instance: Instance, order: np.ndarray) -> np.ndarray:
    """Each task of ``order`` in turn on its least-loaded replica."""
    loads = [0] * instance.servers
    durations = instance.durations.tolist()
    offsets = instance.replica_offsets.tolist()
    servers = instance.replica_servers.tolist()
    chosen = [0] * instance.num_tasks
    for task in order.tolist():
        best_server, best_load = -1, None
        for server in servers[offsets[task] : offsets[task + 1]]:
            load = loads[server]
            if best_load is None or load < best_load or (load == best_load and server < best_server):
                best_server, best_load = server, load
        chosen[task] = best_server
        loads[best_server] = best_load + durations[task]
    return np.asarray(chosen, dtype=np.int64)


def random_local(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Each task on a uniformly random replica."""
    if (skip := _makespan_only("random-local", instance)) is not None:
        return skip
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    pick = (rng.random(instance.num_tasks) * instance.replica_counts).astype(np.int64)
    server_of_task = instance.replica_servers[instance.replica_offsets[:-1] + pick]
    return _assignment_result("random-local", instance, server_of_task, started)


def least_loaded_replica(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Online power of r choices: tasks in index order, each on its least-loaded replica."""
    if (skip := _makespan_only("least-loaded", instance)) is not None:
        return skip
    started = time.perf_counter()
    server_of_task = _least_loaded_in_order(instance, np.arange(instance.num_tasks))
    return _assignment_result("least-loaded", instance, server_of_task, started)


def lpt_replicas(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """LPT restricted to replicas: longest task first, on its least-loaded replica."""
    if (skip := _makespan_only("lpt", instance)) is not None:
        return skip
    started = time.perf_counter()
    order = np.argsort(-instance.durations, kind="stable")
    server_of_task = _least_loaded_in_order(instance, order)
    return _assignment_result("lpt", instance, server_of_task, started)


def fewest_choices_first(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Most constrained first: fewest replicas below the average load, then longest."""
    if (skip := _makespan_only("fewest-choices", instance)) is not None:
        return skip
    from .simulate import tasks_by_server

    started = time.perf_counter()
    n, m = instance.num_tasks, instance.servers
    target = -(-int(instance.durations.sum()) // m)
    durations = instance.durations.tolist()
    offsets = instance.replica_offsets.tolist()
    servers = instance.replica_servers.tolist()
    by_server_offsets, by_server_tasks = (array.tolist() for array in tasks_by_server(instance))
    choices = instance.replica_counts.tolist()
    loads = [0] * m
    full = [False] * m
    done = [False] * n
    heap = [(choices[j], -durations[j], j) for j in range(n)]
    heapq.heapify(heap)
    chosen = [0] * n
    while heap:
        count, _, task = heapq.heappop(heap)
        if done[task] or count != choices[task]:
            continue  # stale entry
        best_server, best_load = -1, None
        candidates = servers[offsets[task] : offsets[task + 1]]
        open_ones = [s for s in candidates if not full[s]] or candidates
        for server in open_ones:
            load = loads[server]
            if best_load is None or load < best_load or (load == best_load and server < best_server):
                best_server, best_load = server, load
        done[task] = True
        chosen[task] = best_server
        loads[best_server] = best_load + durations[task]
        if not full[best_server] and loads[best_server] >= target:
            full[best_server] = True
            for other in by_server_tasks[by_server_offsets[best_server] : by_server_offsets[best_server + 1]]:
                if not done[other]:
                    choices[other] -= 1
                    heapq.heappush(heap, (choices[other], -durations[other], other))
    return _assignment_result("fewest-choices", instance, np.asarray(chosen, dtype=np.int64), started,
                              notes=(f"a replica counts as a choice while its load < {target}",))


def _schedule_result(method: str, instance: Instance, trace, started: float, notes: tuple[str, ...] = ()) -> Result:
    solution = Solution.from_assignment(trace.server_of_task, instance.servers, sort_key=trace.start)
    return Result(NAME, method, Status.FEASIBLE, bound=_cheap_bound(instance), runtime_s=time.perf_counter() - started,
                  solution=solution, notes=notes)


def hadoop_greedy(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Hadoop's greedy: a free server takes a local task if it can, otherwise a remote one."""
    if instance.objective != "communication":
        return _not_applicable("hadoop-greedy", "objective 2 heuristic (it may run tasks remotely)")
    started = time.perf_counter()
    trace = list_schedule(instance, "greedy")
    return _schedule_result("hadoop-greedy", instance, trace, started)


def delay_scheduling(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, delay: int = 3, wait: int = 1, **options: Any
) -> Result:
    """Delay scheduling: wait up to D heartbeats for a local task (reports the idle time)."""
    if instance.objective != "communication":
        return _not_applicable("delay-scheduling", "objective 2 heuristic (it may run tasks remotely)")
    delay, wait = int(delay), int(wait)
    started = time.perf_counter()
    trace = list_schedule(instance, "delay", delay=delay, wait=wait)
    simulated_nonlocal = int(np.count_nonzero(~local_flags(instance, trace.server_of_task)))
    server_of_task, moves = repair_no_idle(instance, trace.server_of_task)
    notes = [
        f"delay={delay}, wait={wait}: simulated idle time {trace.idle_time} ({trace.waits} waits), "
        f"simulated makespan {trace.makespan}",
        f"no-idle repair moved {moves} tasks",
    ]
    notes.append(f"simulated non-local tasks before repair {simulated_nonlocal}")
    solution = Solution.from_assignment(server_of_task, instance.servers, sort_key=queue_lengths(instance, server_of_task))
    return Result(NAME, "delay-scheduling", Status.FEASIBLE, bound=_cheap_bound(instance),
                  runtime_s=time.perf_counter() - started, solution=solution, notes=tuple(notes))


def plan_then_execute(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **options: Any) -> Result:
    """Optimal unit semi-matching as queues, then local work stealing."""
    from .special_cases import optimal_semi_matching_assignment

    started = time.perf_counter()
    _, plan, _ = optimal_semi_matching_assignment(instance)
    trace = list_schedule(instance, "plan", plan=np.asarray(plan, dtype=np.int64),
                          allow_remote=instance.objective == "communication")
    return _schedule_result("plan-then-execute", instance, trace, started)
