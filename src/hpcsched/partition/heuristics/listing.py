"""List schedulers with memory reservations: HEFT and ETF (the engine's ``fits``/``on_place`` hooks)."""

from __future__ import annotations

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ...taskgraph import ListScheduler, NoPlacementError, Placement, list_schedule
from .. import bounds
from ..model import Instance, Solution
from ..simulate import (
    checking,
    own_memory,
    ranks,
    unit_index,
    units,
)
from .common import no_schedule

# --- HEFT with a memory check ---------------------------------------------------------------------


def heft(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """HEFT with a memory check: by decreasing upward rank, each node on the GPU where it finishes earliest among
    those with room.

    Memory goes through the engine's ``fits`` hook (and ``on_place`` to
    commit): the GPU g of a node reserves, when the node's colocation unit
    first lands there, the unit's Σ (w + s), and, with dynamic memory, s_u
    for every predecessor u already placed on another GPU (the copy of a
    cut edge into g; predecessors are always placed first). These are
    exactly the ledger's terms (`hpcsched.partition.simulate`), so
    reservations <= M on every GPU keep the memory rule for any schedule.
    Later members go where their unit is; pinned units go to their pin.

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
        FEASIBLE with the schedule; NOT_APPLICABLE when the memory reservations leave a node no GPU
        (proves nothing).
    """
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    fits, on_place = _memory_hooks(instance)
    deadline.check("setting up memory reservations")
    rank = ranks(instance)
    deadline.check("ranking")
    try:
        placements = list_schedule(
            instance.n,
            instance.edges,
            instance.machines,
            lambda j, c: instance.nodes[j].time,
            [-r for r in rank],
            rule="machine",
            fits=fits,
            on_place=checking(deadline, "list scheduling (HEFT)", on_place),
            names=[node.name for node in instance.nodes],
        )
    except NoPlacementError as error:
        return no_schedule(f"HEFT's memory reservations left no GPU for a node ({error})")
    return Result(status=Status.FEASIBLE, solution=Solution.from_placements(placements))


def _memory_hooks(instance: Instance):
    """``(fits, on_place)`` for the engine: the memory reservations described in `heft`."""
    unit_list = units(instance)
    owner = unit_index(instance, unit_list)
    need = [sum(own_memory(instance, v) for v in unit.members) for unit in unit_list]
    incoming: list[list[int]] = [[] for _ in range(instance.n)]
    if instance.memory_model == "dynamic":
        for edge in instance.edges:
            incoming[edge.v].append(edge.u)
    reserved = [0] * instance.gpus
    placed_on: list[int | None] = [None] * len(unit_list)
    gpu_of: list[int | None] = [None] * instance.n

    def extra(task: int, gpu: int) -> int:
        amount = need[owner[task]] if placed_on[owner[task]] is None else 0
        return amount + sum(instance.nodes[u].output for u in incoming[task] if gpu_of[u] != gpu)

    def fits(task: int, machine: tuple, start: float) -> bool:
        u, gpu = owner[task], machine[1]
        if placed_on[u] is not None:
            return gpu == placed_on[u] and reserved[gpu] + extra(task, gpu) <= instance.memory
        if unit_list[u].pin is not None and gpu != unit_list[u].pin:
            return False
        return reserved[gpu] + extra(task, gpu) <= instance.memory

    def on_place(task: int, placement: Placement) -> None:
        gpu = placement.machine
        reserved[gpu] += extra(task, gpu)
        placed_on[owner[task]] = gpu
        gpu_of[task] = gpu

    return fits, on_place


def etf(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ETF (earliest task first) with HEFT's memory check: among the ready nodes, the one that can start earliest,
    where it starts earliest.

    The engine's `ListScheduler` gives each ready node its best placement
    (with identical GPUs the earliest finish is the earliest start plus
    p_v); ties by larger upward rank, then index. Memory: the reservations
    of `heft` (``fits`` in the engine, committed after each placement).
    O(n · r) placements for r ready nodes: for graphs up to ~10^4 nodes.

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
        FEASIBLE with the schedule; NOT_APPLICABLE when the memory reservations leave a node no GPU
        (proves nothing).
    """
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    fits, on_place = _memory_hooks(instance)
    deadline.check("setting up memory reservations")
    rank = ranks(instance)
    deadline.check("ranking")
    n = instance.n
    state = ListScheduler(
        n, instance.edges, instance.machines, lambda j, c: instance.nodes[j].time, rule="machine", fits=fits
    )
    waiting = [0] * n
    outgoing: list[list[int]] = [[] for _ in range(n)]
    for edge in instance.edges:
        waiting[edge.v] += 1
        outgoing[edge.u].append(edge.v)
    ready = {j for j in range(n) if waiting[j] == 0}
    while ready:
        deadline.check("placing nodes (ETF)")
        best: tuple[tuple[float, float, int], int, Placement] | None = None
        for j in ready:
            placement = state.best_placement(j)
            if placement is None:
                return no_schedule(f"ETF's memory reservations left no GPU for node '{instance.nodes[j].name}'")
            key = (placement.start, -rank[j], j)
            if best is None or key < best[0]:
                best = (key, j, placement)
        assert best is not None  # ready is non-empty inside the loop
        _, j, placement = best
        state.place(j, placement)
        on_place(j, placement)
        ready.remove(j)
        for v in outgoing[j]:
            waiting[v] -= 1
            if waiting[v] == 0:
                ready.add(v)
    return Result(status=Status.FEASIBLE, solution=Solution.from_placements(state.schedule()))
