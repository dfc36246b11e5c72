"""What the exact methods of partition share: the static memory rule, the heuristic incumbent, canonical labels."""

from __future__ import annotations

import math

from ...core.deadline import Deadline
from ...core.errors import SolverUnavailableError
from ..heuristics import etf, heft, metis, one_gpu, pardnn
from ..model import Instance, Solution, evaluate


def static_memory_ok(instance: Instance, gpu_of) -> bool:
    """Σ (w_v + s_v) of the nodes on every GPU is at most M (the static rule)."""
    load = [0] * instance.gpus
    for v, node in enumerate(instance.nodes):
        load[gpu_of[v]] += node.persistent + node.output
    return all(level <= instance.memory for level in load)


def incumbent(instance: Instance, time_limit: float | None) -> Solution | None:
    """The best schedule of ParDNN-style, HEFT, ETF, one GPU and METIS (when pymetis is installed), or None.

    On the large operator graphs METIS, ETF or one GPU is often the best of these (benchmarks/partition), and CP-SAT
    does not reach them within its limit from a worse hint; the five together cost about 2 s on 2,012 nodes.
    ``time_limit`` None means no limit.
    """
    deadline = Deadline.after(time_limit)
    found: list[Solution] = []
    for method in (pardnn, heft, etf, one_gpu, metis):
        if deadline.expired() and found:
            break
        try:
            left = deadline.remaining()
            result = method(instance, time_limit=math.inf if left is None else left, seed=0, params=None)
        except SolverUnavailableError:  # METIS without pymetis: the others still hint
            continue
        if result.solution is not None:
            found.append(result.solution)
    return min(found, key=lambda s: evaluate(instance, s)["objective"]) if found else None


def canonical(instance: Instance, solution: Solution) -> Solution:
    """The same schedule with GPUs relabelled by first use in node order (what the symmetry breaking keeps), unless
    pins forbid."""
    if any(node.pin is not None for node in instance.nodes):
        return solution
    label: dict[int, int] = {}
    for g in solution.gpu:
        label.setdefault(g, len(label))
    return Solution(tuple(label[g] for g in solution.gpu), solution.start)
