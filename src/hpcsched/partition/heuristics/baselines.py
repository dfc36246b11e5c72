"""Baselines: round-robin over colocation units, everything on one GPU."""

from __future__ import annotations

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import topological_order
from .. import bounds
from ..model import Instance
from ..simulate import (
    ledger,
    schedule_assignment,
    unit_index,
    units,
)
from .common import finish

# --- baselines ------------------------------------------------------------------------------------------


def round_robin(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Baseline: colocation units in topological order of their first node go to GPUs 0, 1, ..., K-1, 0, ...; repair;
    schedule.

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
        FEASIBLE with the schedule; NOT_APPLICABLE when the overflow repair finds no assignment within
        memory (proves nothing).
    """
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    unit_list = units(instance)
    owner = unit_index(instance, unit_list)
    next_gpu, assigned = 0, {}
    gpu_of = [0] * instance.n
    for v in topological_order(instance.n, instance.edges):
        u = owner[v]
        if u not in assigned:
            assigned[u] = next_gpu
            next_gpu = (next_gpu + 1) % instance.gpus
        gpu_of[v] = assigned[u]
    return finish(instance, gpu_of, deadline)


def one_gpu(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Baseline: every node on GPU 0 in upward-rank order (no communication); NOT_APPLICABLE when it does not fit or
    pins forbid.

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
        FEASIBLE with the schedule (OPTIMAL is left to `single-gpu`); NOT_APPLICABLE when it does not fit or
        pins forbid GPU 0.
    """
    deadline = Deadline.after(time_limit)
    pins = {node.pin for node in instance.nodes if node.pin is not None and node.pin != 0}
    if pins:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"nodes are pinned to GPUs {sorted(pins)}",))
    gpu_of = [0] * instance.n
    level = ledger(instance, gpu_of)[0]
    if level > instance.memory:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"all nodes on one GPU need Σ(persistent + output) = {level} bytes > M = {instance.memory}",),
        )
    deadline.check("checking memory")
    return Result(status=Status.FEASIBLE, solution=schedule_assignment(instance, gpu_of, deadline=deadline))
