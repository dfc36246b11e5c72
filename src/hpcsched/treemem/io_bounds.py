"""Proven lower bounds on the bytes written in the out-of-core question (MinIO) on in-forests.

The reduction: an eviction set is feasible iff Liu's algorithm fits it
----------------------------------------------------------------------
By the whole-gap lemma (``formulations/out_of_core.py``) some optimal
solution is an order σ plus a set E of outputs evicted for their whole gap;
on an in-forest each output has one consumer, its parent p(i), hence at most
one gap, and the cost is Σ_{i ∈ E} f_i. For a fixed E the memory of σ at the
step of node u is then

    Σ_{i done, p(i) not done, i ∉ E} f_i + n_u + f_u + Σ_{i ∈ E, p(i) = u} f_i

(an evicted output counts during its own step, through f_i, and again during
its parent's step, reloaded just before it; never in between). That is the
in-core memory of σ on the *same forest with modified sizes*: ``kept[i] = 0``
for i ∈ E (nothing left resident after i) and ``step[p] += f_i`` (the
reloaded input in its consumer's step). So with P*(E) Liu's optimal in-core
peak of the modified forest (`peak_evicting`), E is feasible for some order
iff P*(E) <= M, and

    MinIO optimum = min { Σ_{i ∈ E} f_i : P*(E) <= M }.

(Where p(i) directly follows i in σ the gap is empty and nothing needs to be
written; the memory is the same, so the formula only overestimates such an
E, never a solution's cost.)

The bound: a best-first search over eviction sets
-------------------------------------------------
A search node fixes a set E of evicted outputs and a set X of kept ones; U is
the rest of the evictable outputs (non-sink, size > 0). Every completion
E' = E ∪ S, S ⊆ U, costs at least cost(E) + r, r the least subset sum of the
sizes in U that is >= P*(E) − M: in every order σ, at the step where σ's
memory under E is at its largest (>= P*(E)), the outputs of S remove at most
the sizes of those of them waiting there, so P*(E') >= P*(E) − Σ_{i ∈ S} f_i
and P*(E') <= M forces Σ_S f >= P*(E) − M. A node is dropped when even
E ∪ U does not fit (P*(E ∪ U) > M: no completion does; with X empty, E ∪ U
evicts everything and fits whenever M >= max MemReq). It is branched on one
output of U (evicted / kept: every completion is in exactly one child),
chosen among the outputs waiting at the peak step of Liu's order for E, the
largest first. Nodes are expanded in increasing bound order: the bound of the
node popped is the least bound of the open nodes, which cover every feasible
set not yet closed, so it is a lower bound on the optimum, and the largest
such value is reported. When a popped node already fits (P*(E) <= M) its
cost is the optimum: the search has closed.

Every evaluated set that fits (P*(E) <= M, or E ∪ U when it is tested) is
an incumbent: its cost bounds the optimum from above; nodes whose bound is
not below the best incumbent's cost are dropped, and the search closes when
the least open bound reaches it (or nothing is left open). The search
carries the best incumbent, closed or not (``search-io`` reports it).

The number of nodes is capped (`DEFAULT_WORK` / n, at least 1: each node
costs one or two runs of Liu's O(n log n) algorithm), so the bound is
deterministic; past a deadline (checked at every node, inside Liu's
algorithm and in the subset-sum rounding) the search stops with the bound
reached so far. With one node the bound is P* − M rounded up to a subset sum, the
classic single-step argument (every traversal reaches P* at some step).

DAGs: an output with several consumers has several gaps, which depend on
the order, so the reduction above does not apply. What still holds on a DAG
is the single-step argument: IO >= L − M for any proven lower bound L on the
optimal in-core peak (at the step where an order reaches it, the evicted
gaps spanning that step belong to distinct outputs and are each written
once). The only cheap L, max MemReq, is at most M on every feasible instance,
so nothing better than 0 is claimed on DAGs here (the exact ``dp``'s bound
would be an L; ``brute-force-io`` is exact up to 8 nodes).

The LP relaxation of the ``milp-io`` slot model was tried as a bound and is
0 on the shipped in-tree instances (a fractional order spreads each node
over the slots, which averages every memory row below M), so it is not used.
"""

from __future__ import annotations

import dataclasses
import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.deadline import Deadline, TimeLimitReached
from .model import Instance
from .simulate import Graph, profile
from .special_cases import forest_parent, liu_optimal_order

#: Search nodes times graph size allowed to the bound (about one second of Liu runs in Python).
DEFAULT_WORK = 100_000
#: Largest sum the subset-sum rounding tracks (a bitset of this many bits); beyond it, no rounding.
ROUNDING_BITS = 1 << 20


@dataclass(frozen=True)
class IoBound:
    """A proven lower bound on the bytes written.

    Attributes
    ----------
    bound
        The bound in bytes.
    optimal
        True when the search closed: ``bound`` is the optimum itself.
    nodes
        Search nodes evaluated.
    order, evicted
        The best eviction set met (the optimum when ``optimal``): an order and the outputs evicted
        for their whole gap in it, fitting in M (a solution, for
        ``heuristics.out_of_core.solution_of``); empty when the search met no set that fits.
    written
        Σ f_i over ``evicted`` (``bound`` when ``optimal``); None when ``order`` is empty.
    """

    bound: int
    optimal: bool
    nodes: int
    order: tuple[int, ...] = ()
    evicted: frozenset[int] = frozenset()
    written: int | None = None


def peak_evicting(
    graph: Graph, parent: Sequence[int], evicted: frozenset[int], deadline: Deadline | None = None
) -> tuple[list[int], int]:
    """Liu's optimal order and peak of the forest once the outputs ``evicted`` leave memory between uses.

    The sizes are modified as in the module docstring: ``kept[i] = 0`` and
    ``step[parent[i]] += f_i`` for every i in ``evicted``.
    """
    return liu_optimal_order(_modified(graph, parent, evicted), parent, deadline)


def _modified(graph: Graph, parent: Sequence[int], evicted: frozenset[int]) -> Graph:
    """The forest with the sizes of `peak_evicting` (``output[i] = 0`` too, so that `profile` agrees)."""
    step, kept, output = list(graph.step), list(graph.kept), list(graph.output)
    for i in evicted:
        kept[i] = output[i] = 0
        step[parent[i]] += graph.output[i]
    return dataclasses.replace(graph, step=tuple(step), kept=tuple(kept), output=tuple(output))


def round_up_to_subset_sum(target: int, sizes: Sequence[int], deadline: Deadline | None = None) -> int | None:
    """The least subset sum of ``sizes`` that is >= ``target`` (None if none is; ``target`` if too large to track).

    ``deadline`` is checked every 256 sizes (`TimeLimitReached`).
    """
    if target <= 0:
        return 0
    if sum(sizes) < target:
        return None
    cap = target + max(sizes)
    if cap > ROUNDING_BITS:
        return target
    reach, mask = 1, (1 << (cap + 1)) - 1
    for k, size in enumerate(sizes):
        if deadline is not None and k % 256 == 255:
            deadline.check("rounding to a subset sum")
        reach = (reach | (reach << size)) & mask
    reach >>= target
    return target + ((reach & -reach).bit_length() - 1)  # the lowest set bit at or above target


@dataclass(frozen=True)
class _Node:
    bound: int
    evicted: frozenset[int]
    kept: frozenset[int]
    order: tuple[int, ...]
    fits: bool


class _Search:
    """The best-first search of the module docstring on one in-forest."""

    def __init__(self, graph: Graph, parent: list[int], memory: int, deadline: Deadline | None) -> None:
        self.graph, self.parent, self.memory, self.deadline = graph, parent, memory, deadline
        self.evictable = [i for i in range(graph.n) if parent[i] >= 0 and graph.output[i] > 0]
        self.nodes = 0
        self.incumbent: tuple[int, tuple[int, ...], frozenset[int]] | None = None

    def record(self, cost: int, order: Sequence[int], evicted: frozenset[int]) -> None:
        """Keep (cost, order, evicted) when it fits and is cheaper than the incumbent."""
        if self.incumbent is None or cost < self.incumbent[0]:
            self.incumbent = (cost, tuple(order), evicted)

    def evaluate(self, evicted: frozenset[int], kept: frozenset[int]) -> _Node | None:
        """The node (E, X) with its bound, or None when no completion fits."""
        self.nodes += 1
        output = self.graph.output
        cost = sum(output[i] for i in evicted)
        order, value = peak_evicting(self.graph, self.parent, evicted, self.deadline)
        if value <= self.memory:
            self.record(cost, order, evicted)
            return _Node(cost, evicted, kept, tuple(order), True)
        rest = [i for i in self.evictable if i not in evicted and i not in kept]
        if kept:
            everything = evicted | frozenset(rest)
            all_order, all_value = peak_evicting(self.graph, self.parent, everything, self.deadline)
            if all_value > self.memory:
                return None
            self.record(sum(output[i] for i in everything), all_order, everything)
        extra = round_up_to_subset_sum(value - self.memory, [output[i] for i in rest], self.deadline)
        return None if extra is None else _Node(cost + extra, evicted, kept, tuple(order), False)

    def branch_output(self, node: _Node) -> int:
        """The undecided output to branch on: the largest one waiting at the peak step, else the largest."""
        evicted = node.evicted
        memory = profile(_modified(self.graph, self.parent, evicted), node.order)
        at = max(range(len(memory)), key=memory.__getitem__)
        position = {v: k for k, v in enumerate(node.order)}
        rest = [i for i in self.evictable if i not in evicted and i not in node.kept]
        waiting = [i for i in rest if position[i] < at < position[self.parent[i]]]
        return max(waiting or rest, key=lambda i: (self.graph.output[i], -i))

    def closed(self, bound: int | None) -> bool:
        """Whether no open node can beat the incumbent (``bound``: the least open bound, None if none is open)."""
        return self.incumbent is not None and (bound is None or self.incumbent[0] <= bound)

    def result(self, bound: int, optimal: bool) -> IoBound:
        """The bound with the incumbent (the optimum when ``optimal``)."""
        if self.incumbent is None:
            return IoBound(bound, optimal, self.nodes)
        cost, order, evicted = self.incumbent
        return IoBound(cost if optimal else bound, optimal, self.nodes, order, evicted, cost)

    def run(self, max_nodes: int) -> IoBound | None:
        """Search until it closes, ``max_nodes`` nodes were evaluated or the deadline passes."""
        best = 0
        try:
            root = self.evaluate(frozenset(), frozenset())
            if root is None:
                return None
            heap = [(root.bound, 0, root)]
            count = 0
            while heap:
                bound, _, node = heapq.heappop(heap)
                best = max(best, bound)
                if self.closed(bound):
                    return self.result(best, True)
                if self.nodes >= max_nodes:
                    return self.result(best, False)
                if self.deadline is not None:
                    self.deadline.check("searching eviction sets")
                i = self.branch_output(node)
                evict_it = self.evaluate(node.evicted | {i}, node.kept)
                for child in (evict_it, self.evaluate(node.evicted, node.kept | {i})):
                    if child is not None and not self.closed(child.bound):
                        count += 1
                        heapq.heappush(heap, (child.bound, count, child))
            if self.closed(None):
                return self.result(best, True)
        except TimeLimitReached:
            if self.nodes <= 1:
                return None
        return self.result(best, False)


def io_bound(
    instance: Instance, graph: Graph | None = None, *, max_nodes: int | None = None, deadline: Deadline | None = None
) -> IoBound | None:
    """A proven lower bound on the bytes written (module docstring); None on DAGs and infeasible instances.

    Parameters
    ----------
    instance : Instance
        An out-of-core treemem instance (M = ``instance.memory``).
    graph : Graph | None
        Its graph (`Graph.of`), built when None.
    max_nodes : int | None
        Search nodes allowed; None: ``max(1, DEFAULT_WORK // n)``.
    deadline : Deadline | None
        Stops the search early (the bound reached so far is kept; None if Liu's first run is cut).

    Returns
    -------
    IoBound | None
        The bound, and whether it is the optimum; None on a graph that is not an in-forest, when
        some node alone needs more than M (no solution), or when the deadline cut the first run.
    """
    graph = graph or Graph.of(instance)
    parent = forest_parent(graph)
    memory = instance.memory or 0
    if parent is None or max(graph.memreq(i) for i in range(graph.n)) > memory:
        return None
    budget = max(1, DEFAULT_WORK // max(1, graph.n)) if max_nodes is None else max_nodes
    return _Search(graph, parent, memory, deadline).run(budget)


def io_lower_bound(instance: Instance) -> float:
    """`io_bound`'s value with the default budget, 0 where it gives none (``bounds.best``)."""
    found = io_bound(instance)
    return 0.0 if found is None else float(found.bound)
