"""`evaluate` and `validate`, written from the definition (they share no code with the simulators or models)."""

from __future__ import annotations

import numpy as np

from ...core.violation import Violation
from .instance import Instance
from .solution import Solution


def _placement(instance: Instance, solution: Solution) -> tuple[np.ndarray, np.ndarray]:
    """(server of each queue entry, is that entry local)."""
    entry_server = np.repeat(np.arange(solution.num_queues, dtype=np.int32), np.diff(solution.queue_offsets))
    tasks = solution.queue_tasks
    counts = instance.replica_counts
    width = int(counts[0])
    if np.all(counts == width):  # n x r view, one comparison per replica slot
        matrix = instance.replica_servers.reshape(-1, width)
        local = matrix[tasks, 0] == entry_server
        for k in range(1, width):
            local |= matrix[tasks, k] == entry_server
        return entry_server, local
    # membership of entry_server in R_task: compare against every replica slot
    starts = instance.replica_offsets[tasks]
    counts = instance.replica_counts[tasks]
    local = np.zeros(tasks.size, dtype=bool)
    for k in range(int(counts.max()) if counts.size else 0):
        has = counts > k
        slot = instance.replica_servers[np.where(has, starts + k, 0)]
        local |= has & (slot == entry_server)
    return entry_server, local


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Objective and KPIs.

    Objective 1: ``objective`` = makespan (largest server load). Objective 2:
    ``objective`` = number of non-local tasks, ``makespan`` with remote tasks
    lasting ``p_j + remote_cost``. Both report ``nonlocal_tasks``,
    ``nonlocal_fraction``, ``makespan``, ``mean_load``, ``min_load``.
    """
    entry_server, local = _placement(instance, solution)
    durations = instance.durations[solution.queue_tasks].astype(np.int64)
    if instance.objective == "communication":
        durations = durations + np.where(local, 0, instance.remote_cost)
    loads = np.bincount(entry_server, weights=durations, minlength=instance.servers)
    nonlocal_tasks = int(np.count_nonzero(~local))
    makespan = float(loads.max()) if loads.size else 0.0
    kpis = {
        "makespan": makespan,
        "nonlocal_tasks": float(nonlocal_tasks),
        "nonlocal_fraction": nonlocal_tasks / max(1, instance.num_tasks),
        "mean_load": float(loads.sum() / instance.servers),
        "min_load": float(loads[: instance.servers].min()),
    }
    kpis["objective"] = makespan if instance.objective == "makespan" else float(nonlocal_tasks)
    return kpis


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition that ``solution`` breaks ([] = feasible)."""
    violations: list[Violation] = []
    n, m = instance.num_tasks, instance.servers
    tasks = solution.queue_tasks
    if solution.num_queues > m:
        extra = np.diff(solution.queue_offsets)[m:]
        if np.any(extra > 0):
            violations.append(Violation("server", f"{solution.num_queues} queues but only {m} servers (0..{m - 1})"))
    bad_ids = tasks[(tasks < 0) | (tasks >= n)]
    if bad_ids.size:
        violations.append(Violation("task", f"task {bad_ids[0]} does not exist (valid: 0..{n - 1})"))
        return violations
    times_listed = np.bincount(tasks, minlength=n)
    for j in np.flatnonzero(times_listed > 1)[:5]:
        violations.append(Violation("once", f"task {instance.task_name(int(j))} is listed {times_listed[j]} times"))
    for j in np.flatnonzero(times_listed == 0)[:5]:
        violations.append(Violation("once", f"task {instance.task_name(int(j))} is in no queue"))
    if violations:
        return violations
    # Rebuild each entry's server and whether it is local, from R_j directly.
    queue_of_entry = np.repeat(np.arange(solution.num_queues), np.diff(solution.queue_offsets))
    server_of_task = np.empty(n, dtype=np.int64)
    server_of_task[tasks] = queue_of_entry
    replica_counts = instance.replica_counts
    width = int(replica_counts[0])
    if np.all(replica_counts == width):  # n x r view: no per-replica index arrays
        is_local = (instance.replica_servers.reshape(n, width) == server_of_task[:, None]).any(axis=1)
    else:
        is_local = np.zeros(n, dtype=bool)
        task_of_replica = np.repeat(np.arange(n), replica_counts)
        is_local[task_of_replica[instance.replica_servers == server_of_task[task_of_replica]]] = True
    if instance.objective == "makespan":
        for j in np.flatnonzero(~is_local)[:10]:
            violations.append(
                Violation(
                    "local",
                    f"task {instance.task_name(int(j))} runs on server {server_of_task[j]}, "
                    f"not one of its replicas {instance.replicas(int(j)).tolist()}",
                )
            )
        return violations
    # Objective 2: back-to-back start times from 0, then the no-idle rule.
    length = instance.durations[tasks] + np.where(is_local[tasks], 0, instance.remote_cost)
    end = np.cumsum(length)
    queue_start = solution.queue_offsets[:-1]
    before_queue = np.concatenate(([0], end))[queue_start]  # cumulative length before each queue
    start = end - length - np.repeat(before_queue, np.diff(solution.queue_offsets))
    completion = np.zeros(m, dtype=np.int64)
    counts = np.diff(solution.queue_offsets)[:m]
    nonempty = np.flatnonzero(counts > 0)
    last_entry = solution.queue_offsets[1:][:m][nonempty] - 1
    completion[nonempty] = end[last_entry] - before_queue[nonempty]
    latest_start = int(start.max())
    earliest_completion = int(completion.min())
    if latest_start > earliest_completion:
        late = int(np.argmax(start))
        idle_server = int(np.argmin(completion))
        violations.append(
            Violation(
                "idle",
                f"server {idle_server} is idle from {earliest_completion} while task "
                f"{instance.task_name(int(tasks[late]))} starts only at {latest_start} "
                f"on server {queue_of_entry[late]}",
            )
        )
    return violations
