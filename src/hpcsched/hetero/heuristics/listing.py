"""List-scheduling heuristics on the shared engine: HEFT (with, without insertion), HLP rounding, MinMin, one type."""

from __future__ import annotations

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import list_schedule, upward_ranks
from .. import bounds
from ..model import Instance, require_runnable
from ..simulate import average_cost
from .common import checking, duration_on, feasible_result
from .minmin import minmin_placements


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
        on_place=checking(deadline, "placing tasks (HEFT)"),
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
    value, share = bounds.hlp_solution(instance, deadline)
    kind = ["cpu" if share[j] >= 0.5 else "gpu" for j in range(instance.n)]
    times = [instance.run_time(j, kind[j]) for j in range(instance.n)]
    rank = upward_ranks(instance.n, instance.edges, times)
    deadline.check("ranking")
    placements = list_schedule(
        instance.n,
        instance.edges,
        instance.machines,
        duration_on(instance, lambda j, k: k == kind[j]),
        [-r for r in rank],
        rule="class",
        on_place=checking(deadline, "placing tasks (HLP rounding)"),
    )
    result = feasible_result(placements, f"HLP value {value:.6g}; {kind.count('gpu')} tasks rounded to GPUs")
    return result.replace(bound=bounds.lp_bound(value))  # the HLP just solved: not a second solve


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
        on_place=checking(deadline, "placing tasks"),
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
