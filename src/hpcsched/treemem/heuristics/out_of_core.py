"""Eviction heuristics for the out-of-core question (MinIO) on a given traversal.

A traversal is fixed first (``traversal``: Liu's optimal order on in-forests,
Liu's best post-order, or the greedy order on any DAG); then the steps are
visited in order and, while a step needs more than M, one output not used
at that step is evicted for its whole unused interval (a `Gap`), chosen by a
rule:

* ``belady``: the output whose next use is furthest (Belady's rule for
  paging, optimal for unit sizes, a heuristic for sizes);
* ``largest``: the largest output (ties: furthest next use);
* ``first-fit``: the first output, in the order the outputs were last used,
  at least as large as the memory still missing; if none is, the largest,
  and repeat;
* ``best-fit``: the smallest output at least as large as the memory still
  missing; if none is, the largest, and repeat.

The names follow the spec ("evict largest first, first fit, best fit"); the
rules are stated here as implemented, not copied from Jacquelin, Marchal,
Robert and Uçar (IPDPS 2011), whose text we could not consult. After the
pass, evictions that turned out unnecessary are undone (latest choice first)
while every step still fits: this only lowers the I/O volume.

Every rule finds a feasible solution whenever M >= max MemReq (at a step,
evicting every output not used there leaves exactly MemReq); below that the
instance is infeasible and the methods raise `InfeasibleError`.

The bound they report is `io_lower_bound`: on an in-forest, the capped
eviction-set search of ``io_bounds`` (at least max(0, P* - M) with P* Liu's
optimal in-core peak); on other DAGs none (None), unless nothing is written
(0, optimal).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ...core.deadline import Deadline
from ...core.errors import InfeasibleError
from ...core.result import Result, Status
from ..io_bounds import io_bound
from ..model import Instance, Solution, other_question
from ..simulate import Gap, Graph, excess, gaps, io_events, peak
from ..special_cases import best_postorder_order, forest_parent, liu_optimal_order
from .sequential import forest_order, greedy_if_in_time

POLICIES = ("belady", "largest", "first-fit", "best-fit")
Traversal = Literal["auto", "liu-optimal", "best-postorder", "greedy"]


@dataclass(frozen=True)
class EvictionParams:
    """Options of the eviction heuristics.

    Attributes
    ----------
    traversal
        The order the evictions are chosen on: ``liu-optimal`` (in-forests:
        least in-core peak), ``best-postorder`` (in-forests), ``greedy`` (any
        DAG: the better of the greedy and spanning-forest orders), ``auto``
        (liu-optimal on in-forests, else greedy).
    """

    traversal: Traversal = "auto"


def require_feasible(instance: Instance, graph: Graph) -> None:
    """Raise `InfeasibleError` when some node alone needs more than M (then no solution exists)."""
    memory = instance.memory or 0
    worst = max(range(graph.n), key=graph.memreq)
    if graph.memreq(worst) > memory:
        raise InfeasibleError(
            f"node '{instance.nodes[worst].name}' needs {graph.memreq(worst)} while it runs "
            f"(its inputs, exec and output must all be resident), memory is {memory}"
        )


def traversal_order(instance: Instance, graph: Graph, traversal: str, deadline: Deadline | None = None) -> list[int]:
    """The traversal named by ``traversal`` (tree orders need an in-forest)."""
    if traversal == "auto":
        traversal = "liu-optimal" if instance.is_in_forest else "greedy"
    if traversal in ("liu-optimal", "best-postorder"):
        parent = forest_parent(graph)
        if parent is None:
            raise ValueError(f"traversal '{traversal}' needs an in-forest")  # the methods refuse it earlier
        if traversal == "liu-optimal":
            return liu_optimal_order(graph, parent, deadline)[0]
        return best_postorder_order(graph, parent)[0]
    return min([*greedy_if_in_time(graph, deadline), forest_order(graph)], key=lambda order: peak(graph, order))


def io_lower_bound(instance: Instance, graph: Graph, deadline: Deadline | None = None) -> int | None:
    """A proven lower bound on the bytes written on an in-forest (`io_bounds.io_bound`); None on other DAGs.

    At least max(0, P* − M), P* Liu's optimal in-core peak (every traversal
    reaches P* at some step, and the gaps evicted over that step are written),
    raised by the capped best-first search over eviction sets of ``io_bounds``
    (often to the optimum). On a DAG no bound is claimed: see ``io_bounds``.

    Parameters
    ----------
    instance : Instance
        An out-of-core treemem instance (M = ``instance.memory``).
    graph : Graph
        Its graph (`Graph.of`).
    deadline : Deadline | None
        Stops the search; the bound reached so far is kept (None if Liu's first run is cut).

    Returns
    -------
    int | None
        The bound in bytes, or None when none is proven.
    """
    found = io_bound(instance, graph, deadline=deadline)
    return None if found is None else found.bound


def _pick(policy: str, candidates: list[Gap], missing: int) -> Gap:
    if policy == "belady":
        return max(candidates, key=lambda g: (g.before, g.size, -g.node))
    if policy == "largest":
        return max(candidates, key=lambda g: (g.size, g.before, -g.node))
    fitting = [g for g in candidates if g.size >= missing]
    if not fitting:
        return max(candidates, key=lambda g: (g.size, g.before, -g.node))
    if policy == "first-fit":
        return min(fitting, key=lambda g: (g.after, g.node))
    return min(fitting, key=lambda g: (g.size, g.after, g.node))  # best-fit


def evict(graph: Graph, order: Sequence[int], memory: int, policy: str, deadline: Deadline | None = None) -> list[Gap]:
    """The gaps the rule ``policy`` evicts on ``order`` (assumes M >= max MemReq)."""
    all_gaps = gaps(graph, order)
    spanning: list[list[Gap]] = [[] for _ in order]
    for gap in all_gaps:
        for t in range(gap.after + 1, gap.before):
            spanning[t].append(gap)
    over = excess(graph, order, memory, [])
    chosen: list[Gap] = []
    taken: set[Gap] = set()
    for t in range(len(order)):
        if deadline is not None and t % 256 == 0:
            deadline.check("choosing evictions")
        while over[t] > 0:
            candidates = [g for g in spanning[t] if g not in taken]
            gap = _pick(policy, candidates, over[t])  # non-empty while M >= MemReq
            chosen.append(gap)
            taken.add(gap)
            for s in range(gap.after + 1, gap.before):
                over[s] -= gap.size
    # undo evictions that are no longer needed, latest first
    for gap in reversed(list(chosen)):
        if all(over[s] + gap.size <= 0 for s in range(gap.after + 1, gap.before)):
            chosen.remove(gap)
            for s in range(gap.after + 1, gap.before):
                over[s] += gap.size
    return chosen


def solution_of(instance: Instance, order: Sequence[int], chosen: Sequence[Gap]) -> Solution:
    """The out-of-core solution: ``order`` and the events of the evicted gaps."""
    names = [node.name for node in instance.nodes]
    return Solution(
        tuple(names[i] for i in order),
        io=tuple((kind, names[node], position) for kind, node, position in io_events(chosen)),
    )


def _eviction_method(policy: str):
    def method(instance: Instance, /, *, time_limit: float, seed: int, params: EvictionParams | None) -> Result:
        refused = other_question(instance, "out-of-core")
        if refused is not None:
            return refused
        params = params or EvictionParams()
        if params.traversal in ("liu-optimal", "best-postorder") and not instance.is_in_forest:
            return Result(
                status=Status.NOT_APPLICABLE,
                notes=(f"traversal '{params.traversal}' needs an in-forest; use greedy or auto",),
            )
        deadline = Deadline.after(time_limit)
        graph = Graph.of(instance)
        require_feasible(instance, graph)
        order = traversal_order(instance, graph, params.traversal, deadline)
        chosen = evict(graph, order, instance.memory or 0, policy, deadline)
        written = sum(gap.size for gap in chosen)
        # writing nothing is optimal whatever the bound; otherwise only a proven bound is reported
        bound = 0 if written == 0 else io_lower_bound(instance, graph, deadline)
        notes = [f"{policy} evictions on the {params.traversal} traversal: {len(chosen)} outputs evicted"]
        if written > 0:
            notes.append(
                "no lower bound on a DAG (the optimal in-core peak is not computed)"
                if bound is None
                else f"bound {bound}: eviction-set search with Liu's algorithm (>= Liu's in-core optimum - M)"
            )
        return Result(
            status=Status.OPTIMAL if bound is not None and written <= bound else Status.FEASIBLE,
            solution=solution_of(instance, order, chosen),
            bound=None if bound is None else float(bound),
            notes=tuple(notes),
        )

    method.__name__ = f"io_{policy.replace('-', '_')}"
    method.__doc__ = f"""Out-of-core: the {policy} eviction rule on a fixed traversal (heuristic).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the out-of-core question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds (traversal and eviction scan).
    seed : int
        Unused: the method is deterministic.
    params : EvictionParams | None
        The traversal to evict on; None takes the defaults of ``EvictionParams``.

    Returns
    -------
    Result
        The traversal order with its I/O events and the volume written, with the bound of
        `io_lower_bound` (None on a DAG); OPTIMAL when nothing is written or the volume meets the
        bound, else FEASIBLE; NOT_APPLICABLE for another question or an in-forest
        traversal on a DAG. Raises the infeasibility error of ``require_feasible`` when some node
        alone exceeds M.
    """
    return method


io_belady = _eviction_method("belady")
io_largest = _eviction_method("largest")
io_first_fit = _eviction_method("first-fit")
io_best_fit = _eviction_method("best-fit")
