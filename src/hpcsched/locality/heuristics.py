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
  ignored; `flows.optimal_semi_matching_assignment`, so the task
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
from dataclasses import dataclass

import numpy as np

from ..core.params import at_least
from ..core.result import Result, Status
from . import bounds
from .flows import optimal_semi_matching_assignment
from .model import Instance, Solution
from .simulate import Trace, list_schedule, local_flags, queue_lengths, repair_no_idle, tasks_by_server

#: Above this many tasks the objective-2 heuristics attach no bound (the matching bound costs more than they do).
MATCHING_BOUND_MAX_TASKS = 200_000


@dataclass(frozen=True)
class DelaySchedulingParams:
    """Options of `delay_scheduling`.

    Attributes
    ----------
    delay
        Largest number of heartbeats in a row a server without a local task waits (D).
    wait
        Time units of one heartbeat.
    """

    delay: int = 3
    wait: int = 1

    def __post_init__(self) -> None:
        at_least("delay", self.delay, 0)
        at_least("wait", self.wait, 0)


def _cheap_bound(instance: Instance) -> float | None:
    if instance.objective == "makespan":
        return float(bounds.trivial_bound(instance))
    if instance.num_tasks <= MATCHING_BOUND_MAX_TASKS:
        return float(bounds.communication_bound(instance))
    return None


def _not_applicable(why: str) -> Result:
    return Result(status=Status.NOT_APPLICABLE, notes=(why,))


def _makespan_only(instance: Instance) -> Result | None:
    if instance.objective != "makespan":
        return _not_applicable("objective 1 heuristic (local-only assignment); it ignores the no-idle rule")
    return None


def _communication_only(instance: Instance) -> Result | None:
    if instance.objective != "communication":
        return _not_applicable("objective 2 heuristic (it may run tasks remotely)")
    return None


def _assignment_result(instance: Instance, server_of_task: np.ndarray, notes: tuple[str, ...] = ()) -> Result:
    solution = Solution.from_assignment(server_of_task, instance.servers)
    return Result(status=Status.FEASIBLE, bound=_cheap_bound(instance), solution=solution, notes=notes)


def _schedule_result(instance: Instance, trace: Trace) -> Result:
    solution = Solution.from_assignment(trace.server_of_task, instance.servers, sort_key=trace.start)
    return Result(status=Status.FEASIBLE, bound=_cheap_bound(instance), solution=solution)


def _least_loaded_in_order(instance: Instance, order: np.ndarray) -> np.ndarray:
    """Each task of ``order`` in turn on its least-loaded replica (ties: lowest server id)."""
    loads = [0] * instance.servers
    durations = instance.durations.tolist()
    offsets = instance.replica_offsets.tolist()
    servers = instance.replica_servers.tolist()
    chosen = [0] * instance.num_tasks
    for task in order.tolist():  # inline, not _least_loaded: a call per task costs ~10 % at 10^6 tasks
        best_server, best_load = -1, -1
        for server in servers[offsets[task] : offsets[task + 1]]:
            load = loads[server]
            if best_server < 0 or load < best_load or (load == best_load and server < best_server):
                best_server, best_load = server, load
        chosen[task] = best_server
        loads[best_server] = best_load + durations[task]
    return np.asarray(chosen, dtype=np.int64)


def random_local(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Each task on a uniformly random replica.

    Parameters
    ----------
    instance
        Objective 1 (else NOT_APPLICABLE).
    time_limit
        Unused (one vectorized pass).
    seed
        Seeds the random choice of each task's replica.
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.trivial_bound`.
    """
    if (skip := _makespan_only(instance)) is not None:
        return skip
    rng = np.random.default_rng(seed)
    pick = (rng.random(instance.num_tasks) * instance.replica_counts).astype(np.int64)
    server_of_task = instance.replica_servers[instance.replica_offsets[:-1] + pick]
    return _assignment_result(instance, server_of_task)


def least_loaded(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Online power of r choices: tasks in index order, each on its least-loaded replica.

    Parameters
    ----------
    instance
        Objective 1 (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one deterministic pass).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.trivial_bound`.
    """
    if (skip := _makespan_only(instance)) is not None:
        return skip
    return _assignment_result(instance, _least_loaded_in_order(instance, np.arange(instance.num_tasks)))


def lpt(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """LPT restricted to replicas: longest task first, on its least-loaded replica.

    Parameters
    ----------
    instance
        Objective 1 (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one deterministic pass).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.trivial_bound`.
    """
    if (skip := _makespan_only(instance)) is not None:
        return skip
    return _assignment_result(instance, lpt_assignment(instance))


def lpt_assignment(instance: Instance) -> np.ndarray:
    """The server of each task under LPT restricted to replicas (O(pairs); the exact methods' fallback)."""
    return _least_loaded_in_order(instance, np.argsort(-instance.durations, kind="stable"))


class _FewestChoices:
    """The state of `fewest_choices`: loads, full servers, and the heap of tasks by remaining choices."""

    def __init__(self, instance: Instance):
        self.durations = instance.durations.tolist()
        self.offsets = instance.replica_offsets.tolist()
        self.servers = instance.replica_servers.tolist()
        self.by_server_offsets, self.by_server_tasks = (array.tolist() for array in tasks_by_server(instance))
        self.choices = instance.replica_counts.tolist()
        self.target = -(-int(instance.durations.sum()) // instance.servers)
        self.loads = [0] * instance.servers
        self.full = [False] * instance.servers
        self.done = [False] * instance.num_tasks
        self.chosen = [0] * instance.num_tasks
        self.heap = [(self.choices[j], -self.durations[j], j) for j in range(instance.num_tasks)]
        heapq.heapify(self.heap)

    def run(self) -> np.ndarray:
        """Place every task, most constrained first; returns the server of each.

        The loop binds the state to locals: it runs once per task (10^6 times
        at the benchmark's scale), where attribute look-ups cost a third.
        """
        heap, done, choices, full, loads = self.heap, self.done, self.choices, self.full, self.loads
        servers, offsets, durations, chosen, target = (
            self.servers,
            self.offsets,
            self.durations,
            self.chosen,
            self.target,
        )
        while heap:
            count, _, task = heapq.heappop(heap)
            if done[task] or count != choices[task]:
                continue  # stale entry
            candidates = servers[offsets[task] : offsets[task + 1]]
            server, load = -1, -1  # the least-loaded open replica (any replica when all are full), inline
            for option in [s for s in candidates if not full[s]] or candidates:
                if server < 0 or loads[option] < load or (loads[option] == load and option < server):
                    server, load = option, loads[option]
            done[task] = True
            chosen[task] = server
            loads[server] = load + durations[task]
            if not full[server] and loads[server] >= target:
                self.close(server)
        return np.asarray(chosen, dtype=np.int64)

    def close(self, server: int) -> None:
        """``server`` reached the average load: it stops being a choice of the tasks left that list it."""
        self.full[server] = True
        for other in self.by_server_tasks[self.by_server_offsets[server] : self.by_server_offsets[server + 1]]:
            if not self.done[other]:
                self.choices[other] -= 1
                heapq.heappush(self.heap, (self.choices[other], -self.durations[other], other))


def fewest_choices(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Most constrained first: fewest replicas below the average load, then longest.

    Parameters
    ----------
    instance
        Objective 1 (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one deterministic pass, O(n r log n)).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, with `bounds.trivial_bound`.
    """
    if (skip := _makespan_only(instance)) is not None:
        return skip
    state = _FewestChoices(instance)
    server_of_task = state.run()
    return _assignment_result(
        instance, server_of_task, notes=(f"a replica counts as a choice while its load < {state.target}",)
    )


def hadoop_greedy(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Hadoop's greedy: a free server takes a local task if it can, otherwise a remote one.

    Parameters
    ----------
    instance
        Objective 2 (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one event simulation).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE (no idle by construction), with `bounds.communication_bound`
        up to `MATCHING_BOUND_MAX_TASKS` tasks.
    """
    if (skip := _communication_only(instance)) is not None:
        return skip
    return _schedule_result(instance, list_schedule(instance, "greedy"))


def delay_scheduling(
    instance: Instance, /, *, time_limit: float, seed: int, params: DelaySchedulingParams | None
) -> Result:
    """Delay scheduling: wait up to D heartbeats for a local task (reports the idle time).

    Parameters
    ----------
    instance
        Objective 2 (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one event simulation and the repair).
    params
        ``delay`` (D) and ``wait`` (time units per heartbeat); None: the defaults.

    Returns
    -------
    Result
        FEASIBLE: the simulated assignment run back to back and repaired to obey
        no-idle; the notes give the simulated idle time, makespan and non-local
        count, and the number of repair moves.
    """
    if (skip := _communication_only(instance)) is not None:
        return skip
    params = params or DelaySchedulingParams()
    trace = list_schedule(instance, "delay", delay=params.delay, wait=params.wait)
    simulated_nonlocal = int(np.count_nonzero(~local_flags(instance, trace.server_of_task)))
    server_of_task, moves = repair_no_idle(instance, trace.server_of_task)
    notes = (
        f"delay={params.delay}, wait={params.wait}: simulated idle time {trace.idle_time} ({trace.waits} waits), "
        f"simulated makespan {trace.makespan}",
        f"no-idle repair moved {moves} tasks",
        f"simulated non-local tasks before repair {simulated_nonlocal}",
    )
    solution = Solution.from_assignment(
        server_of_task, instance.servers, sort_key=queue_lengths(instance, server_of_task)
    )
    return Result(status=Status.FEASIBLE, bound=_cheap_bound(instance), solution=solution, notes=notes)


def plan_then_execute(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Optimal unit semi-matching as queues, then local work stealing.

    Parameters
    ----------
    instance
        Either objective (under objective 2 a server whose own and local work
        is done then takes any task, as the no-idle rule demands).
    time_limit, seed
        Unused (the plan is seeded with 0, as before the method contract).
    params
        None (no options).

    Returns
    -------
    Result
        FEASIBLE, with the objective's cheap bound.
    """
    plan = optimal_semi_matching_assignment(instance).server_of_task
    trace = list_schedule(
        instance, "plan", plan=np.asarray(plan, dtype=np.int64), allow_remote=instance.objective == "communication"
    )
    return _schedule_result(instance, trace)
