"""Heuristics for the sequential question on any DAG.

Each returns a topological order with the `bounds.memreq` lower bound; the
result is OPTIMAL only when the peak meets that bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ..bounds import memreq
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak, profile, topological_by_priority
from ..special_cases import best_postorder_order, liu_optimal_order


def _result(instance: Instance, graph: Graph, order: Sequence[int], *notes: str) -> Result:
    value = peak(graph, order)
    bound = memreq(instance)
    return Result(
        status=Status.OPTIMAL if value <= bound else Status.FEASIBLE,
        solution=Solution.from_indices(instance, order),
        bound=float(bound),
        notes=tuple(notes),
    )


def dfs_order(graph: Graph) -> list[int]:
    """Post-order of a depth-first search from the sinks along predecessors.

    A node is listed once all its predecessors are listed, so the order is
    topological; on an in-tree it is a post-order (children in index order).
    """
    done = [False] * graph.n
    order: list[int] = []
    for sink in (i for i in range(graph.n) if not graph.successors[i]):
        stack = [(sink, 0)]
        while stack:
            node, k = stack.pop()
            if done[node]:
                continue
            preds = graph.predecessors[node]
            while k < len(preds) and done[preds[k]]:
                k += 1
            if k < len(preds):
                stack.append((node, k + 1))
                stack.append((preds[k], 0))
            else:
                done[node] = True
                order.append(node)
    return order


def dfs_postorder(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Depth-first post-order from the sinks (predecessors in index order): the baseline.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Unused: the method runs in polynomial time without a deadline.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    graph = Graph.of(instance)
    return _result(instance, graph, dfs_order(graph), "DFS post-order from the sinks")


def greedy_order(graph: Graph, deadline: Deadline | None = None) -> list[int]:
    """Run, at each step, the ready node that raises the peak so far least.

    Ties (typically: several nodes fit under the current peak) go to the node
    that leaves least resident memory (frees the most), then to the cheaper
    step, then to the smaller index.
    """
    missing = [len(p) for p in graph.predecessors]
    remaining = [len(s) for s in graph.successors]
    ready = {i for i in range(graph.n) if missing[i] == 0}
    order: list[int] = []
    resident = top = 0

    def left(i: int) -> int:  # change of the resident memory when i ends
        return graph.kept[i] - sum(graph.output[p] for p in graph.predecessors[i] if remaining[p] == 1)

    while ready:
        if deadline is not None and len(order) % 256 == 0:
            deadline.check("running the greedy")
        i = min(ready, key=lambda j: (max(0, resident + graph.step[j] - top), left(j), graph.step[j], j))
        ready.discard(i)
        order.append(i)
        top = max(top, resident + graph.step[i])
        resident += left(i)
        for p in graph.predecessors[i]:
            remaining[p] -= 1
        for s in graph.successors[i]:
            missing[s] -= 1
            if missing[s] == 0:
                ready.add(s)
    return order


def greedy_if_in_time(graph: Graph, deadline: Deadline | None) -> list[list[int]]:
    """``[greedy_order]``, or ``[]`` when the deadline cuts it (O(n x ready) steps: > 3 s on a 6,400-node tree).

    The starts and incumbents of the other methods then come from the linear-time orders alone.
    """
    try:
        return [greedy_order(graph, deadline)]
    except TimeLimitReached:
        return []


def greedy(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Greedy least increase: the ready node that raises the peak least, ties by what it leaves resident.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    graph = Graph.of(instance)
    order = greedy_order(graph, Deadline.after(time_limit))
    return _result(instance, graph, order, "greedy least increase")


@dataclass(frozen=True)
class ForestParams:
    """Options of ``forest-postorder``.

    Attributes
    ----------
    traversal
        How the spanning in-forest is traversed: Liu's best post-order
        (``"postorder"``) or Liu's optimal traversal (``"liu"``).
    """

    traversal: Literal["postorder", "liu"] = "postorder"


def spanning_in_forest(graph: Graph) -> list[int]:
    """Keep, for every node, one successor: the one deepest from the sources (its latest consumer, likely)."""
    depth = [0] * graph.n
    for i in topological_by_priority(graph, range(graph.n)):
        for s in graph.successors[i]:
            depth[s] = max(depth[s], depth[i] + 1)
    return [max(succ, key=lambda s: (depth[s], s)) if succ else -1 for succ in graph.successors]


def forest_order(graph: Graph, traversal: str = "postorder") -> list[int]:
    """Traverse a spanning in-forest, then repair: run ready nodes in that rank (a topological order)."""
    parent = spanning_in_forest(graph)
    # in the forest a node that keeps a successor leaves its output resident until that successor ends
    kept = [graph.output[i] if parent[i] >= 0 else 0 for i in range(graph.n)]
    if traversal == "liu":
        forest_graph = Graph(
            graph.n,
            graph.step,
            tuple(kept),
            graph.output,
            _forest_predecessors(parent),
            tuple((p,) if p >= 0 else () for p in parent),
        )
        ranked, _ = liu_optimal_order(forest_graph, parent)
    else:
        ranked, _ = best_postorder_order(graph, parent, kept)
    rank = [0] * graph.n
    for position, node in enumerate(ranked):
        rank[node] = position
    return topological_by_priority(graph, rank)


def _forest_predecessors(parent: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    preds: list[list[int]] = [[] for _ in parent]
    for i, p in enumerate(parent):
        if p >= 0:
            preds[p].append(i)
    return tuple(tuple(p) for p in preds)


def forest_postorder(instance: Instance, /, *, time_limit: float, seed: int, params: ForestParams | None) -> Result:
    """Best post-order (or Liu's traversal) of a spanning in-forest, repaired into a topological order.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Unused: the method runs in polynomial time without a deadline.
    seed : int
        Unused: the method is deterministic.
    params : ForestParams | None
        Options; None takes the defaults of ``ForestParams``.

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or ForestParams()
    graph = Graph.of(instance)
    order = forest_order(graph, params.traversal)
    return _result(instance, graph, order, f"spanning in-forest ({params.traversal}), repaired by rank")


@dataclass(frozen=True)
class LocalSearchParams:
    """Options of ``local-search``.

    Attributes
    ----------
    max_iterations
        Node moves tried (each costs one O(n) simulation).
    """

    max_iterations: int = 2000

    def __post_init__(self) -> None:
        at_least("max_iterations", self.max_iterations, 0)


def _score(steps: list[int]) -> tuple[int, int]:
    top = max(steps)
    return top, steps.count(top)


def improve(graph: Graph, order: list[int], *, max_iterations: int, seed: int, deadline: Deadline) -> list[int]:
    """Move one node at a time inside its window (after its last predecessor, before its first successor).

    A move is kept when it lowers the peak, or keeps it and lowers the number
    of steps at the peak (a plateau move that opens the way to a lower peak).
    """
    rng = np.random.default_rng(seed)
    order = list(order)
    current = _score(profile(graph, order))
    n = graph.n
    if n < 2:
        return order
    for _ in range(max_iterations):
        if deadline.expired():
            break
        position = {node: k for k, node in enumerate(order)}
        a = int(rng.integers(n))
        node = order[a]
        low = max((position[p] + 1 for p in graph.predecessors[node]), default=0)
        high = min((position[s] - 1 for s in graph.successors[node]), default=n - 1)
        if high <= low:
            continue
        b = int(rng.integers(low, high + 1))
        if b == a:
            continue
        candidate = order[:a] + order[a + 1 :]
        candidate.insert(b, node)
        score = _score(profile(graph, candidate))
        if score < current:
            order, current = candidate, score
    return order


def local_search(instance: Instance, /, *, time_limit: float, seed: int, params: LocalSearchParams | None) -> Result:
    """Local search on orders from the best of greedy, DFS and spanning-forest starts (seeded moves).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Used: it seeds the solver's or the search's randomness.
    params : LocalSearchParams | None
        Options; None takes the defaults of ``LocalSearchParams``.

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or LocalSearchParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    starts = [*greedy_if_in_time(graph, deadline), dfs_order(graph), forest_order(graph)]
    start = min(starts, key=lambda o: _score(profile(graph, o)))
    order = improve(graph, start, max_iterations=params.max_iterations, seed=seed, deadline=deadline)
    return _result(instance, graph, order, f"local search from the best start, {params.max_iterations} moves at most")
