"""ParSubtrees and ParSubtreesOptim (Eyraud-Dubois et al., TOPC 2015): whole subtrees in parallel, the rest after."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import NamedTuple

from ...core.deadline import Deadline
from ...core.result import Result, Status
from ..model import Instance, other_question
from ..simulate import Graph
from ..special_cases import forest_parent, liu_optimal_order
from .parallel import finish_schedule, require_memory


def _lpt(works: Sequence[int], p: int) -> tuple[int, list[int]]:
    """LPT makespan of ``works`` on p machines and the machine of each job."""
    loads = [(0, m) for m in range(p)]
    machine = [0] * len(works)
    for job in sorted(range(len(works)), key=lambda j: -works[j]):
        load, m = heapq.heappop(loads)
        machine[job] = m
        heapq.heappush(loads, (load + works[job], m))
    return max(load for load, _ in loads), machine


class _Cut(NamedTuple):
    """A cut of the tree: subtrees run in parallel, then the nodes above them one by one."""

    estimate: float
    subtree_roots: list[int]
    sequential: list[int]


def _subtree_work(parent: Sequence[int], whole_order: Sequence[int], times: Sequence[int]) -> list[int]:
    """Total time of the subtree under each node (``whole_order`` lists children before parents)."""
    work = list(times)
    for i in whole_order:
        if parent[i] >= 0:
            work[parent[i]] += work[i]
    return work


def _best_cut(
    graph: Graph,
    parent: Sequence[int],
    work: Sequence[int],
    times: Sequence[int],
    p: int,
    optim: bool,
    deadline: Deadline,
) -> tuple[_Cut, bool]:
    """Split the heaviest subtree root off, one at a time; keep the cut of least estimated makespan.

    Each cut costs O(n log n) (O(n) without ``optim``), so the walk over up to
    n cuts is quadratic: it stops at the deadline with the best cut seen (the
    first one, all the forest's roots, is always a valid cut). The flag says
    whether the walk was cut short.
    """
    total = sum(times)
    heap = [(-work[r], r) for r in range(graph.n) if parent[r] < 0]
    heapq.heapify(heap)
    sequential: list[int] = []
    best: _Cut | None = None
    for _ in range(graph.n):
        if best is not None and deadline.expired():
            return best, True
        subtree_roots = [r for _, r in heap]
        works = [work[r] for r in subtree_roots]
        sequential_work = sum(times[i] for i in sequential)
        if optim:
            estimate = _lpt(works, p)[0] + sequential_work
        else:
            largest = sorted(works, reverse=True)[:p]
            estimate = largest[0] + (total - sum(largest))
        if best is None or estimate < best.estimate:
            best = _Cut(estimate, list(subtree_roots), list(sequential))
        top = heap[0][1]
        kids = graph.predecessors[top]
        if not kids:
            break
        heapq.heappop(heap)
        sequential.append(top)
        for c in kids:
            heapq.heappush(heap, (-work[c], c))
    if best is None:  # the loop runs at least once: an instance has a node
        raise AssertionError("no cut of the tree was estimated")
    return best, False


def _parallel_roots(cut: _Cut, work: Sequence[int], p: int, optim: bool) -> tuple[list[int], list[int]]:
    """The subtree roots run in parallel and the processor of each (LPT with optim, else the p heaviest)."""
    if optim:
        _, machine = _lpt([work[r] for r in cut.subtree_roots], p)
        return cut.subtree_roots, machine
    chosen = sorted(cut.subtree_roots, key=lambda r: -work[r])[:p]
    return chosen, list(range(len(chosen)))


def _subtrees(instance: Instance, graph: Graph, optim: bool, deadline: Deadline) -> Result:
    refused = other_question(instance, "parallel")
    if refused is not None:
        return refused
    parent = forest_parent(graph)
    if parent is None:
        return Result(status=Status.NOT_APPLICABLE, notes=("ParSubtrees needs an in-tree/forest",))
    whole_order = require_memory(instance, graph, deadline)
    if whole_order is None:  # require_memory returns Liu's order on every in-forest
        raise AssertionError("no Liu order for an in-forest")
    p = instance.processors or 1
    times = [node.time for node in instance.nodes]
    work = _subtree_work(parent, whole_order, times)
    cut, stopped = _best_cut(graph, parent, work, times, p, optim, deadline)
    members = _members(graph, cut.subtree_roots)
    parallel_roots, machine = _parallel_roots(cut, work, p, optim)
    start, processor = [0] * graph.n, [0] * graph.n
    clock = [0] * p
    name = "par-subtrees-optim" if optim else "par-subtrees"
    for k, root in sorted(enumerate(parallel_roots), key=lambda item: -work[item[1]]):
        proc = machine[k]
        if deadline.expired():  # Liu's order of each subtree is O(s log s): Liu's whole order fits M already
            return _liu_sequential(instance, whole_order, times, name)
        for i in _subtree_order(graph, members[root], whole_order):
            start[i], processor[i] = clock[proc], proc
            clock[proc] += times[i]
    in_parallel = {i for r in parallel_roots for i in members[r]}
    now = max(clock)
    for i in whole_order:
        if i not in in_parallel:
            start[i], processor[i] = now, 0
            now += times[i]
    return finish_schedule(
        instance,
        start,
        processor,
        f"{name}: {len(parallel_roots)} subtrees in parallel, {graph.n - len(in_parallel)} nodes after them",
        *(("the search over cuts stopped at the time limit (best cut so far)",) if stopped else ()),
    )


def _members(graph: Graph, roots: Sequence[int]) -> dict[int, list[int]]:
    members = {}
    for root in roots:
        nodes, stack = [], [root]
        while stack:
            node = stack.pop()
            nodes.append(node)
            stack.extend(graph.predecessors[node])
        members[root] = nodes
    return members


def _liu_sequential(instance: Instance, order: Sequence[int], times: Sequence[int], name: str) -> Result:
    """Liu's order on one processor (it fits M: `require_memory`), when the deadline cuts the subtree orders."""
    start, now = [0] * len(order), 0
    for i in order:
        start[i], now = now, now + times[i]
    return finish_schedule(
        instance, start, [0] * len(order), f"{name}: time limit reached: Liu's sequential order on one processor"
    )


def _subtree_order(graph: Graph, nodes: list[int], whole_order: Sequence[int]) -> list[int]:
    """Liu's optimal order of the subtree made of ``nodes`` (its root's output kept: it has a successor outside).

    The whole tree (one root, every node) is ordered already: ``whole_order``.
    """
    if len(nodes) == graph.n:
        return list(whole_order)
    local = {node: k for k, node in enumerate(nodes)}
    parent = [local.get(graph.successors[node][0], -1) if graph.successors[node] else -1 for node in nodes]
    sub = Graph(
        len(nodes),
        tuple(graph.step[i] for i in nodes),
        tuple(graph.output[i] if parent[k] >= 0 else 0 for k, i in enumerate(nodes)),
        tuple(graph.output[i] for i in nodes),
        tuple(tuple(local[c] for c in graph.predecessors[i]) for i in nodes),
        tuple((parent[k],) if parent[k] >= 0 else () for k in range(len(nodes))),
    )
    order, _ = liu_optimal_order(sub, parent)
    return [nodes[k] for k in order]


def par_subtrees(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ParSubtrees (TOPC 2015): the p largest subtrees of the best split in parallel, the rest after; ignores M.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Seconds for the quadratic search over cuts; when it runs out, the
        best cut found so far is scheduled (still FEASIBLE).
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    return _subtrees(instance, Graph.of(instance), optim=False, deadline=Deadline.after(time_limit))


def par_subtrees_optim(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ParSubtreesOptim (TOPC 2015): all subtrees of the best split by LPT, the sequential set after; ignores M.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Seconds for the quadratic search over cuts; when it runs out, the
        best cut found so far is scheduled (still FEASIBLE).
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL.
    """
    return _subtrees(instance, Graph.of(instance), optim=True, deadline=Deadline.after(time_limit))
