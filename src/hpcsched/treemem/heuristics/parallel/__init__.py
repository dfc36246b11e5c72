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
  allocation stays within M (the highest-priority node that fits starts).
  When nothing runs and nothing fits (a deadlock: outputs held for
  consumers that cannot start), the schedule falls back to a sequential
  order on one processor whose peak fits M (`sequential_fallback`): on
  in-forests Liu's optimal order (valid whenever any schedule is, see
  `require_memory`); on other DAGs the first that fits of the
  spanning-forest, DFS and greedy orders, and NOT_APPLICABLE, saying so,
  when none does (the sequential optimum of a DAG is NP-hard: that is no
  proof that nothing fits). With that order's positions as priorities the
  capped list schedule is run once more, and kept when it completes (it
  often does, at a fraction of the sequential makespan).

A time limit reached while the priorities or the list schedule are computed
returns a sequential order at hand that fits M on one processor (FEASIBLE,
with a note) rather than nothing: Liu's order on in-forests (known before the
list schedule starts), on other DAGs the spanning-forest order if it was made,
else the DFS post-order, when its peak fits M. TIME_LIMIT_NO_SOLUTION only
comes from the limit itself, when no such order is at hand.
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

from ....core.deadline import Deadline, TimeLimitReached
from ....core.result import Result, Status
from ...model import Instance, other_question
from ...simulate import Graph, peak
from ...special_cases import best_postorder_order, forest_parent
from ..sequential import dfs_order, forest_order
from .list_schedule import (
    bottom_levels,
    finish_schedule,
    list_schedule,
    require_memory,
    sequential_fallback,
    sequential_schedule,
)

__all__ = [
    "bottom_levels",
    "finish_schedule",
    "list_schedule",
    "par_deepest_first",
    "par_deepest_first_capped",
    "par_inner_first",
    "par_inner_first_capped",
    "require_memory",
    "sequential_fallback",
    "sequential_schedule",
]


#: What a deadline reached between the phases before the list schedule says.
_PRIORITIES = "computing the list schedule's priorities"


def _postorder_rank(graph: Graph, deadline: Deadline) -> tuple[list[int], list[int]]:
    """The best post-order (in-forests) or the spanning-forest order (DAGs), and each node's rank in it."""
    parent = forest_parent(graph)
    order = best_postorder_order(graph, parent)[0] if parent is not None else forest_order(graph, deadline=deadline)
    rank = [0] * graph.n
    for position, node in enumerate(order):
        rank[node] = position
    return order, rank


def _list_method(instance: Instance, rule: str, capped: bool, time_limit: float | None = None) -> Result:
    refused = other_question(instance, "parallel")
    if refused is not None:
        return refused
    deadline = Deadline.after(time_limit)  # the priorities (O(n log n) each) count in the limit too
    graph = Graph.of(instance)
    liu = require_memory(instance, graph, deadline)
    name = f"par-{rule}{'-capped' if capped else ''}"
    ranked: list[int] | None = None
    try:
        deadline.check(_PRIORITIES)
        ranked, rank = _postorder_rank(graph, deadline)
        deadline.check(_PRIORITIES)
        if rule == "inner-first":
            priority = [(0 if graph.predecessors[i] else 1, rank[i]) for i in range(graph.n)]
        else:
            level = bottom_levels(instance, graph)
            priority = [(-level[i], rank[i]) for i in range(graph.n)]
        schedule = list_schedule(instance, graph, priority, capped, deadline)
    except TimeLimitReached as stopped:
        return _cut(instance, graph, name, stopped, liu, ranked)
    if schedule is not None:
        return finish_schedule(instance, *schedule, name)
    order, what = sequential_fallback(instance, graph, liu, ranked, deadline)
    if order is None:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{name} deadlocked under M, and {what}",))
    return _after_deadlock(instance, graph, name, order, what, deadline)


def _cut(
    instance: Instance,
    graph: Graph,
    name: str,
    stopped: TimeLimitReached,
    liu: list[int] | None,
    ranked: list[int] | None,
) -> Result:
    """What a list schedule cut by its limit answers: a sequential order at hand that fits M, on one processor.

    Liu's order on in-forests (made before the list schedule, it fits M);
    on other DAGs the spanning-forest order if it was made, else the DFS
    post-order (one linear pass), when its peak fits M. None fits: the
    limit's TIME_LIMIT_NO_SOLUTION.
    """
    candidates: list[tuple[list[int] | None, str]] = [(liu, "Liu's sequential order")]
    if liu is None:
        candidates = [(ranked, "the spanning-forest order"), (dfs_order(graph), "the DFS post-order")]
    for order, what in candidates:
        if order is not None and peak(graph, order) <= (instance.memory or 0):
            return finish_schedule(
                instance,
                *sequential_schedule(instance, order),
                f"{stopped} ({name}): {what} on one processor instead",
            )
    raise stopped


def _after_deadlock(
    instance: Instance, graph: Graph, name: str, order: list[int], what: str, deadline: Deadline
) -> Result:
    """The capped list schedule with ``order``'s positions as priorities, else ``order`` on one processor.

    ``order`` fits M sequentially; ranked by it, the capped list schedule
    often completes (on random 40-node DAGs at M = the best sequential peak,
    3 of 4 runs that deadlocked under the rule's own priorities, at about
    half the sequential makespan); when it deadlocks too, or the deadline
    passes, the sequential schedule stands.
    """
    position = [0] * graph.n
    for k, node in enumerate(order):
        position[node] = k
    try:
        schedule = list_schedule(instance, graph, position, True, deadline)
    except TimeLimitReached:
        schedule = None
    if schedule is not None:
        return finish_schedule(instance, *schedule, f"{name} deadlocked under M: capped list schedule by {what}")
    return finish_schedule(
        instance, *sequential_schedule(instance, order), f"{name} deadlocked under M: {what} on one processor"
    )


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
