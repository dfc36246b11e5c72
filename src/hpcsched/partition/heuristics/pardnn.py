"""ParDNN-style heuristic: critical-path slicing, mapping, node switching, balancing (`refinement`)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from ...core.deadline import Deadline
from ...core.params import at_least, within
from ...core.result import Result
from ...taskgraph import topological_order
from .. import bounds
from ..model import Instance, evaluate
from ..simulate import (
    incident_edges,
    units,
)
from .path_swap import Span, swap_paths
from .refinement import Refinement

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
    path_swaps
        ParDNN's path swapping after the mapping (`path_swap.swap_paths`).
    path_swap_candidates
        Clusters examined as swap partners per cluster.
    """

    refinement_passes: int = 2
    balance_slack: float = 0.1
    buckets: int = 1024
    path_swaps: bool = True
    path_swap_candidates: int = 16

    def __post_init__(self):
        at_least("refinement_passes", self.refinement_passes, 0)
        at_least("path_swap_candidates", self.path_swap_candidates, 1)
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


#: Nodes handled between two readings of the deadline in the linear passes (levels, slicing).
CHECK_EVERY = 4096


def levels(instance: Instance, deadline: Deadline | None = None) -> tuple[list[int], list[int]]:
    """``(top, bottom)``: longest path before v (transfers included, v excluded) and from v to an exit (v included).

    ``deadline``, when given, is checked every `CHECK_EVERY` nodes (about 1 s a pass at 5 x 10^5 nodes).
    """
    order = topological_order(instance.n, instance.edges)
    outgoing: list[list] = [[] for _ in range(instance.n)]
    for edge in instance.edges:
        outgoing[edge.u].append(edge)
    times = instance.times
    top = [0] * instance.n
    for index, u in enumerate(order):
        if deadline is not None and not index % CHECK_EVERY:
            deadline.check("computing levels")
        for edge in outgoing[u]:
            top[edge.v] = max(top[edge.v], top[u] + times[u] + edge.delay)
    bottom = [0] * instance.n
    for index, u in enumerate(reversed(order)):
        if deadline is not None and not index % CHECK_EVERY:
            deadline.check("computing levels")
        bottom[u] = times[u] + max((edge.delay + bottom[edge.v] for edge in outgoing[u]), default=0)
    return top, bottom


def slice_paths(
    instance: Instance, top: list[int], bottom: list[int], deadline: Deadline | None = None
) -> list[list[int]]:
    """Critical-path slicing: linear clusters, longest first.

    Nodes are taken by decreasing top + bottom (the length of the longest
    path through them); each node not yet sliced grows a path backward
    through its unsliced predecessor of largest top + p + c and forward
    through its unsliced successor of largest c + bottom. The first path is
    a critical path of the graph. O(n log n + e). ``deadline``, when given,
    is checked every `CHECK_EVERY` seeds and nodes sliced.
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
    count = 0  # seeds looked at and nodes sliced: the deadline is read every CHECK_EVERY of them
    for v in sorted(range(n), key=lambda x: (-(top[x] + bottom[x]), x)):
        count += 1
        if deadline is not None and not count % CHECK_EVERY:
            deadline.check("slicing critical paths")
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
            count += 1
            if deadline is not None and not count % CHECK_EVERY:
                deadline.check("slicing critical paths")
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
            count += 1
            if deadline is not None and not count % CHECK_EVERY:
                deadline.check("slicing critical paths")
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
       critical. Before it, with ``path_swaps``, ParDNN's *path swapping*
       (`path_swap.swap_paths`) on the secondary clusters. Then *balancing*
       (`_balance`): units leave the busiest GPU, least communication per
       time moved first.
    5. *Overflow repair* (`hpcsched.partition.simulate.repair_memory`):
       greedy by memory freed per communication added.
    6. List scheduling of the assignment by upward rank (shared engine).
       ParDNN accepts a refinement only when its simulation says it helps;
       here the assignments after mapping, after switching and after
       balancing are each repaired and scheduled (at most three schedules,
       O(n log n + e + nK) each) and the shortest is returned.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        Unused: the method is deterministic.
    params
        `ParDnnParams`, or None for the defaults.

    Returns
    -------
    Result
        FEASIBLE with the best schedule of the refinement stages; NOT_APPLICABLE when the overflow repair
        finds no assignment within memory (proves nothing).
    """
    params = params or ParDnnParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    deadline.check("checking feasibility")
    top, bottom = levels(instance, deadline)
    paths = slice_paths(instance, top, bottom, deadline)
    incident = incident_edges(instance)
    mapping = _map_clusters(instance, paths, top, incident, params, deadline)
    length = max(top[v] + bottom[v] for v in range(instance.n))
    refinement = Refinement(
        instance=instance,
        unit_list=units(instance),
        incident=incident,
        slack=[length - top[v] - bottom[v] for v in range(instance.n)],
        priority=[-r for r in bottom],  # the upward rank (transfers included), computed once
        params=params,
        deadline=deadline,
    )
    candidates = refinement.stages(list(mapping.gpu_of), f"{len(paths)} clusters; mapping only")
    if params.path_swaps:
        swaps = swap_paths(
            instance,
            paths,
            mapping.gpu_of,
            mapping.work,
            mapping.node_bucket,
            mapping.spans,
            incident,
            primaries=min(instance.gpus, len(paths)),
            candidates=params.path_swap_candidates,
            deadline=deadline,
        )
        if swaps:  # the same refinement from the swapped mapping; the best of both chains is kept
            candidates += refinement.stages(mapping.gpu_of, f"{len(paths)} clusters; mapping and {swaps} path swaps")
    found = [r for r in candidates if r.solution is not None]
    if not found:
        return candidates[-1]
    best = min(found, key=lambda r: evaluate(instance, r.solution)["objective"])
    return best.with_note(f"best of {len(found)} refinement stages by makespan")


class _ClusterMap(NamedTuple):
    """The mapping's result: GPU per node, per-GPU work profiles, and the buckets it measured spans in."""

    gpu_of: list[int]
    work: list[_Fenwick]
    node_bucket: list[int]
    spans: list[Span]


def _map_clusters(
    instance: Instance,
    paths: list[list[int]],
    top: list[int],
    incident: list[list[tuple[int, int]]],
    params: ParDnnParams,
    deadline: Deadline,
) -> _ClusterMap:
    """Mapping: the K primary clusters one per GPU, every other one where overlap - shared communication is least."""
    n, gpus, times, buckets = instance.n, instance.gpus, instance.times, params.buckets
    span_end = max(top[v] + times[v] for v in range(n)) or 1

    def bucket(time: int) -> int:
        return min(buckets - 1, time * buckets // (span_end + 1))

    node_bucket = [bucket(top[v]) for v in range(n)]
    spans = [Span(bucket(min(top[v] for v in p)), bucket(max(top[v] + times[v] for v in p))) for p in paths]
    work = [_Fenwick(buckets) for _ in range(gpus)]
    gpu_of = [-1] * n
    for index, path in enumerate(paths):
        if index % 256 == 0:
            deadline.check("mapping clusters")
        target = index if index < gpus else _cheapest_gpu(path, spans[index], gpu_of, work, incident, buckets)
        for v in path:
            gpu_of[v] = target
            work[target].add(node_bucket[v], times[v])
    return _ClusterMap(gpu_of, work, node_bucket, spans)


def _cheapest_gpu(
    path: list[int],
    span: Span,
    gpu_of: list[int],
    work: list[_Fenwick],
    incident: list[list[tuple[int, int]]],
    buckets: int,
) -> int:
    """The GPU of least (work in the span) - (transfers to nodes there); ties: least total work, lowest index."""
    shared: defaultdict[int, int] = defaultdict(int)
    for v in path:
        for other, cost in incident[v]:
            if gpu_of[other] >= 0:
                shared[gpu_of[other]] += cost
    return min(
        range(len(work)),
        key=lambda g: (
            work[g].prefix(span.high + 1) - work[g].prefix(span.low) - shared[g],
            work[g].prefix(buckets),
            g,
        ),
    )
