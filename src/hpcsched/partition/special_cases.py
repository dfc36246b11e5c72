"""Special cases of partition: one GPU, chains (fewest/cheapest contiguous cuts), the balanced pipeline split.

Each returns NOT_APPLICABLE outside its class, with the reason.
"""

from __future__ import annotations

import math
from collections import deque

from ..core.deadline import Deadline
from ..core.result import Result, Status
from ..taskgraph import topological_order
from . import bounds
from .model import Instance, Solution, peak_memory
from .simulate import schedule_assignment


def single_gpu(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """K = 1: the nodes back to back in upward-rank order; makespan Σp, optimal when memory holds.

    Theorem: with one GPU nothing is cut, every node runs on it, so the
    makespan is at least Σp, and any topological order run without idle time
    reaches it. Static memory: feasible iff Σ (w + s) <= M (INFEASIBLE,
    named, otherwise). Dynamic memory: the peak depends on the order
    (choosing an order within memory is NP-hard in general, as for register
    allocation); the upward-rank order is tried and, if its peak exceeds M,
    the answer is NOT_APPLICABLE (which proves nothing).

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
        OPTIMAL when K = 1 and the schedule fits memory; NOT_APPLICABLE otherwise, with the reason.
    """
    if instance.gpus != 1:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"for K = 1 (the instance has K = {instance.gpus})",))
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    solution = schedule_assignment(instance, [0] * instance.n)
    deadline.check("scheduling on one GPU")
    if instance.memory_model == "dynamic":
        peak = peak_memory(instance, solution)[0]
        if peak > instance.memory:
            return Result(
                status=Status.NOT_APPLICABLE,
                notes=(
                    f"the upward-rank order peaks at {peak} bytes > M = {instance.memory}; another order might fit",
                ),
            )
    return Result(status=Status.OPTIMAL, solution=solution, bound=sum(instance.times), notes=("one GPU: makespan Σp",))


def chain_order(instance: Instance) -> list[int] | None:
    """The nodes along the chain when the graph is one path v_0 -> v_1 -> ... (n - 1 edges), else None."""
    n = instance.n
    if len(instance.edges) != n - 1:
        return None
    indegree, outdegree = [0] * n, [0] * n
    for edge in instance.edges:
        indegree[edge.v] += 1
        outdegree[edge.u] += 1
    if any(d > 1 for d in indegree) or any(d > 1 for d in outdegree):
        return None
    return topological_order(n, instance.edges)


def _chain_applicable(instance: Instance) -> tuple[list[int] | None, str]:
    order = chain_order(instance)
    if order is None:
        return None, "for chains (one path through every node)"
    if instance.memory_model != "static":
        return None, "for static memory"
    if any(node.group is not None for node in instance.nodes) or any(node.pin is not None for node in instance.nodes):
        return None, "for chains without colocation groups and pins"
    return order, ""


def _chain_schedule(instance: Instance, order: list[int], cuts: list[int]) -> Solution:
    """Segment k (between cuts) on GPU k, every node as early as possible."""
    transfer = {(e.u, e.v): int(e.delay) for e in instance.edges}  # integers (Instance.__post_init__)
    gpu = [0] * instance.n
    start = [0] * instance.n
    segment, time, cut_set = 0, 0, set(cuts)
    for position, v in enumerate(order):
        if position in cut_set:
            segment += 1
            time += transfer[order[position - 1], v]
        gpu[v], start[v] = segment, time
        time += instance.nodes[v].time
    return Solution(tuple(gpu), tuple(start))


def _cheapest_cuts(
    memory: list[int], cost: list[int], capacity: int, max_segments: int | None
) -> tuple[float, list[int]]:
    """Cheapest set of cuts splitting the chain into segments of memory <= capacity (at most ``max_segments``).

    ``cost[i]``: price of cutting between positions i - 1 and i (i >= 1).
    Returns ``(cost, cut positions)`` or ``(inf, [])``. DP over prefixes:
    best[i] = min over j (segment j..i-1 fits) of best[j] + cost[j] (j > 0),
    the valid j form a window, so a monotone deque gives O(n) per segment
    count (O(nK) with a count limit).
    """
    n = len(memory)
    prefix = [0]
    for m in memory:
        prefix.append(prefix[-1] + m)
    layers = max_segments if max_segments is not None else 1
    infinity = math.inf
    previous = [0.0] + [infinity] * n  # best with the segments so far
    parents = []
    best_total, best_layer = infinity, -1
    for layer in range(layers):
        current, parent = _dp_layer(previous if max_segments is not None else None, cost, prefix, capacity)
        parents.append(parent)
        if current[n] < best_total:
            best_total, best_layer = current[n], layer
        previous = current
    if best_total == infinity:
        return infinity, []
    return best_total, _trace_cuts(parents, best_layer if max_segments is not None else None, n)


def _dp_layer(
    source: list[float] | None, cost: list[int], prefix: list[int], capacity: int
) -> tuple[list[float], list[int]]:
    """One layer of the `_cheapest_cuts` DP: best cost and parent per prefix length.

    ``source``: the previous layer (one segment more ends each prefix), or
    None for the unlimited DP, which reads its own earlier entries. The
    valid j of a prefix i form a window; a monotone deque keeps its minimum.
    """
    n = len(prefix) - 1
    infinity = math.inf
    current = [infinity] * (n + 1)
    parent = [-1] * (n + 1)
    window: deque[tuple[int, float]] = deque()  # (j, key), keys increasing
    low = 0
    for i in range(1, n + 1):
        # j = i - 1 enters the window (a segment j..i-1 ends at i)
        j = i - 1
        value = source[j] if source is not None else current[j] if j > 0 else 0.0
        key = value + (cost[j] if j > 0 else 0)
        if key < infinity:
            while window and window[-1][1] >= key:
                window.pop()
            window.append((j, key))
        while prefix[i] - prefix[low] > capacity:
            low += 1
        while window and window[0][0] < low:
            window.popleft()
        if window:
            current[i], parent[i] = window[0][1], window[0][0]
    return current, parent


def _trace_cuts(parents: list[list[int]], best_layer: int | None, n: int) -> list[int]:
    """The cut positions of the best split, followed back through the parents (``best_layer`` None: unlimited)."""
    cuts, i = [], n
    if best_layer is None:
        parent = parents[0]
        while i > 0:
            j = parent[i]
            if j > 0:
                cuts.append(j)
            i = j
    else:
        layer = best_layer
        while i > 0:
            j = parents[layer][i]
            if j > 0:
                cuts.append(j)
            i, layer = j, layer - 1
    return sorted(cuts)


def chain_cuts(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Chains, static memory: the cheapest contiguous split into at most K GPUs that fits memory (fewest cuts when
    transfers are equal).

    Theorem. On a chain v_0 -> ... -> v_{n-1}, in any schedule every node
    starts after its predecessor ends, plus c when the edge is cut, so the
    makespan is at least Σp + Σ_{cut edges} c, and the schedule that runs
    each node as early as possible reaches exactly that for its cut set
    (nothing else competes for a GPU: the nodes of a chain never overlap).
    Splitting therefore only adds communication: the optimum is Σp + the
    cheapest cut set whose *segments* (maximal runs on one GPU) can share K
    GPUs within memory. Each segment alone fits in M, so the cheapest cut
    set with every segment <= M (no limit on their number), C*, gives the
    lower bound Σp + C*. The DP below finds the cheapest split into at most
    K contiguous segments (segment k on GPU k), C_K >= C*. When C_K = C*
    (always when all c are equal and the fewest segments needed by greedy
    filling are <= K: then fewest cuts = cheapest cuts) it is OPTIMAL;
    otherwise FEASIBLE with the bound Σp + C* (a cheaper split could put two
    segments on one GPU).

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
        The chain's split schedule (OPTIMAL or FEASIBLE with a bound, as above); NOT_APPLICABLE outside
        chains with static memory and no groups or pins.
    """
    order, reason = _chain_applicable(instance)
    if order is None:
        return Result(status=Status.NOT_APPLICABLE, notes=(reason,))
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    transfer = {(e.u, e.v): int(e.delay) for e in instance.edges}  # integers (Instance.__post_init__)
    memory = [instance.nodes[v].persistent + instance.nodes[v].output for v in order]
    cost = [0] + [transfer[order[i - 1], order[i]] for i in range(1, len(order))]
    unlimited, _ = _cheapest_cuts(memory, cost, instance.memory, None)
    limited, cuts = _cheapest_cuts(memory, cost, instance.memory, instance.gpus)
    deadline.check("splitting the chain")
    lower = sum(instance.times) + int(unlimited)
    if limited == math.inf:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"no split into <= {instance.gpus} contiguous segments fits M; segments sharing a GPU might",),
        )
    solution = _chain_schedule(instance, order, cuts)
    status = Status.OPTIMAL if limited == unlimited else Status.FEASIBLE
    return Result(
        status=status,
        solution=solution,
        bound=lower,
        notes=(f"{len(cuts)} cuts costing {int(limited)}; cheapest cuts with no GPU limit cost {int(unlimited)}",),
    )


def pipeline_split(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Chains, static memory: the balanced contiguous split (pipeline variant), minimizing the largest stage time.

    Objective of *this* variant (not the problem's): with iterations
    pipelined, the throughput is one iteration per max_k Σ_{v in stage k}
    p_v (the bottleneck stage; transfers overlap with compute). The split
    into <= K contiguous stages, each within memory, minimizing that
    bottleneck: binary search on B over [max p, Σp]; for a given B, greedy
    filling (extend the stage while its time <= B and its memory <= M)
    uses the fewest stages, since both limits are monotone in the stage's
    extent (exchange argument: the greedy stage boundary is never before
    the boundary of any feasible split). The answer is the one-iteration
    schedule of that split, FEASIBLE for the makespan; the bottleneck is in
    the notes (optimal for the pipeline objective).

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
        FEASIBLE for the makespan, the bottleneck stage time in the notes; NOT_APPLICABLE outside chains
        with static memory and no groups or pins.
    """
    order, reason = _chain_applicable(instance)
    if order is None:
        return Result(status=Status.NOT_APPLICABLE, notes=(reason,))
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    times = [instance.nodes[v].time for v in order]
    memory = [instance.nodes[v].persistent + instance.nodes[v].output for v in order]

    def greedy(limit: int) -> list[int] | None:
        cuts, stage_time, stage_memory = [], 0, 0
        for i, (t, m) in enumerate(zip(times, memory, strict=False)):
            if i > 0 and (stage_time + t > limit or stage_memory + m > instance.memory):
                cuts.append(i)
                stage_time, stage_memory = 0, 0
            if t > limit or m > instance.memory:
                return None
            stage_time += t
            stage_memory += m
        return cuts if len(cuts) + 1 <= instance.gpus else None

    low, high = max(times), sum(times)
    best = greedy(high)
    if best is None:
        return Result(
            status=Status.NOT_APPLICABLE, notes=(f"no split into <= {instance.gpus} contiguous stages fits M",)
        )
    while low < high:
        deadline.check("searching the bottleneck")
        middle = (low + high) // 2
        cuts = greedy(middle)
        if cuts is None:
            low = middle + 1
        else:
            high, best = middle, cuts
    return Result(
        status=Status.FEASIBLE,
        solution=_chain_schedule(instance, order, best),
        notes=(
            f"pipeline objective (largest stage time) = {high}, optimal for that objective; {len(best) + 1} stages",
        ),
    )
