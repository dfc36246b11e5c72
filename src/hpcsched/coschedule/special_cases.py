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
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from ..core.result import Result, Status
from .model import Instance, Segment, Solution

PROBLEM = "coschedule"


def is_mcnaughton_instance(instance: Instance) -> bool:
    """True when every pair is listed with both rates equal to 1."""
    n = instance.n
    if len(instance.pairs) != n * (n - 1) // 2:
        return False
    return all(p.rate_a == 1.0 and p.rate_b == 1.0 for p in instance.pairs)


def mcnaughton(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """McNaughton wrap-around: optimal preemptive makespan when all rates are 1."""
    if instance.streams:
        return Result(PROBLEM, "mcnaughton", Status.NOT_APPLICABLE, notes=("the instance has streams: the wrap-around ignores the stream order",))
    if not is_mcnaughton_instance(instance):
        return Result(PROBLEM, "mcnaughton", Status.NOT_APPLICABLE, notes=("needs every pair compatible with rates 1",))
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
        PROBLEM,
        "mcnaughton",
        Status.OPTIMAL,
        objective=horizon,
        bound=horizon,
        solution=Solution(tuple(sorted(segments, key=lambda s: (s.start, s.kernel)))),
        notes=("McNaughton wrap-around on two identical slots",),
    )


def pair_block(instance: Instance, i: int, j: int) -> float:
    """Length of the block where i and j start together and both complete."""
    p_i, p_j = instance.kernels[i].duration, instance.kernels[j].duration
    r_i, r_j = instance.rate(i, j), instance.rate(j, i)
    t_i, t_j = p_i / r_i, p_j / r_j
    if t_i <= t_j:
        return t_i + (p_j - r_j * t_i)
    return t_j + (p_i - r_i * t_j)


def paired_matching(instance: Instance) -> list[tuple[int, ...]]:
    """Blocks of the optimal paired schedule: matched pairs and single kernels."""
    graph = nx.Graph()
    graph.add_nodes_from(range(instance.n))
    for pair in instance.pairs:
        saving = instance.kernels[pair.a].duration + instance.kernels[pair.b].duration - pair_block(instance, pair.a, pair.b)
        if saving > 1e-12:
            graph.add_edge(pair.a, pair.b, weight=saving)
    matching = nx.max_weight_matching(graph)
    matched = {k for edge in matching for k in edge}
    blocks = [tuple(sorted(edge)) for edge in matching]
    blocks += [(k,) for k in range(instance.n) if k not in matched]
    return sorted(blocks)


def matching_paired(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Optimal paired schedule by maximum-weight matching (exact over paired schedules)."""
    if instance.streams:
        return Result(
            PROBLEM,
            "matching-paired",
            Status.NOT_APPLICABLE,
            notes=("the instance has streams: blocks in matching order ignore the stream order (matching-list honours it)",),
        )
    segments = []
    time = 0.0
    for block in paired_matching(instance):
        if len(block) == 1:
            k = block[0]
            end = time + instance.kernels[k].duration
            segments.append(Segment(k, time, end))
            time = end
            continue
        i, j = block
        p_i, p_j = instance.kernels[i].duration, instance.kernels[j].duration
        r_i, r_j = instance.rate(i, j), instance.rate(j, i)
        t_i, t_j = p_i / r_i, p_j / r_j
        first, second = (i, j) if t_i <= t_j else (j, i)
        t_first = min(t_i, t_j)
        left = instance.kernels[second].duration - instance.rate(second, first) * t_first
        segments.append(Segment(first, time, time + t_first))
        end = time + t_first + max(0.0, left)
        segments.append(Segment(second, time, end))
        time = end
    from .bounds import best

    bound = best(instance) if instance.n <= 300 else None
    return Result(
        PROBLEM,
        "matching-paired",
        Status.FEASIBLE,
        objective=time,
        bound=bound,
        solution=Solution(tuple(segments)),
        notes=("optimal among paired schedules (max-weight matching); not a bound for general schedules",),
    )
