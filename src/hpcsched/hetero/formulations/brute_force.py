"""Brute force for hetero: every type assignment and order on tiny instances."""

from __future__ import annotations

import math

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import predecessors
from ..model import TYPES, Instance, require_runnable
from .common import solution_from_starts

#: Largest n brute force accepts.
BRUTE_FORCE_MAX_TASKS = 7


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

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Wall-clock seconds; `TimeLimitReached` is raised when they run out.
    seed
        Unused: the method is deterministic.
    params
        None: the method has no options.

    Returns
    -------
    Result
        OPTIMAL with the schedule and its makespan as bound; NOT_APPLICABLE when n > `BRUTE_FORCE_MAX_TASKS`.

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
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
        solution=solution_from_starts(instance, best["kinds"], best["starts"]),
        notes=(f"{counter[0]} search nodes",),
    )
