"""Exact methods for the out-of-core question (MinIO): brute force and a MILP on in-forests.

Why whole gaps suffice (the reduction both methods rest on)
-----------------------------------------------------------
Take any valid solution and one output x. Between two consecutive uses of
x (its production, its consumers) x is either never evicted, or evicted at
least once, and then reloaded before the next use. Replace the events of x
in that interval by one eviction right after the first use and one reload
right before the next (`simulate.Gap`): the bytes written do not grow (at
least f_x were written there) and x is resident on a subset of the steps and
events it was resident on before, so every memory check still holds (at a
position, evictions come first; the reloads then bring the memory to the
resident set of the next step, which fits since that step fits). So an
optimal solution is an order plus a set of gaps, cost Σ sizes, feasible
when every step's in-core memory minus the sizes of the evicted gaps
spanning it is at most M.

On an in-forest each output has one consumer, hence at most one gap: the
MILP below chooses the order and, per output, whether its gap is evicted.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterator, Sequence

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers import milp as milp_adapter
from ..heuristics.out_of_core import POLICIES, evict, require_feasible, solution_of, traversal_order
from ..model import Instance, other_question
from ..simulate import Gap, Graph, excess, gaps

BRUTE_FORCE_IO_MAX_N = 8


def cheapest_gaps(graph: Graph, order: Sequence[int], memory: int, *, cutoff: float = math.inf,
                  deadline: Deadline | None = None) -> list[Gap] | None:
    """The cheapest set of gaps making every step of ``order`` fit in ``memory`` (exact, exponential).

    Branching on the first step still over M: some gap spanning it must be
    evicted; the j-th candidate is tried with the earlier ones excluded, so
    every set is met once. Returns None when no set costs less than
    ``cutoff`` (or none is feasible).
    """
    base = excess(graph, order, memory, [])
    candidates = [g for g in gaps(graph, order) if any(base[t] > 0 for t in range(g.after + 1, g.before))]
    candidates.sort(key=lambda g: -g.size)
    best: list[list[Gap] | None] = [None]
    best_cost = [cutoff]

    def search(over: list[int], chosen: list[Gap], excluded: frozenset[int], cost: int) -> None:
        if deadline is not None:
            deadline.check("searching evictions")
        t = next((s for s, value in enumerate(over) if value > 0), None)
        if t is None:
            if cost < best_cost[0]:
                best_cost[0], best[0] = cost, list(chosen)
            return
        spanning = [k for k, g in enumerate(candidates) if k not in excluded and g.spans(t)
                    and g not in chosen]
        if sum(candidates[k].size for k in spanning) < over[t]:
            return  # this step cannot be brought under M any more
        skipped: set[int] = set()
        for k in spanning:
            gap = candidates[k]
            if cost + gap.size < best_cost[0]:
                for s in range(gap.after + 1, gap.before):
                    over[s] -= gap.size
                chosen.append(gap)
                search(over, chosen, excluded | skipped, cost + gap.size)
                chosen.pop()
                for s in range(gap.after + 1, gap.before):
                    over[s] += gap.size
            skipped.add(k)

    search(list(base), [], frozenset(), 0)
    return best[0]


def topological_orders(graph: Graph) -> Iterator[list[int]]:
    """Every topological order of the graph (recursive enumeration of linear extensions)."""
    missing = [len(p) for p in graph.predecessors]
    order: list[int] = []

    def extend() -> Iterator[list[int]]:
        if len(order) == graph.n:
            yield list(order)
            return
        for i in range(graph.n):
            if missing[i] == 0:
                missing[i] = -1
                order.append(i)
                for s in graph.successors[i]:
                    missing[s] -= 1
                yield from extend()
                for s in graph.successors[i]:
                    missing[s] += 1
                order.pop()
                missing[i] = 0

    yield from extend()


def brute_force_io(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Every topological order (n <= 8) and, on each, the cheapest set of evicted gaps: the reference."""
    refused = other_question(instance, "out-of-core")
    if refused is not None:
        return refused
    if instance.n > BRUTE_FORCE_IO_MAX_N:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"brute force is limited to n <= {BRUTE_FORCE_IO_MAX_N}",))
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    require_feasible(instance, graph)
    memory = instance.memory or 0
    best_order, best_gaps, best_cost = None, None, math.inf
    for order in topological_orders(graph):
        deadline.check("enumerating orders")
        found = cheapest_gaps(graph, order, memory, cutoff=best_cost, deadline=deadline)
        if found is not None:
            best_order, best_gaps, best_cost = order, found, sum(g.size for g in found)
            if best_cost == 0:
                break
    assert best_order is not None and best_gaps is not None  # M >= max MemReq: evicting everything fits
    return Result(status=Status.OPTIMAL, solution=solution_of(instance, best_order, best_gaps),
                  bound=float(best_cost), notes=("all topological orders, exact eviction search on each",))


@dataclass(frozen=True)
class MilpIoParams:
    """Options of ``milp-io``.

    Attributes
    ----------
    workers
        HiGHS threads.
    """

    workers: int = 1

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)


def _incumbent(instance: Instance, graph: Graph, deadline: Deadline) -> tuple[list[int], list[Gap]]:
    """The best eviction heuristic on Liu's optimal and the best post-order traversals."""
    memory = instance.memory or 0
    tried = []
    for traversal in ("liu-optimal", "best-postorder"):
        order = traversal_order(instance, graph, traversal, deadline)
        tried += [(order, evict(graph, order, memory, policy, deadline)) for policy in POLICIES]
    return min(tried, key=lambda pair: sum(g.size for g in pair[1]))


def milp_io(instance: Instance, /, *, time_limit: float, seed: int, params: MilpIoParams | None) -> Result:
    """Exact slot MILP (PuLP/HiGHS) on in-forests: order x[v,t] and one eviction bit per output.

    Rows: one node per slot and one slot per node; precedence on prefixes
    D_v(t) = Σ_{s<=t} x[v,s]; z[i,t] >= D_i(t−1) − D_parent(i)(t) − y_i
    (output i waits in memory at step t unless evicted); at every slot
    Σ_v MemReq_v x[v,t] + Σ_i f_i z[i,t] <= M; minimize Σ f_i y_i.
    """
    refused = other_question(instance, "out-of-core")
    if refused is not None:
        return refused
    if not instance.is_in_forest:
        return Result(status=Status.NOT_APPLICABLE,
                      notes=("milp-io models one gap per output: in-trees/in-forests only (use brute-force-io "
                             "or the eviction heuristics on DAGs)",))
    import pulp

    params = params or MilpIoParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    require_feasible(instance, graph)
    memory = instance.memory or 0
    n = graph.n
    incumbent_order, incumbent_gaps = _incumbent(instance, graph, deadline)
    upper = sum(g.size for g in incumbent_gaps)
    if upper == 0:
        return Result(status=Status.OPTIMAL, solution=solution_of(instance, incumbent_order, []), bound=0.0,
                      notes=("an in-core traversal fits in M: no I/O",))
    parent = [s[0] if s else -1 for s in graph.successors]
    model = pulp.LpProblem("treemem_minio", pulp.LpMinimize)
    x = [[pulp.LpVariable(f"x_{v}_{t}", cat="Binary") for t in range(n)] for v in range(n)]
    for v in range(n):
        model += pulp.lpSum(x[v]) == 1
    for t in range(n):
        deadline.check("building the MILP")
        model += pulp.lpSum(x[v][t] for v in range(n)) == 1
    done = [list(itertools.accumulate(x[v], lambda a, b: a + b)) for v in range(n)]
    for u, v in instance.edges:
        deadline.check("building the MILP")
        model += x[v][0] == 0
        for t in range(1, n):
            model += done[v][t] <= done[u][t - 1]
    evicted = {i: pulp.LpVariable(f"y_{i}", cat="Binary") for i in range(n) if parent[i] >= 0 and graph.output[i]}
    waiting: dict[tuple[int, int], pulp.LpVariable] = {}
    for i, y in evicted.items():
        deadline.check("building the MILP")
        for t in range(1, n):
            waiting[i, t] = z = pulp.LpVariable(f"z_{i}_{t}", lowBound=0, upBound=1)
            model += z >= done[i][t - 1] - done[parent[i]][t] - y
    for t in range(n):
        model += (pulp.lpSum(graph.memreq(v) * x[v][t] for v in range(n))
                  + pulp.lpSum(graph.output[i] * waiting[i, t] for i in evicted if (i, t) in waiting) <= memory)
    model += pulp.lpSum(graph.output[i] * y for i, y in evicted.items())
    model += pulp.lpSum(graph.output[i] * y for i, y in evicted.items()) <= upper
    outcome = milp_adapter.solve_pulp(model, time_limit=deadline.remaining(), threads=params.workers, seed=seed)
    bound = None
    if outcome.bound is not None and math.isfinite(outcome.bound):
        # integer objective: the dual bound minus HiGHS' tolerance, rounded up
        bound = float(max(0, math.ceil(outcome.bound - 1e-6 * max(1.0, abs(outcome.bound)))))
    fallback = Result(status=Status.FEASIBLE, solution=solution_of(instance, incumbent_order, incumbent_gaps),
                      bound=bound, solver=outcome.backend,
                      notes=(f"HiGHS: {outcome.message}; incumbent from the eviction heuristics",))
    if not outcome.has_solution:
        return fallback
    order = sorted(range(n), key=lambda v: max(range(n), key=lambda t: outcome.value(x[v][t])))
    chosen = [g for g in gaps(graph, order) if outcome.value(evicted[g.node]) > 0.5]
    if any(value > 0 for value in excess(graph, order, memory, chosen)):
        return fallback  # defensive: a rounding artefact of the backend; the incumbent is valid
    return Result(status=outcome.status, solution=solution_of(instance, order, chosen), bound=bound,
                  solver=outcome.backend, notes=(f"HiGHS: {outcome.message}",))
