"""Event simulators used by the heuristics (never by the validator).

`list_schedule` simulates servers that, whenever free, ask a *policy* for
their next task; the policies are Hadoop's greedy (local first, else remote),
delay scheduling (wait up to D heartbeats for a local task) and
plan-then-execute (own planned queue, then local work stealing). Each run is
O((n r + n) log m) with plain Python lists, so 10^6 tasks take seconds.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from .model import Instance


@dataclass
class Trace:
    """What a simulation did: the queues in start order and its timeline facts."""

    server_of_task: np.ndarray
    start: np.ndarray
    idle_time: int
    makespan: int
    waits: int


def tasks_by_server(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    """Reverse index (CSR): the tasks that have server i as a replica, by task index."""
    order = np.argsort(instance.replica_servers, kind="stable")
    task_of_entry = np.repeat(np.arange(instance.num_tasks, dtype=np.int64), instance.replica_counts)
    counts = np.bincount(instance.replica_servers, minlength=instance.servers)
    return np.concatenate(([0], np.cumsum(counts))), task_of_entry[order]


class _Pool:
    """Remaining tasks: per-server local pointers and a global pointer, all monotone."""

    def __init__(self, instance: Instance):
        offsets, tasks = tasks_by_server(instance)
        self.offsets = offsets.tolist()
        self.local = tasks.tolist()
        self.pointer = self.offsets[:-1]  # next candidate in each server's local list
        self.taken = bytearray(instance.num_tasks)
        self.next_any = 0
        self.remaining = instance.num_tasks

    def take(self, task: int) -> None:
        self.taken[task] = 1
        self.remaining -= 1

    def local_task(self, server: int) -> int:
        position, end, taken, local = self.pointer[server], self.offsets[server + 1], self.taken, self.local
        while position < end and taken[local[position]]:
            position += 1
        self.pointer[server] = position
        return local[position] if position < end else -1

    def any_task(self) -> int:
        position, taken = self.next_any, self.taken
        while position < len(taken) and taken[position]:
            position += 1
        self.next_any = position
        return position if position < len(taken) else -1


def _is_local(instance: Instance, task: int, server: int) -> bool:
    return bool(np.any(instance.replicas(task) == server))


def list_schedule(
    instance: Instance,
    policy: str,
    *,
    delay: int = 0,
    wait: int = 1,
    plan: np.ndarray | None = None,
    allow_remote: bool = True,
) -> Trace:
    """Simulate free servers picking tasks.

    Parameters
    ----------
    policy
        ``"greedy"`` (local task if any, else the first remaining task),
        ``"delay"`` (like greedy, but a server without a local task waits
        ``wait`` time units up to ``delay`` times in a row before taking a
        remote one) or ``"plan"`` (own queue of ``plan`` first, then a local
        task stolen from anyone, then, if ``allow_remote``, any task).
    """
    n, m = instance.num_tasks, instance.servers
    durations = instance.durations.tolist()
    offsets = instance.replica_offsets.tolist()
    replica_list = instance.replica_servers.tolist()
    cost = instance.remote_cost if instance.objective == "communication" else 0
    pool = _Pool(instance)
    server_of_task = np.full(n, -1, dtype=np.int64)
    start = np.zeros(n, dtype=np.int64)
    own: list[list[int]] = []
    own_pointer = [0] * m
    if policy == "plan":
        assert plan is not None
        order = np.argsort(plan, kind="stable")
        counts = np.bincount(plan, minlength=m)
        splits = np.cumsum(counts)[:-1]
        own = [chunk.tolist() for chunk in np.split(order, splits)]
    events = [(0, i) for i in range(m)]  # (time free, server)
    skips = [0] * m
    idle = 0
    waits = 0
    makespan = 0
    assigned_server = server_of_task  # alias for speed in the loop
    while events and pool.remaining:
        now, server = heapq.heappop(events)
        task = -1
        if policy == "plan":
            queue, position = own[server], own_pointer[server]
            while position < len(queue) and pool.taken[queue[position]]:
                position += 1
            own_pointer[server] = position
            if position < len(queue):
                task = queue[position]
        if task < 0:
            task = pool.local_task(server)
        if task < 0:
            if policy == "delay" and skips[server] < delay:
                skips[server] += 1
                idle += wait
                waits += 1
                heapq.heappush(events, (now + wait, server))
                continue
            if not allow_remote:
                continue  # the server stops: nothing local is left for it
            task = pool.any_task()
        skips[server] = 0
        pool.take(task)
        assigned_server[task] = server
        start[task] = now
        length = durations[task]
        if cost and server not in replica_list[offsets[task] : offsets[task + 1]]:
            length += cost
        finish = now + length
        makespan = max(makespan, finish)
        heapq.heappush(events, (finish, server))
    return Trace(server_of_task=server_of_task, start=start, idle_time=idle, makespan=makespan, waits=waits)


def repair_no_idle(
    instance: Instance, server_of_task: np.ndarray, max_moves: int | None = None
) -> tuple[np.ndarray, int]:
    """Move tasks until back-to-back queues obey max start <= min completion.

    Each server's queue is run longest task last (minimizing its latest
    start); while the latest start of some server a exceeds the smallest
    completion (server b), one task of a moves to b: the longest of a's
    tasks that are local on b, else a's longest task. Returns the assignment
    and the number of moves.
    """
    m = instance.servers
    server_of_task = server_of_task.copy()
    local = local_flags(instance, server_of_task)
    cost = instance.remote_cost
    length = instance.durations + np.where(local, 0, cost)
    loads = np.bincount(server_of_task, weights=length, minlength=m).astype(np.int64)
    longest = np.zeros(m, dtype=np.int64)
    np.maximum.at(longest, server_of_task, length)
    matrix = instance.replica_matrix()
    moves = 0
    limit = instance.num_tasks if max_moves is None else max_moves
    while moves < limit:
        latest = loads - longest
        a, b = int(np.argmax(latest)), int(np.argmin(loads))
        if latest[a] <= loads[b]:
            break
        on_a = np.flatnonzero(server_of_task == a)
        # Prefer a task that is local on b (the move then costs no locality),
        # the longest of them; otherwise a's longest task.
        local_on_b = (matrix[on_a] == b).any(axis=1)
        pool = on_a[local_on_b] if local_on_b.any() else on_a
        task = int(pool[np.argmax(length[pool])])
        loads[a] -= length[task]
        server_of_task[task] = b
        new_length = int(instance.durations[task]) + (0 if _is_local(instance, task, b) else cost)
        length[task] = new_length
        loads[b] += new_length
        rest = on_a[on_a != task]
        longest[a] = int(length[rest].max()) if rest.size else 0
        longest[b] = max(longest[b], new_length)
        moves += 1
    return server_of_task, moves


def local_flags(instance: Instance, server_of_task: np.ndarray) -> np.ndarray:
    matrix = instance.replica_matrix()
    return (matrix == server_of_task[:, None]).any(axis=1)


def queue_lengths(instance: Instance, server_of_task: np.ndarray) -> np.ndarray:
    """Length of each task on its server (remote tasks pay the remote cost under objective 2)."""
    cost = instance.remote_cost if instance.objective == "communication" else 0
    return instance.durations + np.where(local_flags(instance, server_of_task), 0, cost)
