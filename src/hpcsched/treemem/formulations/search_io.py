"""search-io: the best-first search over eviction sets of ``io_bounds`` as an exact out-of-core method.

On an in-forest, an optimal MinIO solution is an order plus a set E of
outputs evicted for their whole gap, and E is feasible iff Liu's algorithm
fits the forest with the sizes E modifies (``io_bounds``). The search of
``io_bounds`` enumerates eviction sets best-first with a proven lower bound
at every node; when it closes, the set it carries is optimal. Cut by its
node cap or the time limit, it leaves a proven lower bound and the best
eviction set it met.

The method first runs the four eviction rules of ``heuristics.out_of_core``
on Liu's optimal traversal (the solutions of ``io-belady``, ``io-largest``,
``io-first-fit`` and ``io-best-fit`` with their default traversal), then the
search under the same deadline, and returns the cheaper of the search's set
and the best rule's solution: never worse than any of those heuristics.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from ..heuristics.out_of_core import POLICIES, evict, require_feasible, solution_of, traversal_order
from ..io_bounds import DEFAULT_WORK, IoBound, io_bound
from ..model import Instance, other_question
from ..simulate import Gap, Graph, excess, gaps


@dataclass(frozen=True)
class SearchIoParams:
    """Options of ``search-io``.

    Attributes
    ----------
    max_nodes
        Search nodes evaluated at most (each costs one or two runs of Liu's
        algorithm); None: ``max(1, DEFAULT_WORK // n)`` with ``DEFAULT_WORK``
        = 100,000, the cap of the bound ``bounds.best`` reports.
    """

    max_nodes: int | None = None

    def __post_init__(self) -> None:
        at_least("max_nodes", self.max_nodes, 1)


def _best_rule(instance: Instance, graph: Graph, deadline: Deadline) -> tuple[list[int], list[Gap], str]:
    """The cheapest of the eviction rules on Liu's optimal traversal: order, gaps, rule."""
    memory = instance.memory or 0
    order = traversal_order(instance, graph, "liu-optimal", deadline)
    tried = [(order, evict(graph, order, memory, policy, deadline), policy) for policy in POLICIES]
    return min(tried, key=lambda found: sum(g.size for g in found[1]))


def _searched(graph: Graph, memory: int, found: IoBound | None) -> tuple[list[int], list[Gap]] | None:
    """The search's eviction set as order and gaps, None when it carries none (or, defensively, one over M)."""
    if found is None or not found.order:
        return None
    order = list(found.order)
    chosen = [g for g in gaps(graph, order) if g.node in found.evicted]
    if any(value > 0 for value in excess(graph, order, memory, chosen)):
        return None
    return order, chosen


def search_io(instance: Instance, /, *, time_limit: float, seed: int, params: SearchIoParams | None) -> Result:
    """Best-first search over eviction sets with Liu's algorithm as the feasibility test (in-forests).

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the out-of-core question on an in-forest (any other question or
        graph: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds, for the eviction rules and the search together.
    seed : int
        Unused: the method is deterministic.
    params : SearchIoParams | None
        The node cap; None takes the defaults of ``SearchIoParams``.

    Returns
    -------
    Result
        The traversal order with its I/O events and the volume written, with the search's proven
        bound; OPTIMAL when the search closed (or the volume meets the bound), FEASIBLE when the
        node cap or the time limit cut it; NOT_APPLICABLE for another question or a DAG that is not
        an in-forest. Raises the infeasibility error of ``require_feasible`` when some node alone
        exceeds M.
    """
    refused = other_question(instance, "out-of-core")
    if refused is not None:
        return refused
    if not instance.is_in_forest:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=("search-io needs one gap per output: in-trees/in-forests only (use brute-force-io or io-belady)",),
        )
    params = params or SearchIoParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    require_feasible(instance, graph)
    memory = instance.memory or 0
    budget = max(1, DEFAULT_WORK // graph.n) if params.max_nodes is None else params.max_nodes
    order, chosen, rule = _best_rule(instance, graph, deadline)
    written = sum(g.size for g in chosen)
    notes = [f"{rule} evictions on Liu's optimal traversal write {written}"]
    found: IoBound | None = None
    if written > 0:
        found = io_bound(instance, graph, max_nodes=budget, deadline=deadline)
        searched = _searched(graph, memory, found)
        if searched is not None and sum(g.size for g in searched[1]) <= written:
            order, chosen = searched
            written = sum(g.size for g in chosen)
            notes.append(f"the search's eviction set writes {written}")
    bound = 0 if written == 0 else (None if found is None else found.bound)
    if found is not None:
        closed = "closed" if found.optimal else f"cut (node cap {budget} or time limit)"
        notes.append(f"eviction-set search {closed} after {found.nodes} nodes, bound {found.bound}")
    return Result(
        status=Status.OPTIMAL if bound is not None and written <= bound else Status.FEASIBLE,
        solution=solution_of(instance, order, chosen),
        bound=None if bound is None else float(bound),
        notes=tuple(notes),
    )
