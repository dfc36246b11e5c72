"""Fast peak-memory simulation shared by the methods (the validator does not use it).

Everything here works on node indices. The memory at the step of node i
with done set S is ``R(S) + n_i + f_i``, where the resident memory
``R(S) = Σ_{j ∈ S, some successor of j not in S} f_j`` depends on S only
(a sink's output is freed at its own end, so it never counts in R).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .model import Instance


@dataclass(frozen=True)
class Graph:
    """Index arrays of an instance, built once per method call.

    Attributes
    ----------
    n
        Number of nodes.
    step
        ``n_i + f_i``: what the step of i adds on top of the resident memory.
    kept
        What i leaves resident when it ends: f_i, or 0 for a sink.
    output
        f_i.
    predecessors, successors
        Index tuples.
    """

    n: int
    step: tuple[int, ...]
    kept: tuple[int, ...]
    output: tuple[int, ...]
    predecessors: tuple[tuple[int, ...], ...]
    successors: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, instance: Instance) -> "Graph":
        nodes = instance.nodes
        return cls(
            n=len(nodes),
            step=tuple(v.exec + v.output for v in nodes),
            kept=tuple(v.output if instance.successors[i] else 0 for i, v in enumerate(nodes)),
            output=tuple(v.output for v in nodes),
            predecessors=instance.predecessors,
            successors=instance.successors,
        )

    def memreq(self, i: int) -> int:
        """Memory of the step of i whatever else is resident: Σ_pred f + n_i + f_i."""
        return sum(self.output[p] for p in self.predecessors[i]) + self.step[i]


def profile(graph: Graph, order: Sequence[int]) -> list[int]:
    """Memory during each step of a topological ``order``."""
    remaining = [len(s) for s in graph.successors]
    resident = 0
    steps = []
    for i in order:
        steps.append(resident + graph.step[i])
        resident += graph.kept[i]
        for p in graph.predecessors[i]:
            remaining[p] -= 1
            if remaining[p] == 0:
                resident -= graph.output[p]
    return steps


def peak(graph: Graph, order: Sequence[int]) -> int:
    """Peak memory of a topological ``order``."""
    return max(profile(graph, order))


def topological_by_priority(graph: Graph, priority: Sequence[float]) -> list[int]:
    """The topological order that always runs the ready node of least ``priority``.

    Turns any node ranking (a spanning forest's traversal, say) into a valid
    order: a node runs as soon as its predecessors are done and no ready node
    ranks before it.
    """
    import heapq

    missing = [len(p) for p in graph.predecessors]
    ready = [(priority[i], i) for i in range(graph.n) if missing[i] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for s in graph.successors[i]:
            missing[s] -= 1
            if missing[s] == 0:
                heapq.heappush(ready, (priority[s], s))
    return order


def topological_order(graph: Graph) -> list[int]:
    """Some topological order (Kahn, smallest index first)."""
    return topological_by_priority(graph, range(graph.n))
