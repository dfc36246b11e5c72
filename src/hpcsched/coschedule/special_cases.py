"""Polynomial special cases of coschedule.

McNaughton (all pairs compatible, all rates 1). Theorem: co-running costs
nothing, so the GPU is two identical machines and the preemptive optimum is
max(p_max, Σp / 2) (McNaughton 1959): fill machine 1 up to C, wrap the rest
onto machine 2 from time 0; a wrapped kernel runs [0, a) on machine 2 and
[b, C) on machine 1 with a <= b because p_j <= C. At most one preemption per
wrap (n - 1 at most in total, typically 1).

Paired schedules: each kernel runs alone or with exactly one partner, the
pair starts together and nothing else starts before the pair's block ends.
A block of {i, j} lasts t + (remaining work of the other alone), where t =
min(p_i / r_{i|j}, p_j / r_{j|i}) is when the first finishes, so it saves
w_ij = p_i + p_j - block time. Blocks are sequential, so the makespan of a
paired schedule is Σp - Σ_{matched} w_ij: the optimal paired schedule is a
maximum-weight matching (networkx ``max_weight_matching``) on the positive
savings. Exact over paired schedules (a schedule class, not an instance
class): its result is FEASIBLE for the problem, OPTIMAL only when it meets
the preemptive LP bound.

Phase order (`phases.order_phases`): the LP's phases, in any order, are a schedule
of the same makespan; ordering them so that each kernel's phases are
consecutive removes its preemptions. That is possible for every kernel
exactly when each component of the support graph (kernels, one edge per
pair phase, solo phases as pendant leaves) is a caterpillar, and then
`order_phases` finds such an order (zero preemptions): a polynomial special
case of preemption minimization. Elsewhere it is a heuristic.

Notes
-----
The McNaughton argument, the paired-block length, and the caterpillar
construction are written out in ``docs/coschedule.md`` ("Special cases").
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from ..core.deadline import Deadline
from ..core.forked import call_within
from ..core.result import Result, Status
from .bounds import best
from .model import Instance, Segment, Solution


def is_mcnaughton_instance(instance: Instance) -> bool:
    """True when every pair is listed with both rates equal to 1."""
    n = instance.n
    if len(instance.pairs) != n * (n - 1) // 2:
        return False
    return all(p.rate_a == 1.0 and p.rate_b == 1.0 for p in instance.pairs)


def mcnaughton(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """McNaughton wrap-around: optimal preemptive makespan when all rates are 1.

    Parameters
    ----------
    instance
        The instance; NOT_APPLICABLE unless every pair is listed with rates 1
        and there are no streams.
    time_limit, seed, params
        Unused (linear time, deterministic, no options).

    Returns
    -------
    Result
        OPTIMAL, max(p_max, Σp / 2), at most one preemption per wrap.
    """
    if instance.streams:
        return Result(
            status=Status.NOT_APPLICABLE, notes=("the instance has streams: the wrap-around ignores the stream order",)
        )
    if not is_mcnaughton_instance(instance):
        return Result(status=Status.NOT_APPLICABLE, notes=("needs every pair compatible with rates 1",))
    durations = instance.durations
    horizon = max(max(durations), sum(durations) / 2)
    segments = []
    machine, time = 0, 0.0
    for kernel, p in enumerate(durations):
        if machine == 1 or time + p < horizon:
            segments.append(Segment(kernel, time, time + p))
            time += p
            continue
        # Wrap: [time, C) on slot 0, then [0, p - (C - time)) on slot 1 (ends before ``time`` as p <= C).
        segments.append(Segment(kernel, time, horizon))
        rest = p - (horizon - time)
        if rest > 0:
            segments.append(Segment(kernel, 0.0, rest))
        machine, time = 1, max(rest, 0.0)
    return Result(
        status=Status.OPTIMAL,
        objective=horizon,
        bound=horizon,
        solution=Solution(tuple(sorted(segments, key=lambda s: (s.start, s.kernel)))),
        notes=("McNaughton wrap-around on two identical slots",),
    )


def pair_block(instance: Instance, i: int, j: int) -> float:
    """Length of the block where i and j start together and both complete."""
    p_i, p_j = instance.kernels[i].duration, instance.kernels[j].duration
    r_i, r_j = instance.listed_rate(i, j), instance.listed_rate(j, i)
    t_i, t_j = p_i / r_i, p_j / r_j
    if t_i <= t_j:
        return t_i + (p_j - r_j * t_i)
    return t_j + (p_i - r_i * t_j)


#: Graphs up to this many kernels are matched in-process: the blossom algorithm
#: takes about 0.1 s at 64 nodes (and ~6 s at 256), not worth a forked child.
IN_PROCESS_MATCHING_NODES = 64

#: Edges added to the saving graph between two looks at the deadline.
GRAPH_CHUNK = 1 << 16

#: Sorted edges in the first chunk of `_greedy_matching`'s numpy screen (each next one is twice as long).
GREEDY_CHUNK = 1 << 12

#: Note of a matching cut by the time limit (`paired_matching` fell back to `greedy_matching`).
GREEDY_MATCHING_NOTE = "time limit reached during the max-weight matching: greedy matching (largest saving first) used"


def pair_savings(instance: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, w)`` with a < b of every pair that saves time, w_ab > 1e-12 (`pair_block`, at numpy speed)."""
    a, b, rate_a, rate_b = instance.pair_arrays()
    durations = np.array(instance.durations, dtype=float)
    p_a, p_b = durations[a], durations[b]
    t_a, t_b = p_a / rate_a, p_b / rate_b
    block = np.where(t_a <= t_b, t_a + (p_b - rate_b * t_a), t_b + (p_a - rate_a * t_b))
    saving = p_a + p_b - block
    keep = saving > 1e-12
    low, high = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    return low, high, saving[keep]


def saving_graph(
    instance: Instance,
    deadline: Deadline | None = None,
    savings: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> nx.Graph | None:
    """Kernels as nodes, one edge per pair that saves time, weighted by the saving w_ij.

    None when ``deadline`` passes while the edges are added (2 million of them on
    a dense instance of 2,000 kernels take seconds). ``savings``: `pair_savings`
    already computed (None: computed here).
    """
    deadline = deadline or Deadline(None)
    low, high, saving = pair_savings(instance) if savings is None else savings
    graph = nx.Graph()
    graph.add_nodes_from(range(instance.n))
    for first in range(0, len(low), GRAPH_CHUNK):
        if deadline.expired():
            return None
        chunk = slice(first, first + GRAPH_CHUNK)
        graph.add_weighted_edges_from(
            zip(low[chunk].tolist(), high[chunk].tolist(), saving[chunk].tolist(), strict=True)
        )
    return graph


def greedy_matching(graph: nx.Graph) -> set[tuple[int, int]]:
    """Heaviest edge first while both ends are free (at least half the maximum weight)."""
    edges = np.array(list(graph.edges(data="weight")), dtype=float).reshape(-1, 3)
    return _greedy_matching(graph.number_of_nodes(), edges[:, 0].astype(int), edges[:, 1].astype(int), edges[:, 2])


def _greedy_matching(n: int, low: np.ndarray, high: np.ndarray, saving: np.ndarray) -> set[tuple[int, int]]:
    """`greedy_matching` on the arrays of `pair_savings`: sorted by numpy, stopped once n - 1 kernels are matched.

    The sorted edges are taken in chunks; numpy drops the edges of a chunk with an end matched
    by the earlier chunks (the loop would skip them) before the Python loop sees the rest: on
    1.9 M edges most are dropped so, and the loop takes ~0.1 s instead of ~1 s.
    """
    matched = np.zeros(n, dtype=bool)
    matching: set[tuple[int, int]] = set()
    order = np.lexsort((high, low, -saving))  # heaviest first, then (a, b): the order of `greedy_matching`
    low, high = low[order], high[order]
    free, chunk, first = n, GREEDY_CHUNK, 0
    while first < len(low) and free > 1:  # at most one free kernel: no free pair left
        part = slice(first, first + chunk)
        keep = ~(matched[low[part]] | matched[high[part]])
        for a, b in zip(low[part][keep].tolist(), high[part][keep].tolist(), strict=True):
            if not (matched[a] or matched[b]):
                matching.add((a, b))
                matched[a] = matched[b] = True
                free -= 2
        first += chunk
        chunk *= 2  # later chunks are mostly dropped by the screen: fewer, larger ones
    return matching


def _maximum_matching(instance: Instance, savings: tuple[np.ndarray, np.ndarray, np.ndarray]) -> set[tuple[int, int]]:
    """``nx.max_weight_matching`` of the whole saving graph (what a forked child computes)."""
    graph = saving_graph(instance, savings=savings)
    assert graph is not None  # no deadline: the graph is always complete
    return nx.max_weight_matching(graph)


def paired_matching(instance: Instance, deadline: Deadline | None = None) -> tuple[list[tuple[int, ...]], bool]:
    """Blocks of the optimal paired schedule: matched pairs and single kernels.

    Returns the blocks and whether they are optimal among paired schedules
    (False when the deadline cut the graph's construction or the matching and
    `greedy_matching` stood in).

    The blossom algorithm (O(n^3)) has no stop hook: above
    `IN_PROCESS_MATCHING_NODES` kernels, under a deadline, the saving graph is
    built and matched in a forked child that inherits the savings and is killed
    at the deadline (`core.forked.call_within`), while the parent has the greedy
    matching ready. A graph of 1.9 M edges (10,000 dense kernels) takes ~3 s to
    build and ~1 s to free: in the parent they ran past the limit.
    """
    deadline = deadline or Deadline(None)
    savings = pair_savings(instance)
    if instance.n > IN_PROCESS_MATCHING_NODES and deadline.at is not None:
        greedy = _greedy_matching(instance.n, *savings)  # the fallback first: after the deadline, only the schedule
        done, matching = call_within(_maximum_matching, (instance, savings), deadline.remaining() or 0.0)
        return _blocks(instance, matching if done else greedy), done
    graph = saving_graph(instance, deadline, savings)
    if graph is None:
        return _blocks(instance, _greedy_matching(instance.n, *savings)), False
    return _blocks(instance, nx.max_weight_matching(graph)), True


def _blocks(instance: Instance, matching: set[tuple[int, int]]) -> list[tuple[int, ...]]:
    """The matched pairs and the single kernels, sorted."""
    matched = {k for edge in matching for k in edge}
    blocks = [tuple(sorted(edge)) for edge in matching]
    blocks += [(k,) for k in range(instance.n) if k not in matched]
    return sorted(blocks)


def matching_paired(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Optimal paired schedule by maximum-weight matching (exact over paired schedules).

    Parameters
    ----------
    instance
        The instance; NOT_APPLICABLE with streams.
    time_limit
        Seconds for the matching; past them the greedy matching is used.
    seed, params
        Unused (deterministic, no options).

    Returns
    -------
    Result
        FEASIBLE (optimal among paired schedules only, unless the time limit
        cut the matching), with `bounds.best` as bound for n <= 300.
    """
    if instance.streams:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(
                "the instance has streams: blocks in matching order ignore the stream order (matching-list honours it)",
            ),
        )
    segments = []
    time = 0.0
    blocks, optimal = paired_matching(instance, Deadline.after(time_limit))
    for block in blocks:
        if len(block) == 1:
            k = block[0]
            end = time + instance.kernels[k].duration
            segments.append(Segment(k, time, end))
            time = end
            continue
        i, j = block
        p_i, p_j = instance.kernels[i].duration, instance.kernels[j].duration
        r_i, r_j = instance.listed_rate(i, j), instance.listed_rate(j, i)
        t_i, t_j = p_i / r_i, p_j / r_j
        first, second = (i, j) if t_i <= t_j else (j, i)
        t_first = min(t_i, t_j)
        left = instance.kernels[second].duration - instance.listed_rate(second, first) * t_first
        segments.append(Segment(first, time, time + t_first))
        end = time + t_first + max(0.0, left)
        segments.append(Segment(second, time, end))
        time = end
    bound = best(instance) if instance.n <= 300 else None
    return Result(
        status=Status.FEASIBLE,
        objective=time,
        bound=bound,
        solution=Solution(tuple(segments)),
        notes=(
            "optimal among paired schedules (max-weight matching); not a bound for general schedules"
            if optimal
            else GREEDY_MATCHING_NOTE,
        ),
    )
