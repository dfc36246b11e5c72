"""Fast peak-memory simulation shared by the methods (the validator does not use it).

Everything here works on node indices. The memory at the step of node i
with done set S is ``R(S) + n_i + f_i``, where the resident memory
``R(S) = Σ_{j ∈ S, some successor of j not in S} f_j`` depends on S only
(a sink's output is freed at its own end, so it never counts in R).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

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
    def of(cls, instance: Instance) -> Graph:
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


# -- out-of-core (MinIO) ---------------------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """An interval in which an output is not used: evicting it there frees ``size`` bytes.

    The output of ``node`` is used (produced or consumed) at positions
    ``after`` and ``before`` of the order and at none in between; evicting it
    right after ``after`` and reloading it right before ``before`` removes it
    from the steps ``after + 1 .. before − 1`` for ``size`` bytes written.
    Evicting any other way is never better: an eviction inside a gap must be
    followed by a reload inside the same gap (the next use needs the output
    resident), costs the same f, and frees memory on fewer steps.
    """

    node: int
    after: int
    before: int
    size: int

    def spans(self, position: int) -> bool:
        return self.after < position < self.before


def gaps(graph: Graph, order: Sequence[int]) -> list[Gap]:
    """Every gap of length >= 1 of every non-empty output in ``order`` (sinks have none)."""
    position = {node: k for k, node in enumerate(order)}
    found: list[Gap] = []
    for i in range(graph.n):
        if not graph.successors[i] or graph.output[i] == 0:
            continue
        uses = sorted([position[i], *(position[s] for s in graph.successors[i])])
        found.extend(Gap(i, a, b, graph.output[i]) for a, b in itertools.pairwise(uses) if b > a + 1)
    return found


def excess(graph: Graph, order: Sequence[int], memory: int, chosen: Sequence[Gap]) -> list[int]:
    """Memory over ``memory`` at each step once the ``chosen`` gaps are evicted (<= 0 where it fits)."""
    over = [step - memory for step in profile(graph, order)]
    for gap in chosen:
        for t in range(gap.after + 1, gap.before):
            over[t] -= gap.size
    return over


def io_events(chosen: Sequence[Gap]) -> list[tuple[str, int, int]]:
    """``(kind, node, position)`` events of the evicted gaps: evictions first at each position."""
    events = [("evict", gap.node, gap.after + 1) for gap in chosen]
    events += [("reload", gap.node, gap.before) for gap in chosen]
    return sorted(events, key=lambda event: (event[2], event[0] != "evict", event[1]))
