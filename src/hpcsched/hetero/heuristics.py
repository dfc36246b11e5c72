"""Heuristics and baselines for hetero: HEFT, HeteroPrio, HLP rounding, MinMin, DualHP, CLB2C, one-type baselines.

All list schedules come from the shared engine (`hpcsched.taskgraph`), the
HeteroPrio simulation from `hpcsched.hetero.simulate`. No heuristic claims a
bound (the registry compares them with `bounds.best` in the tests and
benchmarks); every schedule is checked by the validator in the registry.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..core.deadline import Deadline
from ..core.result import Result, Status
from ..taskgraph import ListScheduler, NoPlacementError, Placement, list_schedule, upward_ranks
from . import bounds
from .model import Instance, Solution, require_runnable
from .simulate import acceleration, average_cost, is_uniform_acceleration
from .simulate import heteroprio as simulate_heteroprio


def _feasible(placements, *notes: str) -> Result:
    return Result(status=Status.FEASIBLE, solution=Solution.from_placements(placements), notes=tuple(notes))


def _duration(instance: Instance, allowed: Callable[[int, str], bool] | None = None):
    if allowed is None:
        return instance.time
    return lambda j, kind: instance.time(j, kind) if allowed(j, kind) else None


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
    return _feasible(placements)


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


@dataclass(frozen=True)
class HeteroPrioParams:
    """Options of heteroprio.

    Attributes
    ----------
    spoliation
        ``"earliest-finish"`` (the candidate the idle resource finishes
        earliest), ``"latest-end"`` (the candidate whose running copy ends
        last) or ``"none"`` (see `hpcsched.hetero.simulate`).
    """

    spoliation: Literal["earliest-finish", "latest-end", "none"] = "earliest-finish"


def _heteroprio(instance: Instance, time_limit: float, spoliation: str) -> Result:
    deadline = Deadline.after(time_limit)
    run = simulate_heteroprio(instance, spoliation=spoliation)
    deadline.check("running HeteroPrio")
    notes = [f"spoliation rule: {spoliation}; {run.spoliations} spoliations, aborted work {run.aborted_work}"]
    if is_uniform_acceleration(instance):
        notes.append(
            "uniform acceleration (Q|prec|Cmax with two speeds): HeteroPrio's ordering degenerates to ties by rank"
        )
    return _feasible(run.placements, *notes)


def heteroprio(instance: Instance, /, *, time_limit: float, seed: int, params: HeteroPrioParams | None) -> Result:
    """HeteroPrio with spoliation: idle GPUs take the most accelerated ready task, CPUs the least; idle resources
    spoliate.

    Parameters
    ----------
    instance
        The hetero instance.
    time_limit
        Wall-clock seconds; `TimeLimitReached` is raised when they run out.
    seed
        Unused: the method is deterministic.
    params
        `HeteroPrioParams` (the spoliation rule); None = the defaults.

    Returns
    -------
    Result
        FEASIBLE with the schedule (no bound).

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    return _heteroprio(instance, time_limit, (params or HeteroPrioParams()).spoliation)


def heteroprio_nospol(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """HeteroPrio without spoliation (StarPU's heteroprio scheduler).

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
    return _heteroprio(instance, time_limit, "none")


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
        _duration(instance, lambda j, k: k == kind[j]),
        [-r for r in rank],
        rule="class",
    )
    result = _feasible(placements, f"HLP value {value:.6g}; {kind.count('gpu')} tasks rounded to GPUs")
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
    return _feasible(minmin_placements(instance, deadline))


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
        _duration(instance, lambda j, k: k == kind),
        [-r for r in rank],
        rule="class",
    )
    return _feasible(placements, f"every task on {kind.upper()}s, critical-path list scheduling")


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


def _schedule_assignment(instance: Instance, kind: list[str]) -> tuple[Placement, ...]:
    """Independent tasks with fixed types: LPT list scheduling on each type."""
    times = [instance.run_time(j, kind[j]) for j in range(instance.n)]
    return list_schedule(
        instance.n,
        (),
        instance.machines,
        _duration(instance, lambda j, k: k == kind[j]),
        [-t for t in times],
        rule="class",
    )


def _independent_only(instance: Instance) -> Result | None:
    if instance.edges:
        return Result(status=Status.NOT_APPLICABLE, notes=("for independent tasks only (the instance has edges)",))
    require_runnable(instance)
    return None


def dual_assignment(instance: Instance, guess: float) -> list[str] | None:
    """DualHP's allocation for the makespan guess λ, or None when it proves λ too small.

    Tasks longer than λ on one type go to the other (None if both exceed
    λ); the rest go to GPUs by decreasing acceleration while the GPU load
    is below kλ (the last one may cross it); None if the CPU load then
    exceeds mλ. Theorem (Bleuse et al. 2014): when λ >= OPT this never
    refuses, and list scheduling each side gives a makespan <= 2λ.
    """
    kind: list[str | None] = [None] * instance.n
    load = {"cpu": 0.0, "gpu": 0.0}
    free = []
    for j in range(instance.n):
        cpu, gpu = instance.time(j, "cpu"), instance.time(j, "gpu")
        cpu_ok, gpu_ok = cpu is not None and cpu <= guess, gpu is not None and gpu <= guess
        if not cpu_ok and not gpu_ok:
            return None
        if cpu_ok and gpu_ok:
            free.append(j)
        else:
            chosen = "cpu" if cpu_ok else "gpu"
            kind[j] = chosen
            load[chosen] += instance.run_time(j, chosen)
    free.sort(key=lambda j: (-acceleration(instance, j), j))
    for j in free:
        chosen = "gpu" if load["gpu"] < instance.gpus * guess else "cpu"
        kind[j] = chosen
        load[chosen] += instance.run_time(j, chosen)
    if load["cpu"] > instance.cpus * guess or load["gpu"] > instance.gpus * guess + guess:
        return None
    return [chosen for chosen in kind if chosen is not None]  # every task got a type above


def dualhp(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """DualHP (independent tasks): binary search on the makespan guess with the dual allocation, then LPT per type.

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
        FEASIBLE with the schedule (no bound), or NOT_APPLICABLE when the instance has edges.

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    refused = _independent_only(instance)
    if refused:
        return refused
    deadline = Deadline.after(time_limit)
    low = max(0, bounds.area(instance) - 1)  # refused or not: the search finds the smallest accepted integer
    high = sum(max(instance.time(j, k) or 0 for k in ("cpu", "gpu")) for j in range(instance.n))
    best = dual_assignment(instance, high)
    assert best is not None, "every task fits in the sum of all times"
    while high - low > 1:
        deadline.check("searching the makespan guess (DualHP)")
        middle = (low + high) // 2
        kind = dual_assignment(instance, middle)
        if kind is None:
            low = middle
        else:
            high, best = middle, kind
    return _feasible(_schedule_assignment(instance, best), f"smallest accepted guess λ = {high}")


def _completion(loads: list[int], time: int | None) -> int | None:
    """Completion time of a task of ``time`` on the least loaded machine, None without machines or time."""
    if not loads or time is None:
        return None
    return min(loads) + time


def clb2c(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """CLB2C (Cherière and Saule 2015, independent tasks): from both ends of the acceleration order, place the end
    with the earlier completion.

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
        FEASIBLE with the schedule (no bound), or NOT_APPLICABLE when the instance has edges.

    Raises
    ------
    InfeasibleError
        When a task can run on no available machine (its only type has none).
    """
    refused = _independent_only(instance)
    if refused:
        return refused
    order = sorted(range(instance.n), key=lambda j: (acceleration(instance, j), j))
    cpu_loads = [0] * instance.cpus
    gpu_loads = [0] * instance.gpus
    low, high = 0, instance.n - 1
    kind = [""] * instance.n  # every index is assigned: low and high meet
    while low <= high:
        on_cpu = _completion(cpu_loads, instance.time(order[low], "cpu"))
        on_gpu = _completion(gpu_loads, instance.time(order[high], "gpu"))
        if on_gpu is None or (on_cpu is not None and on_cpu <= on_gpu):
            if on_cpu is None:  # neither end fits its side: the low end is GPU-only, the high end CPU-only
                j = order[low]
                kind[j] = "gpu"
                gpu_loads[gpu_loads.index(min(gpu_loads))] += instance.run_time(j, "gpu")
                low += 1
                continue
            j = order[low]
            kind[j] = "cpu"
            cpu_loads[cpu_loads.index(min(cpu_loads))] += instance.run_time(j, "cpu")
            low += 1
        else:
            j = order[high]
            kind[j] = "gpu"
            gpu_loads[gpu_loads.index(min(gpu_loads))] += instance.run_time(j, "gpu")
            high -= 1
    return _feasible(_schedule_assignment(instance, kind))
