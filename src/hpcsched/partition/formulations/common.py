"""What the exact methods of partition share: the static memory rule, the heuristic incumbent, canonical labels."""

from __future__ import annotations

import math

from ..heuristics import heft, pardnn
from ..model import Instance, Solution, evaluate


def static_memory_ok(instance: Instance, gpu_of) -> bool:
    """Σ (w_v + s_v) of the nodes on every GPU is at most M (the static rule)."""
    load = [0] * instance.gpus
    for v, node in enumerate(instance.nodes):
        load[gpu_of[v]] += node.persistent + node.output
    return all(level <= instance.memory for level in load)


def incumbent(instance: Instance, time_limit: float | None) -> Solution | None:
    """The better of the ParDNN-style and HEFT schedules, or None when neither found one (None: no time limit)."""
    limit = math.inf if time_limit is None else time_limit
    found = []
    for method in (pardnn, heft):
        result = method(instance, time_limit=limit, seed=0, params=None)
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
