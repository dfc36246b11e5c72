"""Brute force for partition (n <= 7, K <= 3): every assignment x every semi-active order (static memory) or
every branch of the disjunctive search (dynamic memory, `hpcsched.partition.formulations.disjunctive`)."""

from __future__ import annotations

import itertools
import math

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import predecessors
from .. import bounds
from ..model import Instance, Solution
from ..simulate import units
from .common import static_memory_ok
from .disjunctive import AssignmentSearch

#: Largest n and K brute force accepts.
BRUTE_FORCE_MAX_NODES = 7
BRUTE_FORCE_MAX_GPUS = 3


def _assignments(instance: Instance):
    """Every node -> GPU map that respects pins, colocation and (static model) memory; GPUs relabelled canonically
    without pins."""
    unit_list = units(instance)
    symmetric = all(unit.pin is None for unit in unit_list)
    for labels in itertools.product(range(instance.gpus), repeat=len(unit_list)):
        if symmetric and any(labels[i] > max(labels[:i], default=-1) + 1 for i in range(len(labels))):
            continue  # a relabelling of an assignment already enumerated (identical GPUs)
        if any(unit.pin is not None and labels[i] != unit.pin for i, unit in enumerate(unit_list)):
            continue
        gpu_of = [0] * instance.n
        for i, unit in enumerate(unit_list):
            for v in unit.members:
                gpu_of[v] = labels[i]
        if instance.memory_model != "static" or static_memory_ok(instance, gpu_of):
            yield gpu_of


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Exhaustive search (n <= 7, K <= 3): every assignment, then every semi-active order (static memory) or the
    disjunctive search (dynamic memory).

    Theorem: the optimum is found. Pins and colocation depend on the
    assignment only, which is enumerated (up to relabelling identical GPUs
    when nothing is pinned); so does static memory. Static memory: for a
    fixed assignment, list the nodes of an optimal schedule by start;
    placing them in that order, each at max(data ready, end of the previous
    node on its GPU) (a node of length 0 at its data-ready time), every node
    starts no later than in the optimum (induction on the order: its
    predecessors end no later, so its data is ready no later, and the
    previous node on its GPU ends no later). The search branches on the
    next ready node and prunes by the best makespan found. Dynamic memory:
    an optimum may need idle time, and `disjunctive.AssignmentSearch`
    (theorem in its module) searches every order of the items and runs
    that matters, exhaustively; the best makespan over all assignments
    prunes each search.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        Unused: the method is deterministic.
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL with an optimal schedule, INFEASIBLE when no assignment has a valid schedule;
        NOT_APPLICABLE outside n <= 7, K <= 3.
    """
    if instance.n > BRUTE_FORCE_MAX_NODES or instance.gpus > BRUTE_FORCE_MAX_GPUS:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"brute force is limited to n <= {BRUTE_FORCE_MAX_NODES} and K <= {BRUTE_FORCE_MAX_GPUS}",),
        )
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    if instance.memory_model == "static":
        return _static_search(instance, deadline)
    return _dynamic_search(instance, deadline)


def _dynamic_search(instance: Instance, deadline: Deadline) -> Result:
    """The disjunctive search on every assignment, the best makespan so far as the cut (`brute_force`)."""
    best: tuple[int, list[int], list[int]] | None = None
    branches = 0
    for gpu_of in _assignments(instance):
        search = AssignmentSearch(instance, gpu_of, deadline)
        found = search.best(best[0] if best is not None else math.inf)  # type: ignore[arg-type]
        branches += search.branches
        if found is not None:
            best = (found[0], list(gpu_of), found[1])
    if best is None:
        from ...core.errors import InfeasibleError

        raise InfeasibleError(
            "no assignment has a schedule within pins, colocation and dynamic memory (exhaustive disjunctive search)"
        )
    return Result(
        status=Status.OPTIMAL,
        solution=Solution(tuple(best[1]), tuple(best[2])),
        notes=(f"{branches} branches of the disjunctive search",),
    )


def _static_search(instance: Instance, deadline: Deadline) -> Result:
    """Every feasible assignment x every semi-active order, pruned by the best makespan (`brute_force`)."""
    n = instance.n
    times = instance.times
    incoming = predecessors(n, instance.edges)
    best: dict = {"makespan": math.inf, "gpu": None, "start": None}
    counter = [0]
    found_assignment = False
    for gpu_of in _assignments(instance):
        found_assignment = True
        starts: list[int | None] = [None] * n
        free = [0] * instance.gpus

        # this assignment's state, bound now (the closure runs inside this iteration only)
        def search(placed: int, makespan: int, gpu_of=gpu_of, starts=starts, free=free) -> None:
            counter[0] += 1
            if counter[0] % 4096 == 0:
                deadline.check("enumerating schedules (brute force)")
            if makespan >= best["makespan"]:
                return
            if placed == n:
                best.update(makespan=makespan, gpu=list(gpu_of), start=list(starts))
                return
            for j in range(n):
                if starts[j] is not None or any(starts[e.u] is None for e in incoming[j]):
                    continue
                g = gpu_of[j]
                ready = max(
                    (starts[e.u] + times[e.u] + (e.delay if gpu_of[e.u] != g else 0) for e in incoming[j]), default=0
                )
                if times[j] == 0:
                    starts[j] = ready
                    search(placed + 1, max(makespan, ready))
                    starts[j] = None
                    continue
                previous = free[g]
                start = max(ready, previous)
                starts[j] = start
                free[g] = start + times[j]
                search(placed + 1, max(makespan, start + times[j]))
                free[g] = previous
                starts[j] = None

        search(0, 0)
    if not found_assignment:
        from ...core.errors import InfeasibleError

        raise InfeasibleError("no assignment of the nodes respects pins, colocation and static memory (exhaustive)")
    return Result(
        status=Status.OPTIMAL,
        solution=Solution(tuple(best["gpu"]), tuple(best["start"])),
        notes=(f"{counter[0]} search nodes",),
    )
