"""Heuristics for independent tasks: DualHP (dual approximation) and CLB2C."""

from __future__ import annotations

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import Placement, list_schedule
from .. import bounds
from ..model import Instance, require_runnable
from ..simulate import acceleration
from .common import checking, duration_on, feasible_result


def _schedule_assignment(instance: Instance, kind: list[str], deadline: Deadline) -> tuple[Placement, ...]:
    """Independent tasks with fixed types: LPT list scheduling on each type (``deadline`` checked)."""
    times = [instance.run_time(j, kind[j]) for j in range(instance.n)]
    return list_schedule(
        instance.n,
        (),
        instance.machines,
        duration_on(instance, lambda j, k: k == kind[j]),
        [-t for t in times],
        rule="class",
        on_place=checking(deadline, "placing tasks"),
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
    return feasible_result(_schedule_assignment(instance, best, deadline), f"smallest accepted guess λ = {high}")


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
    deadline = Deadline.after(time_limit)
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
    return feasible_result(_schedule_assignment(instance, kind, deadline))
