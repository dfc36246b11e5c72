"""Exact methods for the sequential question that place each node in a time slot: MILP and CP-SAT.

Both start from ``sequential.heuristic_incumbent`` (the better of the greedy and spanning-forest orders),
which bounds the peak from above and hints the solver. Above `SLOT_MODEL_MAX_N` nodes the model (n²
slot Booleans, hundreds of bytes each in PuLP or the CP-SAT builder) is not built: the incumbent is
returned with the MemReq bound at once, rather than after filling the memory until the time limit."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_adapter
from ...solvers import milp as milp_adapter
from ..bounds import memreq
from ..model import Instance, Solution, other_question
from ..simulate import Graph, peak
from .sequential import heuristic_incumbent


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


#: Nodes above which the slot models are not built (4 x 10^6 slot Booleans and as many prefix and liveness ones).
SLOT_MODEL_MAX_N = 2_000


def _unbuilt(instance: Instance, incumbent: list[int], lower: int, why: str) -> Result:
    """The heuristic incumbent with the MemReq bound (OPTIMAL if it meets it) when the model is not built."""
    meets = peak(Graph.of(instance), incumbent) <= lower
    return Result(
        status=Status.OPTIMAL if meets else Status.FEASIBLE,
        solution=Solution.from_indices(instance, incumbent),
        bound=float(lower),
        notes=(f"{why}; incumbent from heuristics, bound: the largest MemReq",),
    )


def _too_large(graph: Graph) -> str | None:
    """Why the slot model is not built for ``graph`` (None: it is)."""
    if graph.n <= SLOT_MODEL_MAX_N:
        return None
    return f"the slot model is not built above {SLOT_MODEL_MAX_N:,} nodes (n² = {graph.n**2:,} slot Booleans)"


def _rows(deadline: Deadline, phase: str, count: int, make) -> list:
    """``[make(k) for k in range(count)]`` with the deadline checked before every item."""
    items = []
    for k in range(count):
        deadline.check(phase)
        items.append(make(k))
    return items


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
        self.x = _rows(
            self.deadline,
            "building the MILP",
            n,
            lambda v: [pulp.LpVariable(f"x_{v}_{t}", cat="Binary") for t in range(n)],
        )
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
        n, x, lp_sum, check = self.n, self.x, self.pulp.lpSum, self.deadline.check

        def prefixes(row: list) -> list:
            return _rows(self.deadline, "building the MILP", n, lambda t: lp_sum(row[: t + 1]))

        self.done = done = [prefixes(x[v]) for v in range(n)]
        for u, v in self.instance.edges:
            self.model += x[v][0] == 0
            for t in range(1, n):
                check("building the MILP")
                self.model += done[v][t] <= done[u][t - 1]

    def _add_liveness(self) -> None:
        """live[u,t] >= 1 while u is done and one of its consumers is not."""
        graph, done = self.graph, self.done
        for u in range(self.n):
            if not graph.successors[u] or graph.output[u] == 0:
                continue
            for t in range(1, self.n):
                self.deadline.check("building the MILP")
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
    """Slot MILP (PuLP/HiGHS): x[v,t] assigns node v to slot t, prefixes S_v(t), liveness rows.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Used: it seeds the solver's or the search's randomness.
    params : MilpParams | None
        Options; None takes the defaults of ``MilpParams``.

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE
        (and the statuses the HiGHS adapter maps a solver outcome to).
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or MilpParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    incumbent = heuristic_incumbent(graph, deadline)
    upper, lower = peak(graph, incumbent), memreq(instance)
    too_large = _too_large(graph)
    if too_large is not None:
        return _unbuilt(instance, incumbent, lower, too_large)
    try:
        built = _SlotPeakMilp(instance, graph, deadline).build(lower, upper)
    except TimeLimitReached as stopped:
        return _unbuilt(instance, incumbent, lower, str(stopped))
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
            self.deadline.check("building the CP-SAT model")
            for t in range(self.n):
                self.model.add_hint(self.x[v][t], slot[v] == t)
        return self

    def _add_assignment(self) -> None:
        """x[v,t]: one slot per node and one node per slot."""
        model, n = self.model, self.n
        self.x = x = _rows(
            self.deadline,
            "building the CP-SAT model",
            n,
            lambda v: [model.new_bool_var(f"x_{v}_{t}") for t in range(n)],
        )
        for v in range(n):
            model.add_exactly_one(x[v])
        for t in range(n):
            self.deadline.check("building the CP-SAT model")
            model.add_exactly_one(x[v][t] for v in range(n))

    def _add_precedence(self) -> None:
        """done[v,t] = Σ_{s<=t} x[v,s]; a consumer is done at t only if its producer was at t − 1."""
        model, n, x = self.model, self.n, self.x
        self.done = done = _rows(
            self.deadline,
            "building the CP-SAT model",
            n,
            lambda v: [model.new_bool_var(f"done_{v}_{t}") for t in range(n)],
        )
        for v in range(n):
            for t in range(n):
                self.deadline.check("building the CP-SAT model")
                model.add(done[v][t] == sum(x[v][: t + 1]))
        for u, v in self.instance.edges:
            self.deadline.check("building the CP-SAT model")
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
                self.deadline.check("building the CP-SAT model")
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
    """CP-SAT slot model: Boolean x[v,t], done prefixes, liveness Booleans, one memory row per slot.

    Parameters
    ----------
    instance : Instance
        A treemem instance asking the sequential question (any other question: NOT_APPLICABLE).
    time_limit : float
        Wall-clock budget in seconds.
    seed : int
        Used: it seeds the solver's or the search's randomness.
    params : CpSatParams | None
        Options; None takes the defaults of ``CpSatParams``.

    Returns
    -------
    Result
        The traversal order and its peak memory;
        the status, set in this method or its helpers, is one of
        FEASIBLE, NOT_APPLICABLE
        (and the statuses the CP-SAT adapter maps a solver outcome to).
    """
    refused = other_question(instance, "sequential")
    if refused is not None:
        return refused
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    graph = Graph.of(instance)
    incumbent = heuristic_incumbent(graph, deadline)
    upper, lower = peak(graph, incumbent), memreq(instance)
    too_large = _too_large(graph)
    if too_large is not None:
        return _unbuilt(instance, incumbent, lower, too_large)
    try:
        built = _SlotPeakModel(instance, graph, deadline).build(lower, upper, incumbent)
    except TimeLimitReached as stopped:
        return _unbuilt(instance, incumbent, lower, str(stopped))
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
