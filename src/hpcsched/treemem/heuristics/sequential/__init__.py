"""Heuristics for the sequential question on any DAG.

Each returns a topological order with the `bounds.memreq` lower bound; the
result is OPTIMAL only when the peak meets that bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ....core.deadline import Deadline, TimeLimitReached
from ....core.params import at_least
from ....core.result import Result, Status
from ...bounds import memreq
from ...model import Instance, Solution, other_question
from ...simulate import Graph, peak, profile
from .orders import (
    dfs_order,
    forest_order,
    greedy_if_in_time,
    greedy_order,
    greedy_until,
    orders_in_time,
    spanning_in_forest,
)

__all__ = [
    "ForestParams",
    "LocalSearchParams",
    "dfs_order",
    "dfs_postorder",
    "forest_order",
    "forest_postorder",
    "greedy",
    "greedy_if_in_time",
    "greedy_order",
    "greedy_until",
    "improve",
    "local_search",
    "orders_in_time",
    "spanning_in_forest",
]


def _result(instance: Instance, graph: Graph, order: Sequence[int], *notes: str) -> Result:
    value = peak(graph, order)
    bound = memreq(instance)
    return Result(
        status=Status.OPTIMAL if value <= bound else Status.FEASIBLE,
        solution=Solution.from_indices(instance, order),
        bound=float(bound),
        notes=tuple(notes),
    )


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


def greedy(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Greedy least increase: the ready node that raises the peak least, ties by what it leaves resident.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds. When it passes, the greedy's order so
        far is completed in Kahn's order (one linear pass) and returned with
        a note saying after how many steps.
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
    order, cut = greedy_until(graph, Deadline.after(time_limit))
    if cut is None:
        return _result(instance, graph, order, "greedy least increase")
    return _result(
        instance,
        graph,
        order,
        f"greedy least increase; time limit reached after {cut:,} of {graph.n:,} steps: the rest in Kahn's order",
    )


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


def forest_postorder(instance: Instance, /, *, time_limit: float, seed: int, params: ForestParams | None) -> Result:
    """Best post-order (or Liu's traversal) of a spanning in-forest, repaired into a topological order.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked between the phases (each
        O(n log n)); when it passes, the DFS post-order (one linear pass) is
        returned instead, with a note.
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
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    try:
        order = forest_order(graph, params.traversal, deadline)
    except TimeLimitReached as stopped:
        return _result(instance, graph, dfs_order(graph), f"{stopped}: the DFS post-order instead")
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
    starts = orders_in_time(graph, deadline)
    if len(starts) == 2:  # both in time: the DFS post-order competes too
        starts.insert(1, dfs_order(graph))
    start = min(starts, key=lambda o: _score(profile(graph, o)))
    order = improve(graph, start, max_iterations=params.max_iterations, seed=seed, deadline=deadline)
    return _result(instance, graph, order, f"local search from the best start, {params.max_iterations} moves at most")
