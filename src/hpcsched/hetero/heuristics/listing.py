"""List-scheduling heuristics on the shared engine: HEFT (with, without insertion), HLP rounding, MinMin, one type."""

from __future__ import annotations

import heapq

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import ListScheduler, NoPlacementError, Placement, list_schedule, upward_ranks
from .. import bounds
from ..model import Instance, require_runnable
from ..simulate import average_cost
from .common import duration_on, feasible_result


def heft_ranks(instance: Instance) -> list[float]:
    """HEFT's upward rank: averaged time over the machines that can run a task, plus c_uv on every edge."""
    return upward_ranks(instance.n, instance.edges, [average_cost(instance, j) for j in range(instance.n)])


def _heft(instance: Instance, time_limit: float, insertion: bool) -> Result:
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    rank = heft_ranks(instance)
    deadline.check("computing HEFT's ranks")
    placements = list_schedule(
        instance.n,
        instance.edges,
        instance.machines,
        instance.time,
        [-r for r in rank],
        rule="class",
        insertion=insertion,
        names=[t.name for t in instance.tasks],
    )
    return feasible_result(placements)


def heft(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """HEFT without insertion: by decreasing upward rank, each task where it finishes earliest (after the machine's
    last task).

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
        FEASIBLE with the schedule (no bound).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    return _heft(instance, time_limit, insertion=False)


def heft_insertion(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """HEFT with insertion: as heft, but a task may fill an idle gap between two placed tasks.

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
        FEASIBLE with the schedule (no bound).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    return _heft(instance, time_limit, insertion=True)


def hlp_rounding(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """HLP rounding: solve HLP, put task j on CPUs iff x_j >= 1/2, then list-schedule (HEFT order on the chosen
    times).

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
        FEASIBLE with the schedule and the HLP lower bound (`bounds.hlp`).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    value, share = bounds.hlp_solution(instance)
    deadline.check("solving HLP")
    kind = ["cpu" if share[j] >= 0.5 else "gpu" for j in range(instance.n)]
    times = [instance.run_time(j, kind[j]) for j in range(instance.n)]
    rank = upward_ranks(instance.n, instance.edges, times)
    placements = list_schedule(
        instance.n,
        instance.edges,
        instance.machines,
        duration_on(instance, lambda j, k: k == kind[j]),
        [-r for r in rank],
        rule="class",
    )
    result = feasible_result(placements, f"HLP value {value:.6g}; {kind.count('gpu')} tasks rounded to GPUs")
    return result.replace(bound=bounds.hlp(instance))


def minmin_placements(instance: Instance, deadline: Deadline | None = None) -> tuple[Placement, ...]:
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


def minmin(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """MinMin: among the ready tasks, place the one whose earliest finish time is smallest (see `minmin_placements`).

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
        FEASIBLE with the schedule (no bound).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    deadline = Deadline.after(time_limit)
    require_runnable(instance)
    return feasible_result(minmin_placements(instance, deadline))


def _one_type(instance: Instance, kind: str, time_limit: float) -> Result:
    deadline = Deadline.after(time_limit)
    count = instance.cpus if kind == "cpu" else instance.gpus
    if count == 0:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"the platform has no {kind.upper()}",))
    forbidden = [t.name for t in instance.tasks if t.time(kind) is None]
    if forbidden:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"task '{forbidden[0]}' cannot run on a {kind.upper()}",))
    times = [instance.run_time(j, kind) for j in range(instance.n)]
    rank = upward_ranks(instance.n, instance.edges, times)
    deadline.check("ranking")
    placements = list_schedule(
        instance.n,
        instance.edges,
        instance.machines,
        duration_on(instance, lambda j, k: k == kind),
        [-r for r in rank],
        rule="class",
    )
    return feasible_result(placements, f"every task on {kind.upper()}s, critical-path list scheduling")


def all_cpu(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Baseline: every task on the CPUs, list scheduling by longest path to an exit.

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
        FEASIBLE with the schedule (no bound), or NOT_APPLICABLE when the platform has no CPU or a task
        cannot run on one.
    """
    return _one_type(instance, "cpu", time_limit)


def all_gpu(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Baseline: every task on the GPUs, list scheduling by longest path to an exit.

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
        FEASIBLE with the schedule (no bound), or NOT_APPLICABLE when the platform has no GPU or a task
        cannot run on one.
    """
    return _one_type(instance, "gpu", time_limit)
