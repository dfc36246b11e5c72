"""Polynomial algorithms for in-trees (and in-forests): Liu's best post-order and optimal traversal.

Both work bottom-up on the forest ``parent[i]`` (the one successor of i, or
-1 for a root). Memory model: the step of i costs ``R + n_i + f_i`` where R
is the resident memory; when a subtree rooted at c is finished it leaves
``kept_c`` resident (f_c, or 0 for a root, whose output is freed at its end).

Theorems used
-------------
* Liu 1986 (J. W. H. Liu, "On the storage requirement in the out-of-core
  multifrontal method for sparse factorization", ACM TOMS 12(3), 1986): among
  post-orders, processing the children of every node in non-increasing order
  of ``P_c - f_c`` (P_c the peak of c's subtree) is optimal, and
  ``P_r = max(max_k (Σ_{j<k} f_{c_j} + P_{c_k}), Σ_c f_c + n_r + f_r)``. The
  result is OPTIMAL among post-orders only; for the problem it is a
  heuristic (the harpoon family shows a factor → 2).
* Liu 1987 (J. W. H. Liu, "An application of generalized tree pebbling to
  sparse matrix factorization", SIAM J. Algebraic Discrete Methods 8(3),
  375-395, 1987): cut the optimal traversal of each subtree into hill-valley
  segments (the first hill is the highest step; its valley the lowest resident
  level after it, last occurrence; then again on the rest). An optimal
  traversal of the tree rooted at r runs the segments of all children merged
  in non-increasing order of ``hill - valley`` (each child's own segments
  keep their order, their keys decrease strictly), then r. Here a segment is
  kept *relative* to the resident level of its own subtree where it starts
  (``dh`` = hill − start level, ``dv`` = valley − start level), which makes
  merging free of offsets: two adjacent segments a, b are one segment
  exactly when ``dv_b <= 0`` (b's valley is not above a's) or
  ``dv_a + dh_b > dh_a`` (b's hill is above a's), and then they become
  ``(max(dh_a, dv_a + dh_b), dv_a + dv_b)``. A stack pass restores this
  canonical form after each merge. Cross-checked against the exact DP on
  random trees in the tests.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Sequence

from ..core.deadline import Deadline
from ..core.result import Result, Status
from .model import Instance, Solution, other_question
from .simulate import Graph, peak


def forest_parent(graph: Graph) -> list[int] | None:
    """The successor of each node (-1 for roots), or None if some node has two successors."""
    parent = []
    for succ in graph.successors:
        if len(succ) > 1:
            return None
        parent.append(succ[0] if succ else -1)
    return parent


def require_forest_parent(graph: Graph) -> list[int]:
    """:func:`forest_parent` for a graph the caller already knows is an in-forest.

    Raises
    ------
    ValueError
        If some node has two successors (the caller's check was skipped).
    """
    parent = forest_parent(graph)
    if parent is None:
        raise ValueError("the graph is not an in-forest: some node has two successors")
    return parent


def _children_and_bottom_up(parent: Sequence[int]) -> tuple[list[list[int]], list[int], list[int]]:
    """Children lists, a bottom-up (leaves first) order and the roots of a forest."""
    n = len(parent)
    children: list[list[int]] = [[] for _ in range(n)]
    roots = []
    for i, p in enumerate(parent):
        if p < 0:
            roots.append(i)
        else:
            children[p].append(i)
    top_down = list(roots)
    for node in top_down:  # grows while iterating: a breadth-first listing
        top_down.extend(children[node])
    return children, top_down[::-1], roots


def best_postorder_order(
    graph: Graph, parent: Sequence[int], kept: Sequence[int] | None = None
) -> tuple[list[int], int]:
    """Liu 1986: the best post-order of the forest ``parent`` and its peak.

    ``kept`` (default ``graph.kept``) is what a finished subtree leaves resident.
    """
    kept = graph.kept if kept is None else kept
    children, bottom_up, roots = _children_and_bottom_up(parent)
    subtree_peak = [0] * graph.n
    for node in bottom_up:
        kids = children[node]
        kids.sort(key=lambda c: kept[c] - subtree_peak[c])  # non-increasing P_c - f_c
        resident, best = 0, 0
        for child in kids:
            best = max(best, resident + subtree_peak[child])
            resident += kept[child]
        subtree_peak[node] = max(best, resident + graph.step[node])
    order: list[int] = []
    stack = [(root, False) for root in reversed(roots)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children[node]))
    return order, max(subtree_peak[root] for root in roots)


def _flatten(rope: object) -> list[int]:
    """The node sequence of a rope (an int, or a pair of ropes), iteratively."""
    out: list[int] = []
    stack = [rope]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.append(item[1])
            stack.append(item[0])
        else:
            out.append(item)  # type: ignore[arg-type]
    return out


def _push(stack: list, segment: list) -> None:
    """Append ``[dh, dv, rope]`` and merge with the top until the list is canonical (see module doc)."""
    while stack:
        dh_a, dv_a, rope_a = stack[-1]
        dh_b, dv_b, rope_b = segment
        if dv_b > 0 and dv_a + dh_b <= dh_a:
            break
        stack.pop()
        segment = [max(dh_a, dv_a + dh_b), dv_a + dv_b, (rope_a, rope_b)]
    stack.append(segment)


def liu_optimal_order(graph: Graph, parent: Sequence[int], deadline: Deadline | None = None) -> tuple[list[int], int]:
    """Liu 1987: an optimal traversal of the forest ``parent`` and its peak."""
    enabled = gc.isenabled()
    gc.disable()  # millions of small lists and no cycles: the cyclic collector only costs time here
    try:
        return _liu_optimal_order(graph, parent, deadline)
    finally:
        if enabled:
            gc.enable()


def segment_order(segment: Sequence[float]) -> float:
    """Liu's merge order of (hill, valley, ...) segments: ascending = non-increasing hill - valley."""
    return segment[1] - segment[0]


def _merged(segments: Sequence[list | None], nodes: Sequence[int]) -> list[list]:
    """The segment lists of ``nodes`` (children not yet merged, so never freed to None)."""
    lists = [segments[node] for node in nodes]
    if any(segment_list is None for segment_list in lists):
        raise AssertionError("a subtree's segments were freed before its parent merged them")
    return [segment_list for segment_list in lists if segment_list is not None]


def _liu_optimal_order(graph: Graph, parent: Sequence[int], deadline: Deadline | None) -> tuple[list[int], int]:
    children, bottom_up, roots = _children_and_bottom_up(parent)
    segments: list[list | None] = [None] * graph.n
    for count, node in enumerate(bottom_up):
        if deadline is not None and count % 1024 == 0:  # a merge may sort many segments: check often
            deadline.check("merging segments (liu-optimal)")
        kids = children[node]
        if not kids:
            merged: list = []
        elif len(kids) == 1:
            merged = _merged(segments, kids)[0]
        else:
            merged = []
            # a stable sort of the concatenation = the stable merge of the children's sorted lists
            for segment in sorted(itertools.chain.from_iterable(_merged(segments, kids)), key=segment_order):
                _push(merged, segment)
        below = sum(graph.kept[c] for c in kids)
        _push(merged, [graph.step[node], graph.kept[node] - below, node])
        segments[node] = merged
        for c in kids:
            segments[c] = None  # free memory on large trees
    if len(roots) == 1:
        final = _merged(segments, roots)[0]
    else:
        final = []
        for segment in sorted(itertools.chain.from_iterable(_merged(segments, roots)), key=segment_order):
            _push(final, segment)
    order: list[int] = []
    for segment in final:
        order.extend(_flatten(segment[2]))
    best, resident = 0, 0
    for dh, dv, _ in final:
        best = max(best, resident + dh)
        resident += dv
    return order, best


def _not_a_forest(instance: Instance) -> Result | None:
    if instance.is_in_forest:
        return None
    return Result(
        status=Status.NOT_APPLICABLE,
        notes=("the graph is not an in-tree/in-forest: some node has two successors",),
    )


def liu_optimal(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Liu 1987 optimal traversal of an in-tree (or in-forest): OPTIMAL, O(n log n) in practice.

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
        NOT_APPLICABLE, OPTIMAL.
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    refused = _not_a_forest(instance)
    if refused is not None:
        return refused
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    order, best = liu_optimal_order(graph, require_forest_parent(graph), deadline)
    return Result(
        status=Status.OPTIMAL,
        solution=Solution.from_indices(instance, order),
        bound=float(best),
        notes=("Liu 1987 hill-valley segment merging (exact on in-trees)",),
    )


def best_postorder(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Liu 1986 best post-order of an in-tree: optimal among post-orders, a heuristic for the problem.

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
    refused = _not_a_forest(instance)
    if refused is not None:
        return refused
    graph = Graph.of(instance)
    order, best = best_postorder_order(graph, require_forest_parent(graph))
    bound = max(graph.memreq(i) for i in range(graph.n))
    status = Status.OPTIMAL if best <= bound else Status.FEASIBLE
    return Result(
        status=status,
        solution=Solution.from_indices(instance, order),
        bound=float(bound),
        notes=(f"best post-order peak {best} (optimal among post-orders; OPTIMAL only when it meets max MemReq)",),
    )


def tree_optimum(instance: Instance) -> int | None:
    """The optimal peak of an in-forest (Liu 1987), None for other DAGs."""
    if not instance.is_in_forest:
        return None
    graph = Graph.of(instance)
    return liu_optimal_order(graph, require_forest_parent(graph))[1]


__all__ = [
    "best_postorder",
    "best_postorder_order",
    "forest_parent",
    "liu_optimal",
    "liu_optimal_order",
    "peak",
    "tree_optimum",
]
