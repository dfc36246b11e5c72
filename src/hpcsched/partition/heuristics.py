"""Heuristics and baselines for partition: ParDNN-style, HEFT with a memory check, Kernighan–Lin partition,
round-robin, one GPU.

Every schedule comes from the shared engine (`hpcsched.taskgraph`); memory
is kept by the ledgers of `hpcsched.partition.simulate` (sufficient for
both memory models). No heuristic claims a bound. A heuristic that finds no
assignment within memory answers NOT_APPLICABLE with a note (that proves
nothing about the instance: the exact methods decide).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.deadline import Deadline
from ..core.params import at_least, within
from ..core.result import Result, Status
from ..taskgraph import ListScheduler, NoPlacementError, Placement, list_schedule, topological_order
from . import bounds
from .model import Instance, Solution, evaluate
from .simulate import (
    Unit,
    enforce_units,
    fits_memory,
    incident_edges,
    ledger,
    own_memory,
    ranks,
    repair_memory,
    schedule_assignment,
    unit_index,
    units,
)


def _no_schedule(reason: str) -> Result:
    return Result(
        status=Status.NOT_APPLICABLE, notes=(f"no schedule found: {reason} (this proves nothing about the instance)",)
    )


def _finish(
    instance: Instance,
    gpu_of: list[int],
    deadline: Deadline,
    *notes: str,
    unit_list: Sequence[Unit] | None = None,
    priority: Sequence[float] | None = None,
) -> Result:
    """Repair memory overflows if any, then list-schedule the assignment (``unit_list``, ``priority``: precomputed)."""
    unit_list = unit_list if unit_list is not None else units(instance)
    gpu_of = enforce_units(instance, gpu_of, unit_list)
    if not fits_memory(instance, gpu_of):
        repaired = repair_memory(instance, gpu_of, unit_list, deadline)
        if repaired is None:
            return _no_schedule("the greedy overflow repair found no move that relieves an over-full GPU")
        gpu_of, moves = repaired
        notes = (*notes, f"overflow repair moved {moves} colocation units")
    deadline.check("repairing memory")
    solution = schedule_assignment(instance, gpu_of, priority)
    return Result(status=Status.FEASIBLE, solution=solution, notes=tuple(notes))


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
    """
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    fits, on_place = _memory_hooks(instance)
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
            on_place=on_place,
            names=[node.name for node in instance.nodes],
        )
    except NoPlacementError as error:
        return _no_schedule(f"HEFT's memory reservations left no GPU for a node ({error})")
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
    """
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    fits, on_place = _memory_hooks(instance)
    rank = ranks(instance)
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
                return _no_schedule(f"ETF's memory reservations left no GPU for node '{instance.nodes[j].name}'")
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


# --- ParDNN-style ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParDnnParams:
    """Options of pardnn.

    Attributes
    ----------
    refinement_passes
        Node-switching passes after the mapping.
    balance_slack
        A switch may raise the target GPU's work to at most (1 + slack) x the mean.
    buckets
        Time buckets of the per-GPU work profile used by the mapping.
    """

    refinement_passes: int = 2
    balance_slack: float = 0.1
    buckets: int = 1024

    def __post_init__(self):
        at_least("refinement_passes", self.refinement_passes, 0)
        within("balance_slack", self.balance_slack, 0.0, 10.0)
        at_least("buckets", self.buckets, 1)


class _Fenwick:
    """Prefix sums of work per time bucket (one per GPU)."""

    def __init__(self, size: int):
        self.tree = [0] * (size + 1)

    def add(self, index: int, value: int) -> None:
        index += 1
        while index < len(self.tree):
            self.tree[index] += value
            index += index & -index

    def prefix(self, index: int) -> int:  # Σ of buckets 0..index-1
        total = 0
        while index > 0:
            total += self.tree[index]
            index -= index & -index
        return total


def levels(instance: Instance) -> tuple[list[int], list[int]]:
    """``(top, bottom)``: longest path before v (transfers included, v excluded) and from v to an exit (v included)."""
    order = topological_order(instance.n, instance.edges)
    outgoing: list[list] = [[] for _ in range(instance.n)]
    for edge in instance.edges:
        outgoing[edge.u].append(edge)
    times = instance.times
    top = [0] * instance.n
    for u in order:
        for edge in outgoing[u]:
            top[edge.v] = max(top[edge.v], top[u] + times[u] + edge.delay)
    bottom = [0] * instance.n
    for u in reversed(order):
        bottom[u] = times[u] + max((edge.delay + bottom[edge.v] for edge in outgoing[u]), default=0)
    return top, bottom


def slice_paths(instance: Instance, top: list[int], bottom: list[int]) -> list[list[int]]:
    """Critical-path slicing: linear clusters, longest first.

    Nodes are taken by decreasing top + bottom (the length of the longest
    path through them); each node not yet sliced grows a path backward
    through its unsliced predecessor of largest top + p + c and forward
    through its unsliced successor of largest c + bottom. The first path is
    a critical path of the graph. O(n log n + e).
    """
    n = instance.n
    times = instance.times
    incoming: list[list] = [[] for _ in range(n)]
    outgoing: list[list] = [[] for _ in range(n)]
    for edge in instance.edges:
        incoming[edge.v].append(edge)
        outgoing[edge.u].append(edge)
    sliced = [False] * n
    paths = []
    for v in sorted(range(n), key=lambda x: (-(top[x] + bottom[x]), x)):
        if sliced[v]:
            continue
        sliced[v] = True
        backward, current = [], v
        while True:
            best, best_key = None, None
            for edge in incoming[current]:
                if not sliced[edge.u]:
                    key = top[edge.u] + times[edge.u] + edge.delay
                    if best_key is None or key > best_key:
                        best, best_key = edge.u, key
            if best is None:
                break
            sliced[best] = True
            backward.append(best)
            current = best
        forward, current = [], v
        while True:
            best, best_key = None, None
            for edge in outgoing[current]:
                if not sliced[edge.v]:
                    key = edge.delay + bottom[edge.v]
                    if best_key is None or key > best_key:
                        best, best_key = edge.v, key
            if best is None:
                break
            sliced[best] = True
            forward.append(best)
            current = best
        paths.append([*backward[::-1], v, *forward])
    return paths


def pardnn(instance: Instance, /, *, time_limit: float, seed: int, params: ParDnnParams | None) -> Result:
    """ParDNN-style: critical-path slicing, mapping by level span and communication, node switching, greedy overflow
    repair.

    Steps (after Qararyah et al., Parallel Computing 2021; ours, not their code):

    1. *Slicing* (`slice_paths`): linear clusters, the first a critical path.
    2. *Mapping*: the K longest clusters are the primary ones, one per GPU;
       every other cluster, longest first, goes to the GPU minimizing (work
       already there in the cluster's span of top levels) − (Σ c of the
       edges it has to nodes already there): overlap would serialize, shared
       edges would be communication.
    3. *Colocation and pins*: each unit goes to its pin, else to the GPU
       holding most of its time.
    4. *Refinement* (node switching, ``refinement_passes`` passes): a unit
       moves to the GPU it has the most communication with when that saves
       communication, keeps that GPU's work under (1 + ``balance_slack``) x
       the mean and its memory ledger <= M, and none of its nodes is
       critical. (ParDNN's path switching is not done.) Then *balancing*
       (`_balance`): units leave the busiest GPU, least communication per
       time moved first.
    5. *Overflow repair* (`hpcsched.partition.simulate.repair_memory`):
       greedy by memory freed per communication added.
    6. List scheduling of the assignment by upward rank (shared engine).
       ParDNN accepts a refinement only when its simulation says it helps;
       here the assignments after mapping, after switching and after
       balancing are each repaired and scheduled (at most three schedules,
       O(n log n + e + nK) each) and the shortest is returned.
    """
    params = params or ParDnnParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    n, gpus = instance.n, instance.gpus
    times = instance.times
    top, bottom = levels(instance)
    paths = slice_paths(instance, top, bottom)
    deadline.check("slicing critical paths")
    span_end = max(top[v] + times[v] for v in range(n)) or 1
    buckets = params.buckets

    def bucket(time: int) -> int:
        return min(buckets - 1, time * buckets // (span_end + 1))

    work = [_Fenwick(buckets) for _ in range(gpus)]
    gpu_of = [-1] * n
    incident = incident_edges(instance)
    for index, path in enumerate(paths):
        if index % 256 == 0:
            deadline.check("mapping clusters")
        if index < gpus:
            target = index
        else:
            low = bucket(min(top[v] for v in path))
            high = bucket(max(top[v] + times[v] for v in path))
            shared: defaultdict[int, int] = defaultdict(int)
            for v in path:
                for other, cost in incident[v]:
                    if gpu_of[other] >= 0:
                        shared[gpu_of[other]] += cost
            target = min(
                range(gpus),
                key=lambda g: (work[g].prefix(high + 1) - work[g].prefix(low) - shared[g], work[g].prefix(buckets), g),
            )
        for v in path:
            gpu_of[v] = target
            work[target].add(bucket(top[v]), times[v])
    unit_list = units(instance)
    gpu_of = enforce_units(instance, gpu_of, unit_list)
    length = max(top[v] + bottom[v] for v in range(n))
    slack = [length - top[v] - bottom[v] for v in range(n)]
    priority = [-r for r in bottom]  # the upward rank (transfers included), computed once
    candidates = [
        _finish(
            instance,
            list(gpu_of),
            deadline,
            f"{len(paths)} clusters; mapping only",
            unit_list=unit_list,
            priority=priority,
        )
    ]
    moves = _switch_nodes(instance, gpu_of, unit_list, incident, slack, params, deadline)
    if moves:
        candidates.append(
            _finish(
                instance,
                list(gpu_of),
                deadline,
                f"{len(paths)} clusters; {moves} node switches",
                unit_list=unit_list,
                priority=priority,
            )
        )
    balance_moves = _balance(instance, gpu_of, unit_list, incident, params, deadline)
    if balance_moves:
        candidates.append(
            _finish(
                instance,
                gpu_of,
                deadline,
                f"{len(paths)} clusters; {moves} node switches; {balance_moves} balancing moves",
                unit_list=unit_list,
                priority=priority,
            )
        )
    found = [r for r in candidates if r.solution is not None]
    if not found:
        return candidates[-1]
    best = min(found, key=lambda r: evaluate(instance, r.solution)["objective"])
    return best.with_note(f"best of {len(found)} refinement stages by makespan")


def _switch_nodes(
    instance: Instance,
    gpu_of: list[int],
    unit_list,
    incident,
    slack: list[int],
    params: ParDnnParams,
    deadline: Deadline,
) -> int:
    """Refinement by node (unit) switching, in place; returns the number of moves.

    A unit moves to the GPU it has the most communication with when that
    saves communication, none of its nodes is on a critical path (slack =
    critical length - top - bottom > 0: moving a critical node would
    reorder the critical path), the target's work stays under
    (1 + ``balance_slack``) x the mean and its memory ledger (static part)
    within M.
    """
    times = instance.times
    load = [0] * instance.gpus
    for v in range(instance.n):
        load[gpu_of[v]] += times[v]
    limit = (1 + params.balance_slack) * sum(times) / instance.gpus
    memory = [0] * instance.gpus
    for v in range(instance.n):
        memory[gpu_of[v]] += own_memory(instance, v)
    moves = 0
    for _ in range(params.refinement_passes):
        deadline.check("refining (node switching)")
        changed = False
        for unit in unit_list:
            if unit.pin is not None or any(slack[v] <= 0 for v in unit.members):
                continue
            current = gpu_of[unit.members[0]]
            inside = set(unit.members)
            comm: dict[int, int] = defaultdict(int)
            for v in unit.members:
                for other, cost in incident[v]:
                    if other not in inside:
                        comm[gpu_of[other]] += cost
            if not comm:
                continue
            target = max(sorted(comm), key=lambda g: comm[g])
            if target == current or comm[target] <= comm.get(current, 0):
                continue
            unit_time = sum(times[v] for v in unit.members)
            unit_memory = sum(own_memory(instance, v) for v in unit.members)
            if load[target] + unit_time > limit or memory[target] + unit_memory > instance.memory:
                continue
            for v in unit.members:
                gpu_of[v] = target
            load[current] -= unit_time
            load[target] += unit_time
            memory[current] -= unit_memory
            memory[target] += unit_memory
            moves += 1
            changed = True
        if not changed:
            break
    return moves


def _balance(
    instance: Instance, gpu_of: list[int], unit_list, incident, params: ParDnnParams, deadline: Deadline
) -> int:
    """Refinement by load balancing, in place: move units off the busiest GPU, least communication per time moved first.

    Colocation can pull most of the work onto the GPU of the critical path
    (a forward node and its backward node share a group); this moves units
    from the GPU with the most work to the one with the least while the
    first exceeds (1 + ``balance_slack``) x the mean, choosing the unit of
    smallest (1 + communication added) / time, and keeping the target's
    memory ledger (static part) within M. Returns the number of moves.
    """
    times = instance.times
    gpus = instance.gpus
    load = [0] * gpus
    for v in range(instance.n):
        load[gpu_of[v]] += times[v]
    memory = [0] * gpus
    for v in range(instance.n):
        memory[gpu_of[v]] += own_memory(instance, v)
    limit = (1 + params.balance_slack) * sum(times) / gpus
    moves = 0
    for _ in range(gpus * 4):
        deadline.check("refining (balancing)")
        source = max(range(gpus), key=lambda g: (load[g], -g))
        if load[source] <= limit:
            break
        candidates = []
        for u, unit in enumerate(unit_list):
            if unit.pin is not None or gpu_of[unit.members[0]] != source:
                continue
            unit_time = sum(times[v] for v in unit.members)
            if unit_time == 0:
                continue
            inside = set(unit.members)
            comm: dict[int, int] = defaultdict(int)
            for v in unit.members:
                for other, cost in incident[v]:
                    if other not in inside:
                        comm[gpu_of[other]] += cost
            for h in range(gpus):
                if h != source:
                    added = comm.get(source, 0) - comm.get(h, 0)
                    candidates.append(((1 + max(added, 0)) / unit_time, u, h, unit_time))
        candidates.sort()
        moved_units: set[int] = set()
        for _, u, h, unit_time in candidates:
            if load[source] <= limit:
                break
            if u in moved_units or load[h] + unit_time > limit or load[h] + unit_time >= load[source]:
                continue
            members = unit_list[u].members
            unit_memory = sum(own_memory(instance, v) for v in members)
            if memory[h] + unit_memory > instance.memory:
                continue
            for v in members:
                gpu_of[v] = h
            load[source] -= unit_time
            load[h] += unit_time
            memory[source] -= unit_memory
            memory[h] += unit_memory
            moved_units.add(u)
            moves += 1
        if not moved_units:
            break
    return moves


# --- balanced partition (Kernighan–Lin recursive bisection) -------------------------------------------


@dataclass(frozen=True)
class KlParams:
    """Options of kl-partition.

    Attributes
    ----------
    max_iterations
        Kernighan–Lin passes per bisection (networkx ``max_iter``).
    """

    max_iterations: int = 4

    def __post_init__(self):
        at_least("max_iterations", self.max_iterations, 1)


def kl_partition(instance: Instance, /, *, time_limit: float, seed: int, params: KlParams | None) -> Result:
    """Balanced min-cut partition (Kernighan–Lin recursive bisection, networkx), then repair and scheduling.

    pymetis is not installed here, so this stands in for ParDNN's METIS
    baseline: the undirected graph (edge weight c_uv + 1) is split in two
    parts of ⌊K/2⌋ and ⌈K/2⌉ GPUs' worth of nodes (the initial split is a
    topological prefix, which KL's swaps then improve keeping the part
    sizes), recursively, until each part is one GPU. Balance is by node
    count (networkx's KL does not weigh nodes). Then units, overflow repair
    and list scheduling as every heuristic here.
    """
    import networkx as nx

    params = params or KlParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    graph = nx.Graph()
    graph.add_nodes_from(range(instance.n))
    for edge in instance.edges:
        graph.add_edge(edge.u, edge.v, weight=edge.delay + 1)
    position = {v: i for i, v in enumerate(topological_order(instance.n, instance.edges))}
    gpu_of = [0] * instance.n

    def split(nodes: list[int], first_gpu: int, count: int) -> None:
        deadline.check("bisecting (Kernighan–Lin)")
        if count == 1 or len(nodes) <= 1:
            for v in nodes:
                gpu_of[v] = first_gpu
            return
        left_count = count // 2
        nodes = sorted(nodes, key=lambda v: position[v])
        cut = len(nodes) * left_count // count
        left, right = set(nodes[:cut]), set(nodes[cut:])
        if left and right:
            left, right = nx.algorithms.community.kernighan_lin_bisection(
                graph.subgraph(nodes),
                partition=(left, right),
                max_iter=params.max_iterations,
                weight="weight",
                seed=seed,
            )
        split(sorted(left), first_gpu, left_count)
        split(sorted(right), first_gpu + left_count, count - left_count)

    split(list(range(instance.n)), 0, instance.gpus)
    return _finish(instance, gpu_of, deadline, "Kernighan–Lin recursive bisection (networkx), balance by node count")


# --- baselines ------------------------------------------------------------------------------------------


def round_robin(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Baseline: colocation units in topological order of their first node go to GPUs 0, 1, ..., K-1, 0, ...; repair;
    schedule."""
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
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
    return _finish(instance, gpu_of, deadline)


def one_gpu(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Baseline: every node on GPU 0 in upward-rank order (no communication); NOT_APPLICABLE when it does not fit or
    pins forbid."""
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
    return Result(status=Status.FEASIBLE, solution=schedule_assignment(instance, gpu_of))


HEURISTIC_METHODS = ("pardnn", "heft", "etf", "kl-partition")
BASELINE_METHODS = ("round-robin", "one-gpu")
