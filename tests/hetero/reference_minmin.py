"""The MinMin that `hpcsched.hetero.heuristics.minmin` replaced, kept as the tests' and the speed benchmark's oracle.

A cached best placement per ready task, re-evaluated only when the machine it
chose has just been taken: exact to the plain rule (tests/hetero/test_minmin_cache.py
checked it against re-evaluating every ready task), but O(n·r) best-placement
evaluations in the worst case (9.3 million, 111 s, on the 10^5-task layered graph).
Copied unchanged from src/hpcsched/hetero/heuristics/listing.py as of commit aa042b9.
"""

from __future__ import annotations

import heapq

from hpcsched.core.deadline import Deadline
from hpcsched.hetero.model import Instance
from hpcsched.taskgraph import ListScheduler, NoPlacementError, Placement


def reference_minmin_placements(instance: Instance, deadline: Deadline | None = None) -> tuple[Placement, ...]:
    """MinMin's schedule: repeatedly place the ready task whose earliest finish time is smallest (ties: smaller index).

    Each ready task's best placement is cached and recomputed only when the
    machine it chose has just been taken. This is exact: without insertion
    the engine's candidate on a class is its earliest-free machine, and the
    key of that candidate (finish, start, class, free time, index) can only
    grow as machines' free times grow; so a task whose chosen machine was
    not the one just used keeps the same best placement. Cost: one
    best-placement evaluation per task made ready plus one per invalidated
    task; O(n·r) in the worst case (r ready tasks all choosing the same
    earliest-free machine), much less when choices spread over machines.
    """
    n = instance.n
    state = ListScheduler(n, instance.edges, instance.machines, instance.time, rule="class")
    waiting = [0] * n
    outgoing: list[list[int]] = [[] for _ in range(n)]
    for edge in instance.edges:
        waiting[edge.v] += 1
        outgoing[edge.u].append(edge.v)
    cached: dict[int, Placement] = {}
    stamp = [0] * n
    by_machine: dict[tuple, set[int]] = {}
    heap: list[tuple[float, int, int]] = []

    def evaluate(j: int) -> None:
        placement = state.best_placement(j)
        if placement is None:
            raise NoPlacementError(f"task '{instance.tasks[j].name}' can run on no available machine")
        cached[j] = placement
        stamp[j] += 1
        by_machine.setdefault((placement.machine_class, placement.machine), set()).add(j)
        heapq.heappush(heap, (placement.end, j, stamp[j]))

    for j in range(n):
        if waiting[j] == 0:
            evaluate(j)
    while heap:
        if deadline is not None:
            deadline.check("placing tasks (MinMin)")
        _, j, version = heapq.heappop(heap)
        if j not in cached or version != stamp[j]:
            continue  # stale entry
        placement = cached.pop(j)
        machine = (placement.machine_class, placement.machine)
        by_machine[machine].discard(j)
        state.place(j, placement)
        for other in sorted(by_machine.pop(machine, ())):
            evaluate(other)
        for v in outgoing[j]:
            waiting[v] -= 1
            if waiting[v] == 0:
                evaluate(v)
    return state.schedule()
