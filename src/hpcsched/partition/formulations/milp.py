"""Big-M MILP for partition (PuLP/HiGHS, small graphs): static memory rows, or dynamic memory rows at event points
(`hpcsched.partition.formulations.milp_dynamic`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from ...solvers import milp as milp_backend
from ...taskgraph import topological_order
from .. import bounds
from ..model import Instance, Solution, evaluate
from ..simulate import retime
from .common import incumbent, static_memory_ok
from .milp_dynamic import DynamicMemoryRows

# --- big-M MILP ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MilpParams:
    """Options of milp.

    Attributes
    ----------
    max_nodes
        Refuse (NOT_APPLICABLE) above this many nodes, static memory (the model has O(n² K) rows).
    max_dynamic_nodes
        The same for dynamic memory (O((n + e)² K) rows: one per pair of memory items and GPU).
    workers
        HiGHS threads.
    stop_at_bound
        Return the incumbent as OPTIMAL without solving when it meets the lower bound.
    """

    max_nodes: int = 30
    max_dynamic_nodes: int = 10
    workers: int = 2
    stop_at_bound: bool = True

    def __post_init__(self):
        at_least("max_nodes", self.max_nodes, 1)
        at_least("max_dynamic_nodes", self.max_dynamic_nodes, 1)
        at_least("workers", self.workers, 1)


def _reachable(instance: Instance) -> list[set[int]]:
    """Descendants of every node."""
    order = topological_order(instance.n, instance.edges)
    below: list[set[int]] = [set() for _ in range(instance.n)]
    outgoing: list[list[int]] = [[] for _ in range(instance.n)]
    for edge in instance.edges:
        outgoing[edge.u].append(edge.v)
    for u in reversed(order):
        for v in outgoing[u]:
            below[u].add(v)
            below[u] |= below[v]
    return below


class _PartitionMilp:
    """The big-M MILP of `milp`, one method per row family.

    Parameters
    ----------
    instance
        A partition instance (dynamic memory: integer starts, exact split bits, `milp_dynamic` rows).
    horizon
        The big-M and the upper bound of the starts (an optimum ends no later).
    lower
        A proven lower bound on the makespan.
    deadline
        Checked inside the pair loop.
    """

    def __init__(self, instance: Instance, horizon: int, lower: int, deadline: Deadline) -> None:
        import pulp

        self.pulp, self.instance, self.horizon, self.deadline = pulp, instance, horizon, deadline
        n, gpus = instance.n, instance.gpus
        self.n, self.gpus, self.times = n, gpus, instance.times
        self.dynamic = instance.memory_model == "dynamic"
        self.problem = pulp.LpProblem("partition", pulp.LpMinimize)
        self.x = [[pulp.LpVariable(f"x_{v}_{g}", cat="Binary") for g in range(gpus)] for v in range(n)]
        # static: the engine re-times the backend's order, so starts may be continuous; dynamic: the starts
        # are the answer, and the event rows compare them strictly (b_I >= b_J + 1), which needs integers
        kind = "Integer" if self.dynamic else "Continuous"
        self.start = [pulp.LpVariable(f"S_{v}", lowBound=0, upBound=horizon, cat=kind) for v in range(n)]
        self.split: list = []
        self.makespan = pulp.LpVariable("C", lowBound=lower, upBound=horizon)
        self.problem += self.makespan

    def build(self, start_solution: Solution | None) -> _PartitionMilp:
        """Every row family and the incumbent as initial values, in the model's fixed order."""
        self._add_node_rows()
        self._add_precedence()
        self._add_disjunctions()
        if self.dynamic:
            DynamicMemoryRows(self).add()
        else:
            self._add_static_memory()
        if start_solution is not None:
            self._set_initial_values(start_solution)
        return self

    def _add_node_rows(self) -> None:
        """One GPU per node, C >= S_v + p_v, pins, symmetry breaking (no pins), colocation equalities."""
        problem, x, gpus = self.problem, self.x, self.gpus
        nodes = self.instance.nodes
        symmetric = all(node.pin is None for node in nodes)
        first_of_group: dict = {}
        for v, node in enumerate(nodes):
            problem += self.pulp.lpSum(x[v]) == 1
            problem += self.makespan >= self.start[v] + self.times[v]
            if node.pin is not None:
                problem += x[v][node.pin] == 1
            if symmetric:
                for g in range(v + 1, gpus):
                    problem += x[v][g] == 0
            if node.group is not None:
                first = first_of_group.setdefault(node.group, v)
                if first != v:
                    for g in range(gpus):
                        problem += x[v][g] == x[first][g]

    def _add_precedence(self) -> None:
        """S_v >= S_u + p_u + c_uv y_uv with the split bit y_uv >= x_ug - x_vg (dynamic: also <= 2 - x_ug - x_vg)."""
        problem, x, start = self.problem, self.x, self.start
        for edge in self.instance.edges:
            y = self.pulp.LpVariable(f"y_{edge.u}_{edge.v}", cat="Binary")
            for g in range(self.gpus):
                problem += y >= x[edge.u][g] - x[edge.v][g]
                if self.dynamic:  # exact: the output's lifetime and the copy depend on it
                    problem += y <= 2 - x[edge.u][g] - x[edge.v][g]
            problem += start[edge.v] >= start[edge.u] + self.times[edge.u] + edge.delay * y
            self.split.append(y)

    def _add_disjunctions(self) -> None:
        """Pairs with no path between them and positive times do not overlap when on the same GPU."""
        times = self.times
        below = _reachable(self.instance)
        for i in range(self.n):
            self.deadline.check("building the MILP")
            for j in range(i + 1, self.n):
                if j in below[i] or i in below[j] or times[i] == 0 or times[j] == 0:
                    continue
                self._add_pair(i, j)

    def _add_pair(self, i: int, j: int) -> None:
        """Same-GPU bits q_ijg and the order bit z_ij of the pair {i, j}."""
        pulp, problem, x, start, times, horizon = self.pulp, self.problem, self.x, self.start, self.times, self.horizon
        same = []
        for g in range(self.gpus):
            q = pulp.LpVariable(f"q_{i}_{j}_{g}", lowBound=0, upBound=1)
            problem += q <= x[i][g]
            problem += q <= x[j][g]
            problem += q >= x[i][g] + x[j][g] - 1
            same.append(q)
        z = pulp.LpVariable(f"z_{i}_{j}", cat="Binary")
        apart = 1 - pulp.lpSum(same)
        problem += start[j] >= start[i] + times[i] - horizon * (1 - z) - horizon * apart
        problem += start[i] >= start[j] + times[j] - horizon * z - horizon * apart

    def _add_static_memory(self) -> None:
        """Σ_v (w_v + s_v) x_vg <= M per GPU."""
        nodes = self.instance.nodes
        for g in range(self.gpus):
            used = self.pulp.lpSum((nodes[v].persistent + nodes[v].output) * self.x[v][g] for v in range(self.n))
            self.problem += used <= self.instance.memory

    def _set_initial_values(self, start_solution: Solution) -> None:
        """The incumbent as the MIP start."""
        for v in range(self.n):
            self.start[v].setInitialValue(start_solution.start[v])
            for g in range(self.gpus):
                self.x[v][g].setInitialValue(1 if start_solution.gpu[v] == g else 0)

    def assignment(self, outcome) -> list[int]:
        """The GPU of every node in a solved model."""
        return [max(range(self.gpus), key=lambda g: outcome.value(self.x[v][g]) or 0) for v in range(self.n)]


def _milp_bound(outcome, lower: int, horizon: int) -> int:
    """The proven bound: HiGHS' dual bound minus its tolerance times the big-M, rounded up; at least ``lower``."""
    if outcome.bound is not None and math.isfinite(outcome.bound):
        # HiGHS' feasibility/integrality tolerances (1e-6) times the big-M can move the LP value by
        # that much: subtract it before rounding up (the optimum is an integer).
        return max(lower, math.ceil(outcome.bound - 1e-6 * max(1.0, abs(outcome.bound)) - 1e-6 * horizon * 4))
    return lower


def milp(instance: Instance, /, *, time_limit: float, seed: int, params: MilpParams | None) -> Result:
    """Big-M MILP (PuLP/HiGHS, small graphs): assignment, split and same-GPU variables, disjunctive order; static
    memory rows, or dynamic memory rows at event points.

    Variables: x_vg binary (one per node; pins, colocation equalities);
    S_v >= 0; y_uv >= x_ug - x_vg (split); for each pair {i, j} with no
    path between them, q_ijg <= x_ig, x_jg, >= x_ig + x_jg - 1 (same GPU g)
    and an order bit z_ij: S_j >= S_i + p_i - H(1 - z_ij) - H(1 - Σ_g q_ijg)
    and S_i >= S_j + p_j - H z_ij - H(1 - Σ_g q_ijg) (pairs joined by a path
    are ordered by the precedence rows S_v >= S_u + p_u + c_uv y_uv);
    C >= S_v + p_v. Static memory: Σ_v (w_v + s_v) x_vg <= M; the
    backend's assignment and per-GPU order are re-timed by the engine
    (`hpcsched.partition.simulate.retime`: integer starts, none later).
    Dynamic memory: integer starts, y exact, and the rows at the begin of
    every memory item of `milp_dynamic` (exactness proven there); the
    backend's starts are the schedule (re-timing earlier could keep a copy
    alive longer). H is the incumbent's makespan (else Σp + Σc, the horizon
    lemma of `cpsat`), which an optimum does not exceed. The bound is
    HiGHS' dual bound minus its tolerance times H, rounded up (the optimum
    is an integer).

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        HiGHS's random seed.
    params
        `MilpParams`, or None for the defaults.

    Returns
    -------
    Result
        OPTIMAL when HiGHS proves it, FEASIBLE with the bound ceil(dual - tolerance) otherwise; NOT_APPLICABLE
        for n > ``max_nodes`` (static) or ``max_dynamic_nodes`` (dynamic).
    """
    params = params or MilpParams()
    limit, option = (
        (params.max_nodes, "max_nodes")
        if instance.memory_model == "static"
        else (params.max_dynamic_nodes, "max_dynamic_nodes")
    )
    if instance.n > limit:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"n = {instance.n} exceeds options.{option} = {limit} ({instance.memory_model} memory)",),
        )
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    start_solution = incumbent(instance, deadline.remaining())
    lower = bounds.best(instance)
    if start_solution:
        horizon = int(evaluate(instance, start_solution)["objective"])
    else:
        horizon = sum(instance.times) + sum(int(e.delay) for e in instance.edges)
    if params.stop_at_bound and start_solution is not None and lower >= horizon:
        return Result(
            status=Status.OPTIMAL,
            solution=start_solution,
            bound=lower,
            notes=("the heuristic incumbent meets the lower bound",),
        )
    built = _PartitionMilp(instance, horizon, lower, deadline).build(start_solution)
    outcome = milp_backend.solve_pulp(built.problem, time_limit=deadline.remaining(), threads=params.workers, seed=seed)
    bound = _milp_bound(outcome, lower, horizon)
    if outcome.has_solution:
        return _milp_solution_result(instance, built, outcome, start_solution, bound)
    if outcome.status is Status.INFEASIBLE and start_solution is None:
        from ...core.errors import InfeasibleError

        raise InfeasibleError(
            f"HiGHS proved that no schedule respects pins, colocation and {instance.memory_model} memory "
            f"within Σp + Σc = {horizon}, which is no restriction (see cpsat's docstring)"
        )
    if start_solution is not None:
        return Result(
            status=Status.FEASIBLE,
            solution=start_solution,
            bound=bound,
            solver=outcome.backend,
            notes=(f"HiGHS {outcome.message}: the heuristic incumbent is returned",),
        )
    return Result(status=Status.TIME_LIMIT_NO_SOLUTION, solver=outcome.backend, notes=(outcome.message,))


def _milp_solution_result(
    instance: Instance, built: _PartitionMilp, outcome, start_solution: Solution | None, bound: int
) -> Result:
    """The backend's schedule (static: its assignment re-timed by the engine), the incumbent if better; OPTIMAL only
    at the bound."""
    gpu_of = built.assignment(outcome)
    starts = [outcome.value(built.start[v]) or 0 for v in range(built.n)]
    if built.dynamic:
        solution = Solution(tuple(gpu_of), tuple(round(start) for start in starts))  # integer variables
    else:
        if not static_memory_ok(instance, gpu_of):  # pragma: no cover - rounding noise
            gpu_of = list(start_solution.gpu) if start_solution else gpu_of
        solution = retime(instance, gpu_of, starts)
    if (
        start_solution is not None
        and evaluate(instance, start_solution)["objective"] < evaluate(instance, solution)["objective"]
    ):
        solution = start_solution
    status = outcome.status
    if status is Status.OPTIMAL and evaluate(instance, solution)["objective"] > bound:
        status = Status.FEASIBLE  # the re-timed schedule is what we return; only a met bound proves it
    return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=(outcome.message,))
