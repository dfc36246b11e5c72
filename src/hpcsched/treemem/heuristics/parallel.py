"""Heuristics for the parallel question (p processors sharing memory M), after Eyraud-Dubois,
Marchal, Sinnen and Vivien, "Parallel scheduling of task trees with limited memory", ACM TOPC
2(2), 2015 (TOPC 2015).

Memory model of a schedule (as the validator's): node i holds n_i on
``[s_i, e_i)`` and f_i from s_i until its last successor ends (its own end
for a sink); frees happen before allocations at equal times.

* ``par-inner-first``: list scheduling; a free processor takes a ready inner
  node first (in the order of the best sequential post-order), else a ready
  leaf (same order).
* ``par-deepest-first``: list scheduling by the largest bottom level (the
  longest path, in time, from the node to a sink), ties by post-order rank.
* ``*-capped``: the same, but a node starts only if the memory after its
  allocation stays within M (the highest-priority node that fits starts);
  when nothing runs and nothing fits, the schedule falls back to the memory-
  optimal sequential order on one processor (valid whenever any schedule is,
  see `require_memory`).
* ``par-subtrees`` (trees): split the tree into subtrees by repeatedly
  removing the root of the subtree of largest work (its root joins a
  sequential set); keep the split of least estimated makespan ``W_max + Σ w
  of everything outside the p largest subtrees``; run the p largest subtrees
  in parallel, each in its memory-optimal order (Liu 1987), then everything
  else on one processor in the restriction of Liu's order of the whole tree.
* ``par-subtrees-optim``: the same split search, but all subtrees are
  assigned to processors by LPT (estimate: LPT makespan + Σ w of the
  sequential set); then the sequential set.

Uncapped heuristics ignore M while they build: when the schedule needs more
than M they return NOT_APPLICABLE saying how much (use a capped variant).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ...core.deadline import Deadline
from ...core.errors import InfeasibleError
from ...core.result import Result, Status
from ..bounds import parallel_lower_bound
from ..model import Instance, Solution, memory_levels, other_question
from ..simulate import Graph, topological_order
from ..special_cases import best_postorder_order, forest_parent, liu_optimal_order
from .sequential import forest_order


def require_memory(instance: Instance, graph: Graph, deadline: Deadline | None = None) -> list[int] | None:
    """Raise InfeasibleError when no schedule fits M; return Liu's order on in-forests.

    Proof: listing the nodes of a parallel schedule by start time gives a
    sequential order whose step memory at node i is at most the schedule's
    memory just after s_i (everything the order holds, the schedule holds
    too), so the schedule's peak is at least the sequential optimum; and every
    step holds at least MemReq(i).
    """
    memory = instance.memory or 0
    for i in range(graph.n):
        if graph.memreq(i) > memory:
            raise InfeasibleError(
                f"node '{instance.nodes[i].name}' alone needs MemReq {graph.memreq(i)} > M = {memory}"
            )
    parent = forest_parent(graph)
    if parent is None:
        return None
    order, best = liu_optimal_order(graph, parent, deadline)
    if best > memory:
        raise InfeasibleError(f"the sequential optimum of the tree is {best} > M = {memory}: no schedule fits")
    return order


def bottom_levels(instance: Instance, graph: Graph) -> list[int]:
    """Longest path in time from each node to a sink, the node itself included."""
    level = [0] * graph.n
    for i in reversed(topological_order(graph)):  # any topological order, reversed (Kahn's is the cheapest)
        level[i] = instance.nodes[i].time + max((level[s] for s in graph.successors[i]), default=0)
    return level


class _ListRun:
    """The state of one event-driven list-scheduling run (see :func:`list_schedule`)."""

    def __init__(self, instance: Instance, graph: Graph, priority: Sequence, capped: bool) -> None:
        self.instance, self.graph, self.priority, self.capped = instance, graph, priority, capped
        self.memory = instance.memory or 0
        self.times = [node.time for node in instance.nodes]
        self.missing = [len(pr) for pr in graph.predecessors]
        self.remaining = [len(s) for s in graph.successors]
        self.ready = sorted((i for i in range(graph.n) if self.missing[i] == 0), key=lambda i: priority[i])
        self.free = list(range(instance.processors or 1))
        self.running: list[tuple[int, int, int]] = []  # (end, node, processor)
        self.start, self.processor = [0] * graph.n, [0] * graph.n
        self.held, self.now, self.done = 0, 0, 0

    def _start_first_fitting(self) -> bool:
        """Start the first ready node (by priority) whose step fits; False when none does."""
        graph = self.graph
        for k, i in enumerate(self.ready):
            if not self.capped or self.held + graph.step[i] <= self.memory:
                self.ready.pop(k)
                proc = heapq.heappop(self.free)
                self.start[i], self.processor[i] = self.now, proc
                self.held += graph.step[i]
                heapq.heappush(self.running, (self.now + self.times[i], i, proc))
                return True
        return False

    def start_ready(self) -> None:
        """Start ready nodes while a processor is free and one fits."""
        while self.free and self.ready and self._start_first_fitting():
            pass

    def finish_schedule(self, i: int, proc: int, newly: list[int]) -> None:
        """Free node i's processor and memory; consumed inputs go, newly ready successors join ``newly``."""
        graph = self.graph
        self.done += 1
        heapq.heappush(self.free, proc)
        self.held -= self.instance.nodes[i].exec + (0 if graph.successors[i] else graph.output[i])
        for pr in graph.predecessors[i]:
            self.remaining[pr] -= 1
            if self.remaining[pr] == 0:
                self.held -= graph.output[pr]
        for s in graph.successors[i]:
            self.missing[s] -= 1
            if self.missing[s] == 0:
                newly.append(s)

    def finish_next_instant(self) -> None:
        """Advance to the next end; every end at this instant frees before any start."""
        self.now = self.running[0][0]
        newly: list[int] = []
        while self.running and self.running[0][0] == self.now:
            _, i, proc = heapq.heappop(self.running)
            self.finish_schedule(i, proc, newly)
        if newly:
            self.ready = sorted(self.ready + newly, key=lambda i: self.priority[i])


def list_schedule(
    instance: Instance, graph: Graph, priority: Sequence, capped: bool, deadline: Deadline | None = None
) -> tuple[list[int], list[int]] | None:
    """Event-driven list scheduling on p processors; None when the capped run deadlocks.

    Raises `TimeLimitReached` (TIME_LIMIT_NO_SOLUTION) at ``deadline``, checked at every event.
    """
    run = _ListRun(instance, graph, priority, capped)
    while run.done < graph.n:
        if deadline is not None:
            deadline.check("list scheduling")
        run.start_ready()
        if not run.running:
            return None  # capped and nothing fits: deadlock
        run.finish_next_instant()
    return run.start, run.processor


def _sequential_schedule(instance: Instance, order: Sequence[int]) -> tuple[list[int], list[int]]:
    start, now = [0] * instance.n, 0
    for i in order:
        start[i] = now
        now += instance.nodes[i].time
    return start, [0] * instance.n


def finish_schedule(instance: Instance, start: Sequence[int], processor: Sequence[int], *notes: str) -> Result:
    peak = max((held for _, held in memory_levels(instance, start)), default=0)
    if peak > (instance.memory or 0):
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(*notes, f"the schedule needs memory {peak} > M = {instance.memory}; use a capped variant"),
        )
    bound = parallel_lower_bound(instance)
    makespan = max(s + node.time for s, node in zip(start, instance.nodes, strict=False))
    return Result(
        status=Status.OPTIMAL if makespan <= bound else Status.FEASIBLE,
        solution=Solution.schedule(instance, start, processor),
        bound=float(bound),
        notes=(*notes, f"peak memory {peak} of M = {instance.memory}"),
    )


#: What a deadline reached between the phases before the list schedule says.
_PRIORITIES = "computing the list schedule's priorities"


def _postorder_rank(graph: Graph) -> list[int]:
    parent = forest_parent(graph)
    order = best_postorder_order(graph, parent)[0] if parent is not None else forest_order(graph)
    rank = [0] * graph.n
    for position, node in enumerate(order):
        rank[node] = position
    return rank


def _list_method(instance: Instance, rule: str, capped: bool, time_limit: float | None = None) -> Result:
    refused = other_question(instance, "parallel")
    if refused is not None:
        return refused
    deadline = Deadline.after(time_limit)  # the priorities (O(n log n) each) count in the limit too
    graph = Graph.of(instance)
    fallback = require_memory(instance, graph, deadline)
    deadline.check(_PRIORITIES)
    rank = _postorder_rank(graph)
    deadline.check(_PRIORITIES)
    if rule == "inner-first":
        priority = [(0 if graph.predecessors[i] else 1, rank[i]) for i in range(graph.n)]
    else:
        level = bottom_levels(instance, graph)
        priority = [(-level[i], rank[i]) for i in range(graph.n)]
    schedule = list_schedule(instance, graph, priority, capped, deadline)
    name = f"par-{rule}{'-capped' if capped else ''}"
    if schedule is None:
        if fallback is None:
            return Result(
                status=Status.TIME_LIMIT_NO_SOLUTION,
                notes=(f"{name} deadlocked under M and the graph is not a tree (no fallback order)",),
            )
        return finish_schedule(
            instance,
            *_sequential_schedule(instance, fallback),
            f"{name} deadlocked under M: Liu's sequential order on one processor instead",
        )
    return finish_schedule(instance, *schedule, name)


def par_inner_first(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ParInnerFirst (TOPC 2015): list scheduling, ready inner nodes before leaves, post-order ranks; ignores M.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every event of the list schedule.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL, TIME_LIMIT_NO_SOLUTION.
    """
    return _list_method(instance, "inner-first", capped=False, time_limit=time_limit)


def par_deepest_first(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ParDeepestFirst (TOPC 2015): list scheduling by largest bottom level; ignores M.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every event of the list schedule.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL, TIME_LIMIT_NO_SOLUTION.
    """
    return _list_method(instance, "deepest-first", capped=False, time_limit=time_limit)


def par_inner_first_capped(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ParInnerFirst that starts a node only when it fits in M (sequential fallback on deadlock).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every event of the list schedule.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL, TIME_LIMIT_NO_SOLUTION.
    """
    return _list_method(instance, "inner-first", capped=True, time_limit=time_limit)


def par_deepest_first_capped(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """ParDeepestFirst that starts a node only when it fits in M (sequential fallback on deadlock).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the parallel question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, checked at every event of the list schedule.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The schedule (start and processor per node) and its makespan;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL, TIME_LIMIT_NO_SOLUTION.
    """
    return _list_method(instance, "deepest-first", capped=True, time_limit=time_limit)
