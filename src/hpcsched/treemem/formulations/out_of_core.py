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

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers import milp as milp_adapter
from ..heuristics.out_of_core import POLICIES, evict, require_feasible, solution_of, traversal_order
from ..model import Instance, other_question
from ..simulate import Gap, Graph, excess, gaps

BRUTE_FORCE_IO_MAX_N = 8


def cheapest_gaps(
    graph: Graph, order: Sequence[int], memory: int, *, cutoff: float = math.inf, deadline: Deadline | None = None
) -> list[Gap] | None:
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
        spanning = [k for k, g in enumerate(candidates) if k not in excluded and g.spans(t) and g not in chosen]
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
    """Every topological order (n <= 8) and, on each, the cheapest set of evicted gaps: the reference.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the out-of-core question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Unused: the method is deterministic.
    params : None
        No options (pass None).

    Returns
    -------
    Result
        The traversal order with its I/O events and the volume written;
        the status, set in this method or its helpers, is one of
        NOT_APPLICABLE, OPTIMAL.
    """
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
    return Result(
        status=Status.OPTIMAL,
        solution=solution_of(instance, best_order, best_gaps),
        bound=float(best_cost),
        notes=("all topological orders, exact eviction search on each",),
    )


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


class _MinIoModel:
    """The slot MILP of `milp_io`, one method per row family.

    Parameters
    ----------
    instance
        An out-of-core in-forest instance.
    graph
        Its graph.
    upper
        I/O volume of a known valid schedule (the objective's upper bound row).
    deadline
        Checked inside the long build loops.
    """

    def __init__(self, instance: Instance, graph: Graph, upper: int, deadline: Deadline) -> None:
        import pulp

        self.pulp, self.instance, self.graph, self.deadline = pulp, instance, graph, deadline
        self.n = graph.n
        self.memory = instance.memory or 0
        self.parent = [s[0] if s else -1 for s in graph.successors]
        self.model = pulp.LpProblem("treemem_minio", pulp.LpMinimize)
        self.x: list[list] = []
        self.done: list[list] = []
        self.evicted: dict[int, Any] = {}  # PuLP variables (pulp has no type stubs)
        self.waiting: dict[tuple[int, int], Any] = {}
        self.upper = upper

    def build(self) -> _MinIoModel:
        """Every row family and the objective, in the model's fixed order (deadline checked per row)."""
        for v in range(self.n):
            self.deadline.check("building the MILP")
            self.x.append([self.pulp.LpVariable(f"x_{v}_{t}", cat="Binary") for t in range(self.n)])
        self._add_assignment()
        self._add_precedence()
        self._add_waiting()
        self._add_memory()
        self._add_objective()
        return self

    def _add_assignment(self) -> None:
        """One slot per node and one node per slot."""
        lp_sum, n, x = self.pulp.lpSum, self.n, self.x
        for v in range(n):
            self.model += lp_sum(x[v]) == 1
        for t in range(n):
            self.deadline.check("building the MILP")
            self.model += lp_sum(x[v][t] for v in range(n)) == 1

    def _add_precedence(self) -> None:
        """Precedence on the prefixes D_v(t) = Σ_{s<=t} x[v,s]."""
        n, x, check = self.n, self.x, self.deadline.check
        for v in range(n):
            prefix = [x[v][0] + 0]
            for t in range(1, n):
                check("building the MILP")
                prefix.append(prefix[-1] + x[v][t])
            self.done.append(prefix)
        for u, v in self.instance.edges:
            self.model += x[v][0] == 0
            for t in range(1, n):
                check("building the MILP")
                self.model += self.done[v][t] <= self.done[u][t - 1]

    def _add_waiting(self) -> None:
        """z[i,t] >= D_i(t−1) − D_parent(i)(t) − y_i: output i waits in memory at t unless evicted."""
        pulp, graph, parent, done = self.pulp, self.graph, self.parent, self.done
        self.evicted = {
            i: pulp.LpVariable(f"y_{i}", cat="Binary") for i in range(self.n) if parent[i] >= 0 and graph.output[i]
        }
        for i, y in self.evicted.items():
            self.deadline.check("building the MILP")
            for t in range(1, self.n):
                self.deadline.check("building the MILP")
                self.waiting[i, t] = z = pulp.LpVariable(f"z_{i}_{t}", lowBound=0, upBound=1)
                self.model += z >= done[i][t - 1] - done[parent[i]][t] - y

    def _add_memory(self) -> None:
        """At every slot Σ_v MemReq_v x[v,t] + Σ_i f_i z[i,t] <= M."""
        lp_sum, graph, n, x = self.pulp.lpSum, self.graph, self.n, self.x
        for t in range(n):
            self.deadline.check("building the MILP")
            running = lp_sum(graph.memreq(v) * x[v][t] for v in range(n))
            waiting = lp_sum(graph.output[i] * self.waiting[i, t] for i in self.evicted if (i, t) in self.waiting)
            self.model += running + waiting <= self.memory

    def _add_objective(self) -> None:
        """Minimize Σ f_i y_i, at most the known schedule's I/O."""
        lp_sum, output = self.pulp.lpSum, self.graph.output
        self.model += lp_sum(output[i] * y for i, y in self.evicted.items())
        self.model += lp_sum(output[i] * y for i, y in self.evicted.items()) <= self.upper

    def order(self, outcome) -> list[int]:
        """The traversal of a solved model: nodes by their slot."""
        n = self.n
        return sorted(range(n), key=lambda v: max(range(n), key=lambda t: outcome.value(self.x[v][t])))

    def chosen_gaps(self, outcome, order: list[int]) -> list[Gap]:
        """The gaps of ``order`` whose output the solved model evicts."""
        return [g for g in gaps(self.graph, order) if outcome.value(self.evicted[g.node]) > 0.5]


def _integer_bound(outcome) -> float | None:
    """The dual bound minus HiGHS' tolerance, rounded up (integer objective); None if unknown."""
    if outcome.bound is not None and math.isfinite(outcome.bound):
        return float(max(0, math.ceil(outcome.bound - 1e-6 * max(1.0, abs(outcome.bound)))))
    return None


def milp_io(instance: Instance, /, *, time_limit: float, seed: int, params: MilpIoParams | None) -> Result:
    """Exact slot MILP (PuLP/HiGHS) on in-forests: order x[v,t] and one eviction bit per output.

    Rows: one node per slot and one slot per node; precedence on prefixes
    D_v(t) = Σ_{s<=t} x[v,s]; z[i,t] >= D_i(t−1) − D_parent(i)(t) − y_i
    (output i waits in memory at step t unless evicted); at every slot
    Σ_v MemReq_v x[v,t] + Σ_i f_i z[i,t] <= M; minimize Σ f_i y_i.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the out-of-core question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Used: it seeds the solver's or the search's randomness.
    params : MilpIoParams | None
        Options; None takes the defaults of ``MilpIoParams``.

    Returns
    -------
    Result
        The traversal order with its I/O events and the volume written;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE, OPTIMAL
        (and the statuses the HiGHS adapter maps a solver outcome to).
    """
    refused = other_question(instance, "out-of-core")
    if refused is not None:
        return refused
    if not instance.is_in_forest:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(
                "milp-io models one gap per output: in-trees/in-forests only (use brute-force-io "
                "or the eviction heuristics on DAGs)",
            ),
        )
    params = params or MilpIoParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    require_feasible(instance, graph)
    incumbent_order, incumbent_gaps = _incumbent(instance, graph, deadline)
    upper = sum(g.size for g in incumbent_gaps)
    if upper == 0:
        return Result(
            status=Status.OPTIMAL,
            solution=solution_of(instance, incumbent_order, []),
            bound=0.0,
            notes=("an in-core traversal fits in M: no I/O",),
        )
    try:
        built = _MinIoModel(instance, graph, upper, deadline).build()
    except TimeLimitReached as stopped:
        return Result(
            status=Status.FEASIBLE,
            solution=solution_of(instance, incumbent_order, incumbent_gaps),
            notes=(f"{stopped}; incumbent from the eviction heuristics",),
        )
    outcome = milp_adapter.solve_pulp(built.model, time_limit=deadline.remaining(), threads=params.workers, seed=seed)
    bound = _integer_bound(outcome)
    fallback = Result(
        status=Status.FEASIBLE,
        solution=solution_of(instance, incumbent_order, incumbent_gaps),
        bound=bound,
        solver=outcome.backend,
        notes=(f"HiGHS: {outcome.message}; incumbent from the eviction heuristics",),
    )
    if not outcome.has_solution:
        return fallback
    order = built.order(outcome)
    chosen = built.chosen_gaps(outcome, order)
    if any(value > 0 for value in excess(graph, order, built.memory, chosen)):
        return fallback  # defensive: a rounding artefact of the backend; the incumbent is valid
    return Result(
        status=outcome.status,
        solution=solution_of(instance, order, chosen),
        bound=bound,
        solver=outcome.backend,
        notes=(f"HiGHS: {outcome.message}",),
    )
