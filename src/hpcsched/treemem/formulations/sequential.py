"""Exact methods for the sequential question on any DAG: brute force, DP, MILP, CP-SAT.

Why the DP over done sets is exact
----------------------------------
The memory at the step of node i with done set S is ``R(S) + n_i + f_i``,
with ``R(S) = Σ_{j ∈ S, succ(j) ⊄ S} f_j``: it depends on S and i only, not
on the order in which S was done (an output is held exactly while its
producer is done and some consumer is not). The peak of an order is the
largest step cost along its chain of done sets ∅ ⊂ S_1 ⊂ ... ⊂ V, so the best
peak to reach S, ``g(S) = min over ready i ∈ S of max(g(S − i), R(S − i) +
n_i + f_i)``, is a bottleneck shortest path over the lattice of done sets,
and the optimum is g(V). The search pops states by ``max(g(S), h(S))`` with
``h(S) = max_{i ∉ S} MemReq(i)`` (every remaining step costs at least its
MemReq), which never overestimates and satisfies h(S) ≤ max(step, h(S + i)):
the first time V is popped its g is optimal, and the popped key is at any
moment a lower bound on the optimum (returned when the search stops early).

Dominance (free moves): if a ready node i costs no more than the peak so far
(``R(S) + n_i + f_i <= g``) and does not raise the resident memory
(``R(S + i) <= R(S)``), some optimal completion runs i first, so the search
runs it at once and does not branch. Proof: move i to the front of any
completion. Its own step costs at most g. Every step run before i's old
position now sees ``R(T + i)`` instead of ``R(T)`` for a done set T ⊇ S not
holding i, and ``R(T + i) − R(T) = f_i − Σ_{p ∈ pred(i), succ(p) ⊆ T + i} f_p``
(i's successors are not in T) only decreases as T grows, so it is ≤ its
value at S, which is ≤ 0. Steps after i's old position see the same sets.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_adapter
from ...solvers import milp as milp_adapter
from ..bounds import memreq
from ..heuristics import forest_order, greedy_order
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak

BRUTE_FORCE_MAX_N = 8


def _incumbent(graph: Graph, deadline: Deadline) -> list[int]:
    """The better of the greedy and spanning-forest orders (upper bound and hint)."""
    return min((greedy_order(graph, deadline), forest_order(graph)), key=lambda order: peak(graph, order))


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Every topological order, n <= 8: the reference the other exact methods are checked against."""
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    if instance.n > BRUTE_FORCE_MAX_N:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"brute force is limited to n <= {BRUTE_FORCE_MAX_N}",))
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    best_order: list[int] | None = None
    best_peak = math.inf
    for permutation in itertools.permutations(range(graph.n)):
        deadline.check("enumerating orders")
        position = {node: k for k, node in enumerate(permutation)}
        if any(position[u] > position[v] for u, v in instance.edges):
            continue
        value = peak(graph, permutation)
        if value < best_peak:
            best_peak, best_order = value, list(permutation)
    assert best_order is not None  # an acyclic graph has a topological order
    return Result(status=Status.OPTIMAL, solution=Solution.from_indices(instance, best_order), bound=float(best_peak))


@dataclass(frozen=True)
class DpParams:
    """Options of ``dp``.

    Attributes
    ----------
    max_states
        Done sets stored at most (memory guard); when reached, the best
        heuristic order is returned FEASIBLE with the search's lower bound.
    """

    max_states: int = 500_000

    def __post_init__(self) -> None:
        at_least("max_states", self.max_states, 1)


class _DoneSetSearch:
    """The best-first search of `dp` over sets of done nodes (bit masks), with free-move closure.

    Parameters
    ----------
    graph
        The instance's graph.
    upper
        Peak of the heuristic incumbent (states that cannot beat it are pruned).
    """

    def __init__(self, graph: Graph, upper: int) -> None:
        n = graph.n
        self.graph, self.n, self.upper = graph, n, upper
        self.pred_mask = [sum(1 << p for p in graph.predecessors[i]) for i in range(n)]
        self.succ_mask = [sum(1 << s for s in graph.successors[i]) for i in range(n)]
        self.need = [graph.memreq(i) for i in range(n)]
        self.by_need = sorted(range(n), key=lambda i: -self.need[i])
        self.best: dict[int, int] = {}
        self.resident_of: dict[int, int] = {}
        self.came_from: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.heap: list[tuple[int, int, int]] = []
        self.lower = 0
        self.pops = 0
        self.stop_reason: str | None = None

    def rest_bound(self, done: int) -> int:
        """The largest memory requirement of a node not yet done."""
        for i in self.by_need:
            if not done >> i & 1:
                return self.need[i]
        return 0

    def ready(self, done: int, i: int) -> bool:
        """Whether node i is not done and all its predecessors are."""
        return not done >> i & 1 and self.pred_mask[i] & done == self.pred_mask[i]

    def run(self, done: int, resident: int, i: int) -> tuple[int, int]:
        """Done set and resident memory after running ready node i."""
        graph = self.graph
        done |= 1 << i
        resident += graph.kept[i]
        for p in graph.predecessors[i]:
            if self.succ_mask[p] & done == self.succ_mask[p]:
                resident -= graph.output[p]
        return done, resident

    def close(self, done: int, resident: int, worst: int, path: list[int]) -> tuple[int, int]:
        """Apply free moves (see the module docstring) until none is left."""
        moved = True
        while moved:
            moved = False
            for i in range(self.n):
                if not self.ready(done, i) or resident + self.graph.step[i] > worst:
                    continue
                after_done, after_resident = self.run(done, resident, i)
                if after_resident <= resident:
                    done, resident = after_done, after_resident
                    path.append(i)
                    moved = True
        return done, resident

    def search(self, deadline: Deadline, max_states: int) -> int | None:
        """The full done set when reached below ``upper`` (None: pruned out, or stopped: see ``stop_reason``)."""
        full = (1 << self.n) - 1
        start_path: list[int] = []
        start, start_resident = self.close(0, 0, 0, start_path)
        self.best = {start: 0}
        self.resident_of = {start: start_resident}
        self.came_from = {start: (-1, tuple(start_path))}
        self.heap = [(self.rest_bound(start), 0, start)]
        while self.heap:
            key, worst, done = heapq.heappop(self.heap)
            if worst > self.best.get(done, math.inf):
                continue  # stale entry
            self.lower = max(self.lower, key)
            if self.lower >= self.upper:
                return None  # nothing better than the incumbent exists
            if done == full:
                return done
            self.pops += 1
            if self.pops % 512 == 0 and deadline.expired():
                self.stop_reason = "time limit"
                return None
            if len(self.best) > max_states:
                self.stop_reason = f"{max_states} states"
                return None
            self._expand(done, worst)
        return None

    def _expand(self, done: int, worst: int) -> None:
        """Push every successor state: run a ready node, then close under free moves."""
        resident = self.resident_of[done]
        for i in range(self.n):
            if not self.ready(done, i):
                continue
            step_worst = max(worst, resident + self.graph.step[i])
            path = [i]
            after, after_resident = self.run(done, resident, i)
            after, after_resident = self.close(after, after_resident, step_worst, path)
            after_key = max(step_worst, self.rest_bound(after))
            if step_worst < self.best.get(after, math.inf) and after_key < self.upper:
                self.best[after] = step_worst
                self.resident_of[after] = after_resident
                self.came_from[after] = (done, tuple(path))
                heapq.heappush(self.heap, (after_key, step_worst, after))

    def order(self, final: int) -> list[int]:
        """The node order that reaches ``final``."""
        order: list[int] = []
        state = final
        while state != -1:
            previous, path = self.came_from[state]
            order[:0] = path
            state = previous
        return order


def dp(instance: Instance, /, *, time_limit: float, seed: int, params: DpParams | None) -> Result:
    """Exact best-first DP over the sets of done nodes with free-move dominance (n up to ~25)."""
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or DpParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    incumbent = _incumbent(graph, deadline)
    upper = peak(graph, incumbent)
    search = _DoneSetSearch(graph, upper)
    final = search.search(deadline, params.max_states)
    notes = [f"{len(search.best)} done sets stored, {search.pops} expanded"]
    if final is None:
        if search.stop_reason is None:  # the incumbent met the search's lower bound: it is optimal
            return Result(
                status=Status.OPTIMAL,
                solution=Solution.from_indices(instance, incumbent),
                bound=float(upper),
                notes=(*notes, "the heuristic incumbent is optimal"),
            )
        bound = min(search.lower, upper)
        return Result(
            status=Status.FEASIBLE,
            solution=Solution.from_indices(instance, incumbent),
            bound=float(bound),
            notes=(*notes, f"stopped at {search.stop_reason}; incumbent from heuristics"),
        )
    return Result(
        status=Status.OPTIMAL,
        solution=Solution.from_indices(instance, search.order(final)),
        bound=float(search.best[final]),
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class MilpParams:
    """Options of ``milp``.

    Attributes
    ----------
    workers
        HiGHS threads.
    """

    workers: int = 1

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)


def _integer_bound(bound: float | None) -> float | None:
    """A backend's dual bound, made safe: minus its tolerance, then rounded up (peaks are integers)."""
    if bound is None or not math.isfinite(bound):
        return None
    return float(math.ceil(bound - 1e-6 * max(1.0, abs(bound))))


class _SlotPeakMilp:
    """The slot MILP of `milp`, one method per row family.

    Parameters
    ----------
    instance
        A sequential-question instance.
    graph
        Its graph.
    deadline
        Checked inside the slot and edge loops.
    """

    def __init__(self, instance: Instance, graph: Graph, deadline: Deadline) -> None:
        import pulp

        self.pulp, self.instance, self.graph, self.deadline, self.n = pulp, instance, graph, deadline, graph.n
        self.model = pulp.LpProblem("treemem", pulp.LpMinimize)
        self.x: list[list] = []
        self.done: list[list] = []
        self.live: dict[tuple[int, int], Any] = {}  # PuLP variables (pulp has no type stubs)

    def build(self, lower: int, upper: int) -> _SlotPeakMilp:
        """Every row family and the peak objective, in the model's fixed order."""
        pulp, n = self.pulp, self.n
        peak_var = pulp.LpVariable("peak", lowBound=lower, upBound=upper)
        self.x = [[pulp.LpVariable(f"x_{v}_{t}", cat="Binary") for t in range(n)] for v in range(n)]
        self.model += peak_var
        self._add_assignment()
        self._add_precedence()
        self._add_liveness()
        self._add_memory(peak_var)
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
        """done[v][t] (v ran in a slot <= t) of a consumer at most its producer's at t − 1."""
        n, x = self.n, self.x
        self.done = done = [[self.pulp.lpSum(x[v][: t + 1]) for t in range(n)] for v in range(n)]
        for u, v in self.instance.edges:
            self.deadline.check("building the MILP")
            self.model += x[v][0] == 0
            for t in range(1, n):
                self.model += done[v][t] <= done[u][t - 1]

    def _add_liveness(self) -> None:
        """live[u,t] >= 1 while u is done and one of its consumers is not."""
        graph, done = self.graph, self.done
        for u in range(self.n):
            if not graph.successors[u] or graph.output[u] == 0:
                continue
            for t in range(1, self.n):
                self.live[u, t] = var = self.pulp.LpVariable(f"live_{u}_{t}", lowBound=0, upBound=1)
                for s in graph.successors[u]:
                    self.model += var >= done[u][t - 1] - done[s][t - 1]

    def _add_memory(self, peak_var) -> None:
        """Per slot: live outputs plus the running node's step memory <= peak."""
        lp_sum, graph, n, live = self.pulp.lpSum, self.graph, self.n, self.live
        for t in range(n):
            self.deadline.check("building the MILP")
            self.model += (
                lp_sum(graph.output[u] * live[u, t] for u in range(n) if (u, t) in live)
                + lp_sum(graph.step[v] * self.x[v][t] for v in range(n))
                <= peak_var
            )

    def order(self, outcome) -> list[int]:
        """Nodes by their slot in a solved model."""
        n = self.n
        return sorted(range(n), key=lambda v: max(range(n), key=lambda t: outcome.value(self.x[v][t])))


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: MilpParams | None) -> Result:
    """Slot MILP (PuLP/HiGHS): x[v,t] assigns node v to slot t, prefixes S_v(t), liveness rows."""
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or MilpParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    incumbent = _incumbent(graph, deadline)
    upper, lower = peak(graph, incumbent), memreq(instance)
    built = _SlotPeakMilp(instance, graph, deadline).build(lower, upper)
    outcome = milp_adapter.solve_pulp(built.model, time_limit=deadline.remaining(), threads=params.workers, seed=seed)
    bound = _integer_bound(outcome.bound)
    if bound is not None:
        bound = max(bound, float(lower))
    if not outcome.has_solution:
        # the incumbent is a valid order: return it with the proven bound
        return Result(
            status=Status.FEASIBLE,
            solution=Solution.from_indices(instance, incumbent),
            bound=bound,
            solver=outcome.backend,
            notes=(f"HiGHS: {outcome.message}; incumbent from heuristics",),
        )
    return Result(
        status=outcome.status,
        solution=Solution.from_indices(instance, built.order(outcome)),
        bound=bound,
        solver=outcome.backend,
        notes=(f"HiGHS: {outcome.message}",),
    )


@dataclass(frozen=True)
class CpSatParams:
    """Options of ``cpsat``.

    Attributes
    ----------
    workers
        CP-SAT search workers (1 makes a deterministic limit reproducible).
    deterministic_time
        CP-SAT ``max_deterministic_time`` (None: only the time limit).
    """

    workers: int = 1
    deterministic_time: float | None = None

    def __post_init__(self) -> None:
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


class _SlotPeakModel:
    """The CP-SAT slot model of `cpsat`, one method per constraint family.

    Parameters
    ----------
    instance
        A sequential-question instance.
    graph
        Its graph.
    deadline
        Checked inside the slot loops.
    """

    def __init__(self, instance: Instance, graph: Graph, deadline: Deadline) -> None:
        self.instance, self.graph, self.deadline, self.n = instance, graph, deadline, graph.n
        self.model = cpsat_adapter.new_model()
        self.x: list[list] = []
        self.done: list[list] = []

    def build(self, lower: int, upper: int, incumbent: list[int]) -> _SlotPeakModel:
        """Every constraint family, the peak objective and the incumbent's hint, in the model's fixed order."""
        peak_var = self.model.new_int_var(lower, upper, "peak")
        self._add_assignment()
        self._add_precedence()
        self._add_memory(peak_var)
        self.model.minimize(peak_var)
        slot = {node: k for k, node in enumerate(incumbent)}
        for v in range(self.n):
            for t in range(self.n):
                self.model.add_hint(self.x[v][t], slot[v] == t)
        return self

    def _add_assignment(self) -> None:
        """x[v,t]: one slot per node and one node per slot."""
        model, n = self.model, self.n
        self.x = x = [[model.new_bool_var(f"x_{v}_{t}") for t in range(n)] for v in range(n)]
        for v in range(n):
            model.add_exactly_one(x[v])
        for t in range(n):
            self.deadline.check("building the CP-SAT model")
            model.add_exactly_one(x[v][t] for v in range(n))

    def _add_precedence(self) -> None:
        """done[v,t] = Σ_{s<=t} x[v,s]; a consumer is done at t only if its producer was at t − 1."""
        model, n, x = self.model, self.n, self.x
        self.done = done = [[model.new_bool_var(f"done_{v}_{t}") for t in range(n)] for v in range(n)]
        for v in range(n):
            for t in range(n):
                model.add(done[v][t] == sum(x[v][: t + 1]))
        for u, v in self.instance.edges:
            model.add(x[v][0] == 0)
            for t in range(1, n):
                model.add_implication(done[v][t], done[u][t - 1])

    def _add_memory(self, peak_var) -> None:
        """Per slot: live outputs plus the running node's step memory <= peak."""
        model, n, graph, done = self.model, self.n, self.graph, self.done
        memory_rows: list[list] = [[] for _ in range(n)]
        for u in range(n):
            if not graph.successors[u] or graph.output[u] == 0:
                continue
            for t in range(1, n):
                live = model.new_bool_var(f"live_{u}_{t}")
                for s in graph.successors[u]:
                    model.add(live >= done[u][t - 1] - done[s][t - 1])
                memory_rows[t].append(graph.output[u] * live)
        for t in range(n):
            self.deadline.check("building the CP-SAT model")
            model.add(sum(memory_rows[t]) + sum(graph.step[v] * self.x[v][t] for v in range(n)) <= peak_var)

    def order(self, outcome) -> list[int]:
        """Nodes by their slot in a solved model."""
        n = self.n
        return sorted(range(n), key=lambda v: next(t for t in range(n) if outcome.value(self.x[v][t]) > 0.5))


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT slot model: Boolean x[v,t], done prefixes, liveness Booleans, one memory row per slot."""
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    incumbent = _incumbent(graph, deadline)
    upper, lower = peak(graph, incumbent), memreq(instance)
    built = _SlotPeakModel(instance, graph, deadline).build(lower, upper, incumbent)
    outcome = cpsat_adapter.solve_cpsat(
        built.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    bound = None if outcome.bound is None else float(math.ceil(outcome.bound - 1e-9))
    if not outcome.has_solution:
        return Result(
            status=Status.FEASIBLE,
            solution=Solution.from_indices(instance, incumbent),
            bound=bound,
            solver=outcome.backend,
            notes=(f"CP-SAT: {outcome.message}; incumbent from heuristics",),
        )
    return Result(
        status=outcome.status,
        solution=Solution.from_indices(instance, built.order(outcome)),
        bound=bound,
        solver=outcome.backend,
        notes=(f"CP-SAT: {outcome.message}",),
    )
