"""DAG helpers of the task-graph packages: adjacency, topological order (cycle check), upward ranks."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ..core.errors import HpcschedError
from ..core.memo import LastOf
from .schedule import Edge


class CycleError(HpcschedError, ValueError):
    """The edges contain a cycle (the message names a task on it)."""


def predecessors(n: int, edges: Sequence[Edge]) -> list[list[Edge]]:
    """The incoming edges of every task."""
    incoming: list[list[Edge]] = [[] for _ in range(n)]
    for edge in edges:
        incoming[edge.v].append(edge)
    return incoming


def successors(n: int, edges: Sequence[Edge]) -> list[list[Edge]]:
    """The outgoing edges of every task."""
    outgoing: list[list[Edge]] = [[] for _ in range(n)]
    for edge in edges:
        outgoing[edge.u].append(edge)
    return outgoing


#: ``(n, order)`` of the last tuple of edges ordered: an instance's constructor checks for cycles
#: with it, and its methods (ranks, levels, bounds, the list engine's own check) ask again
#: (0.8 s a pass at 5 x 10^5 tasks and 10^6 edges). Tuples only: a list could change in between.
_LAST_ORDER: LastOf[tuple[int, tuple[int, ...]]] = LastOf()


def topological_order(n: int, edges: Sequence[Edge]) -> list[int]:
    """Kahn's order (smallest ready index first); raises `CycleError` on a cycle."""
    if isinstance(edges, tuple):
        known_n, order = _LAST_ORDER.get((edges,), lambda: (n, tuple(_kahn(n, edges))))
        if known_n == n:
            return list(order)
    return _kahn(n, edges)


def _kahn(n: int, edges: Sequence[Edge]) -> list[int]:
    indegree = [0] * n
    outgoing = successors(n, edges)
    for edge in edges:
        indegree[edge.v] += 1
    ready = [j for j in range(n) if indegree[j] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for edge in outgoing[u]:
            indegree[edge.v] -= 1
            if indegree[edge.v] == 0:
                heapq.heappush(ready, edge.v)
    if len(order) < n:
        stuck = next(j for j in range(n) if indegree[j] > 0)
        raise CycleError(f"the task graph has a cycle through task {stuck}")
    return order


def upward_ranks(n: int, edges: Sequence[Edge], cost: Sequence[float], *, with_delays: bool = True) -> list[float]:
    """HEFT's upward rank: ``rank(u) = cost[u] + max over edges (u, v) of (delay + rank(v))``.

    ``rank(u)`` is the length of the longest path from ``u`` to an exit task
    with the given task costs (and edge delays when ``with_delays``).
    """
    outgoing = successors(n, edges)
    rank = [0.0] * n
    for u in reversed(topological_order(n, edges)):
        tail = 0.0
        for edge in outgoing[u]:
            tail = max(tail, (edge.delay if with_delays else 0) + rank[edge.v])
        rank[u] = cost[u] + tail
    return rank
