"""Exact methods for partition: CP-SAT (both memory models), a big-M MILP and brute force (static memory).

Cross-checked by the tests on random small DAGs.

Why brute force and the MILP are for static memory only: with static memory
the memory rule depends on the assignment alone, so among the schedules of
an assignment the *semi-active* ones (each node as early as its data and
its GPU's previous node allow) contain an optimum, which is what both
enumerate or re-time. With dynamic memory an early start can hold a copy
longer (it arrives at C_u + c_uv and stays until C_v), so an optimum may
need deliberate idle time; CP-SAT's Cumulative over lifetimes models that
exactly.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..core.deadline import Deadline, TimeLimitReached
from ..core.params import at_least, positive
from ..core.result import Result, Status
from ..solvers import cpsat as cpsat_backend
from ..solvers import milp as milp_backend
from ..taskgraph import predecessors, topological_order
from . import bounds
from .heuristics import heft, pardnn
from .model import Instance, Solution, evaluate
from .simulate import retime, unit_index, units

#: Largest n and K brute force accepts.
BRUTE_FORCE_MAX_NODES = 7
BRUTE_FORCE_MAX_GPUS = 3


def _static_memory_ok(instance: Instance, gpu_of) -> bool:
    load = [0] * instance.gpus
    for v, node in enumerate(instance.nodes):
        load[gpu_of[v]] += node.persistent + node.output
    return all(level <= instance.memory for level in load)


def _assignments(instance: Instance):
    """Every node -> GPU map that respects pins, colocation and static memory; GPUs relabelled canonically without
    pins."""
    unit_list = units(instance)
    symmetric = all(unit.pin is None for unit in unit_list)
    for labels in itertools.product(range(instance.gpus), repeat=len(unit_list)):
        if symmetric and any(labels[i] > max(labels[:i], default=-1) + 1 for i in range(len(labels))):
            continue  # a relabelling of an assignment already enumerated (identical GPUs)
        if any(unit.pin is not None and labels[i] != unit.pin for i, unit in enumerate(unit_list)):
            continue
        gpu_of = [0] * instance.n
        for i, unit in enumerate(unit_list):
            for v in unit.members:
                gpu_of[v] = labels[i]
        if _static_memory_ok(instance, gpu_of):
            yield gpu_of


def brute_force(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """Exhaustive search (static memory, n <= 7, K <= 3): every feasible assignment x every semi-active order.

    Theorem: the optimum is found. With static memory, feasibility of the
    memory, pins and colocation depends on the assignment only, which is
    enumerated (up to relabelling identical GPUs when nothing is pinned).
    For a fixed assignment, list the nodes of an optimal schedule by start;
    placing them in that order, each at max(data ready, end of the previous
    node on its GPU) (a node of length 0 at its data-ready time), every node
    starts no later than in the optimum (induction on the order: its
    predecessors end no later, so its data is ready no later, and the
    previous node on its GPU ends no later). The search branches on the
    next ready node and prunes by the best makespan found.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        Unused: the method is deterministic.
    params
        None (no options).

    Returns
    -------
    Result
        OPTIMAL with an optimal schedule, INFEASIBLE when no assignment fits; NOT_APPLICABLE outside
        static memory, n <= 7, K <= 3.
    """
    if instance.memory_model != "static":
        return Result(
            status=Status.NOT_APPLICABLE, notes=("brute force is for static memory (see the module docstring)",)
        )
    if instance.n > BRUTE_FORCE_MAX_NODES or instance.gpus > BRUTE_FORCE_MAX_GPUS:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"brute force is limited to n <= {BRUTE_FORCE_MAX_NODES} and K <= {BRUTE_FORCE_MAX_GPUS}",),
        )
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    n = instance.n
    times = instance.times
    incoming = predecessors(n, instance.edges)
    best: dict = {"makespan": math.inf, "gpu": None, "start": None}
    counter = [0]
    found_assignment = False
    for gpu_of in _assignments(instance):
        found_assignment = True
        starts: list[int | None] = [None] * n
        free = [0] * instance.gpus

        # this assignment's state, bound now (the closure runs inside this iteration only)
        def search(placed: int, makespan: int, gpu_of=gpu_of, starts=starts, free=free) -> None:
            counter[0] += 1
            if counter[0] % 4096 == 0:
                deadline.check("enumerating schedules (brute force)")
            if makespan >= best["makespan"]:
                return
            if placed == n:
                best.update(makespan=makespan, gpu=list(gpu_of), start=list(starts))
                return
            for j in range(n):
                if starts[j] is not None or any(starts[e.u] is None for e in incoming[j]):
                    continue
                g = gpu_of[j]
                ready = max(
                    (starts[e.u] + times[e.u] + (e.delay if gpu_of[e.u] != g else 0) for e in incoming[j]), default=0
                )
                if times[j] == 0:
                    starts[j] = ready
                    search(placed + 1, max(makespan, ready))
                    starts[j] = None
                    continue
                previous = free[g]
                start = max(ready, previous)
                starts[j] = start
                free[g] = start + times[j]
                search(placed + 1, max(makespan, start + times[j]))
                free[g] = previous
                starts[j] = None

        search(0, 0)
    if not found_assignment:
        from ..core.errors import InfeasibleError

        raise InfeasibleError("no assignment of the nodes respects pins, colocation and static memory (exhaustive)")
    return Result(
        status=Status.OPTIMAL,
        solution=Solution(tuple(best["gpu"]), tuple(best["start"])),
        notes=(f"{counter[0]} search nodes",),
    )


# --- CP-SAT ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpSatParams:
    """Options of cpsat.

    Attributes
    ----------
    workers
        CP-SAT search workers.
    deterministic_time
        CP-SAT ``max_deterministic_time`` (None: only the wall-clock limit); tests that assert a proof set it.
    hint
        Start from the better of ParDNN-style and HEFT (when they find a schedule).
    stop_at_bound
        Return the incumbent as OPTIMAL without solving when it meets the lower bound.
    """

    workers: int = 2
    deterministic_time: float | None = None
    hint: bool = True
    stop_at_bound: bool = True

    def __post_init__(self):
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


def incumbent(instance: Instance, time_limit: float | None) -> Solution | None:
    """The better of the ParDNN-style and HEFT schedules, or None when neither found one (None: no time limit)."""
    limit = math.inf if time_limit is None else time_limit
    found = []
    for method in (pardnn, heft):
        result = method(instance, time_limit=limit, seed=0, params=None)
        if result.solution is not None:
            found.append(result.solution)
    return min(found, key=lambda s: evaluate(instance, s)["objective"]) if found else None


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpSatParams | None) -> Result:
    """CP-SAT: assignment literals, optional intervals per GPU with NoOverlap, a split literal per edge, memory rows
    or a Cumulative over lifetimes.

    Model. x_vg (exactly one per node; fixed by pins; equal within a
    colocation group); S_v, E_v = S_v + p_v; an optional interval
    [S_v, E_v) per GPU present iff x_vg, NoOverlap per GPU; a split literal
    y_uv >= x_ug - x_vg for every g (so y = 1 when apart) and S_v >= E_u +
    c_uv y_uv, y_uv <= 2 - x_ug - x_vg (y is exactly "apart"). Static memory: Σ_v (w_v + s_v) x_vg <= M per GPU. Dynamic
    memory: per GPU a Cumulative of capacity M - Σ_v w_v x_vg over the
    output lifetimes [S_u, O_u) present iff x_ug (demand s_u; O_u >= E_u and
    O_u >= E_v when not split) and the copies [E_u + c_uv, E_v) present iff
    y_uv and x_vg (demand s_u), exactly the definition's items (a larger O_u
    only adds memory, so the solver can set it tight). Symmetry (no pins): node i uses a GPU <= i (relabel GPUs by the
    first node they host). Hint: the heuristic incumbent; horizon: its
    makespan (the optimum is no later), else Σp + Σc.

    Exactness with horizon H = Σp + Σc (no incumbent). Lemma: if a
    feasible schedule exists, one ends by Σp + Σc, for both memory models.
    Proof: take an instant t at which no node runs and no cut edge is in
    transfer (t outside every [C_u, C_u + c_uv)), inside an interval of
    such instants [t, t + δ); shift everything that starts at or after
    t + δ left by δ. Precedence holds (an edge crossing t has C_u + c_uv
    <= t <= S_v - δ), GPUs stay exclusive, and every memory item either
    moves with the shifted part or spans t and gets shorter, so no level
    rises. Repeating, every instant of [0, makespan) is covered by a run or
    a transfer window, whose total length is at most Σp + Σc. So INFEASIBLE
    with that horizon proves the instance infeasible.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        CP-SAT's random seed.
    params
        `CpSatParams`, or None for the defaults.

    Returns
    -------
    Result
        OPTIMAL with the schedule when CP-SAT proves it (or the incumbent meets the bound), FEASIBLE with the
        best schedule and CP-SAT's bound otherwise, INFEASIBLE only when the instance is proven infeasible,
        TIME_LIMIT_NO_SOLUTION when the time ran out first.
    """
    params = params or CpSatParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    times = instance.times
    start_solution = incumbent(instance, deadline.remaining())  # also the horizon, hint or not
    lower = bounds.best(instance)
    deadline.check("computing the incumbent and bounds")
    if start_solution is not None:
        horizon = int(evaluate(instance, start_solution)["objective"])
        if params.stop_at_bound and lower >= horizon:
            return Result(
                status=Status.OPTIMAL,
                solution=start_solution,
                bound=lower,
                notes=("the heuristic incumbent meets the lower bound",),
                solver=cpsat_backend.version(),
            )
    else:
        horizon = sum(times) + sum(int(edge.delay) for edge in instance.edges)
    model, x, start, _ = _build_model(instance, horizon, lower, deadline)
    if params.hint and start_solution is not None:
        _add_hint(instance, model, x, start, start_solution)
    outcome = cpsat_backend.solve_cpsat(
        model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    return _cpsat_result(instance, outcome, x, start, start_solution, lower, horizon)


def _add_hint(instance: Instance, model, x, start, start_solution: Solution) -> None:
    """The incumbent, relabelled as the symmetry breaking keeps it, as CP-SAT's hint."""
    hinted = canonical(instance, start_solution)
    for v in range(instance.n):
        model.add_hint(start[v], hinted.start[v])
        for g in range(instance.gpus):
            model.add_hint(x[v][g], hinted.gpu[v] == g)


def _hint_as_is(instance: Instance, model, x, start, solution: Solution) -> None:
    """``solution`` as CP-SAT's hint, GPUs as they are (the LNS's models fix GPUs, so no relabelling)."""
    for v in range(instance.n):
        model.add_hint(start[v], solution.start[v])
        for g in range(instance.gpus):
            model.add_hint(x[v][g], solution.gpu[v] == g)


def _read_solution(instance: Instance, outcome, x, start) -> Solution | None:
    """The schedule in CP-SAT's outcome, or None when it has none."""
    read = outcome.value
    if not outcome.has_solution or read is None:
        return None
    return Solution(
        tuple(next(g for g in range(instance.gpus) if read(x[v][g])) for v in range(instance.n)),
        tuple(int(read(start[v])) for v in range(instance.n)),
    )


def _cpsat_result(
    instance: Instance, outcome, x, start, start_solution: Solution | None, lower: int, horizon: int
) -> Result:
    """The method's result from the CP-SAT outcome: its schedule, else the incumbent, with the proven bound."""
    n, gpus = instance.n, instance.gpus
    bound = max(lower, math.floor(outcome.bound + 1e-9)) if outcome.bound is not None else lower
    note = f"CP-SAT {outcome.message}, deterministic time {getattr(outcome, 'deterministic_time', 0.0):.2f}"
    if outcome.status is Status.ERROR:  # a model CP-SAT refuses is our bug: say so, do not hide it behind the hint
        return Result(status=Status.ERROR, solver=outcome.backend, notes=(note,))
    if outcome.has_solution:
        gpu_of = [next(g for g in range(gpus) if outcome.value(x[v][g])) for v in range(n)]
        solution = Solution(tuple(gpu_of), tuple(int(outcome.value(start[v])) for v in range(n)))
        if (
            start_solution is not None
            and evaluate(instance, start_solution)["objective"] < evaluate(instance, solution)["objective"]
        ):
            solution = start_solution  # pragma: no cover - the hinted incumbent is never worse in practice
        return Result(status=outcome.status, solution=solution, bound=bound, solver=outcome.backend, notes=(note,))
    if outcome.status is Status.INFEASIBLE and start_solution is None:
        from ..core.errors import InfeasibleError

        raise InfeasibleError(
            f"CP-SAT proved that no schedule respects pins, colocation and {instance.memory_model} "
            f"memory within Σp + Σc = {horizon}, which is no restriction (see cpsat's docstring)"
        )
    if start_solution is not None:
        return Result(
            status=Status.FEASIBLE,
            solution=start_solution,
            bound=bound,
            solver=outcome.backend,
            notes=(f"{note}: the heuristic incumbent is returned",),
        )
    return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=None, solver=outcome.backend, notes=(note,))


def canonical(instance: Instance, solution: Solution) -> Solution:
    """The same schedule with GPUs relabelled by first use in node order (what the symmetry breaking keeps), unless
    pins forbid."""
    if any(node.pin is not None for node in instance.nodes):
        return solution
    label: dict[int, int] = {}
    for g in solution.gpu:
        label.setdefault(g, len(label))
    return Solution(tuple(label[g] for g in solution.gpu), solution.start)


class _CpsatModel:
    """The CP-SAT model of `cpsat` (its docstring), one method per constraint family.

    Parameters
    ----------
    instance
        A partition instance.
    horizon
        Latest end of any node.
    deadline
        Checked inside the long build loops.
    fixed
        Node -> GPU restrictions of the LNS (no symmetry breaking then).
    """

    def __init__(self, instance: Instance, horizon: int, deadline: Deadline, fixed: dict[int, int] | None) -> None:
        n, gpus = instance.n, instance.gpus
        self.instance, self.horizon, self.deadline, self.fixed = instance, horizon, deadline, fixed
        self.n, self.gpus, self.times = n, gpus, instance.times
        self.model = cpsat_backend.new_model()
        self.x = [[self.model.new_bool_var(f"x{v}_{g}") for g in range(gpus)] for v in range(n)]
        self.start = [self.model.new_int_var(0, horizon, f"S{v}") for v in range(n)]
        self.end = [self.start[v] + self.times[v] for v in range(n)]
        self.split: list = []

    def build(self, lower: int) -> _CpsatModel:
        """Every constraint family and the makespan objective, in the model's fixed order."""
        self._add_assignment_and_runs()
        self._add_colocation()
        self._add_precedence()
        if self.instance.memory_model == "static":
            self._add_static_memory()
        else:
            _dynamic_memory(
                self.model, self.instance, self.x, self.start, self.end, self.split, self.horizon, self.deadline
            )
        makespan = self.model.new_int_var(lower, self.horizon, "makespan")
        self.model.add_max_equality(makespan, self.end)
        self.model.minimize(makespan)
        return self

    def _add_assignment_and_runs(self) -> None:
        """One GPU per node (pins, LNS fixes, symmetry breaking) and NoOverlap of the runs per GPU."""
        model, x, start, times, gpus, fixed = self.model, self.x, self.start, self.times, self.gpus, self.fixed
        nodes = self.instance.nodes
        per_gpu_intervals: list[list] = [[] for _ in range(gpus)]
        symmetric = fixed is None and all(node.pin is None for node in nodes)
        for v in range(self.n):
            if v % 64 == 0:
                self.deadline.check("building the CP-SAT model")
            model.add_exactly_one(x[v])
            model.add(start[v] + times[v] <= self.horizon)
            pin = nodes[v].pin
            if pin is not None:
                model.add(x[v][pin] == 1)
            if fixed is not None and v in fixed:
                model.add(x[v][fixed[v]] == 1)
            if symmetric:
                for g in range(v + 1, gpus):
                    model.add(x[v][g] == 0)
            if times[v] > 0:
                for g in range(gpus):
                    per_gpu_intervals[g].append(
                        model.new_optional_fixed_size_interval_var(start[v], times[v], x[v][g], f"I{v}_{g}")
                    )
        for g in range(gpus):
            model.add_no_overlap(per_gpu_intervals[g])

    def _add_colocation(self) -> None:
        """Nodes of one colocation group on the GPU of its first node."""
        first_of_group: dict = {}
        for v, node in enumerate(self.instance.nodes):
            if node.group is not None:
                first = first_of_group.setdefault(node.group, v)
                if first != v:
                    for g in range(self.gpus):
                        self.model.add(self.x[v][g] == self.x[first][g])

    def _add_precedence(self) -> None:
        """An exact split literal per edge and S_v >= E_u + c_uv y_uv."""
        model, x = self.model, self.x
        for edge in self.instance.edges:
            self.deadline.check("building the CP-SAT model")
            y = model.new_bool_var(f"y{edge.u}_{edge.v}")
            for g in range(self.gpus):
                model.add(y >= x[edge.u][g] - x[edge.v][g])
                # y is exact (0 when together): the dynamic model's lifetimes depend on it
                model.add(y <= 2 - x[edge.u][g] - x[edge.v][g])
            model.add(self.start[edge.v] >= self.end[edge.u] + edge.delay * y)
            self.split.append(y)

    def _add_static_memory(self) -> None:
        """Σ_v (w_v + s_v) x_vg <= M per GPU."""
        nodes = self.instance.nodes
        for g in range(self.gpus):
            used = sum((nodes[v].persistent + nodes[v].output) * self.x[v][g] for v in range(self.n))
            self.model.add(used <= self.instance.memory)


def _build_model(instance: Instance, horizon: int, lower: int, deadline: Deadline, fixed: dict[int, int] | None = None):
    """The CP-SAT model of `cpsat` (its docstring); ``fixed`` (node -> GPU) restricts it for the LNS (no symmetry
    breaking then)."""
    built = _CpsatModel(instance, horizon, deadline, fixed).build(lower)
    return built.model, built.x, built.start, built.end


def _dynamic_memory(model, instance: Instance, x, start, end, split, horizon: int, deadline: Deadline) -> None:
    """The Cumulative over lifetimes of the dynamic memory model (see `cpsat`)."""
    n, gpus = instance.n, instance.gpus
    nodes = instance.nodes
    # Output lifetimes [S_u, O_u), O_u >= E_u and >= E_v for every consumer v on the same GPU.
    release = [model.new_int_var(0, horizon, f"O{u}") for u in range(n)]
    for u in range(n):
        model.add(release[u] >= end[u])
    for edge, y in zip(instance.edges, split, strict=False):
        model.add(release[edge.u] >= end[edge.v]).only_enforce_if(~y)
    intervals: list[list] = [[] for _ in range(gpus)]
    demands: list[list] = [[] for _ in range(gpus)]
    for u in range(n):
        deadline.check("building the CP-SAT memory model")
        if nodes[u].output == 0:
            continue
        for g in range(gpus):
            size = model.new_int_var(0, horizon, f"L{u}_{g}")
            intervals[g].append(model.new_optional_interval_var(start[u], size, release[u], x[u][g], f"out{u}_{g}"))
            demands[g].append(nodes[u].output)
    for e, (edge, y) in enumerate(zip(instance.edges, split, strict=False)):
        size_bytes = nodes[edge.u].output
        if size_bytes == 0:
            continue
        deadline.check("building the CP-SAT memory model")
        for g in range(gpus):
            present = model.new_bool_var(f"copy{e}_{g}")
            model.add_bool_and([y, x[edge.v][g]]).only_enforce_if(present)
            model.add_bool_or([~y, ~x[edge.v][g]]).only_enforce_if(~present)
            arrival = end[edge.u] + edge.delay
            length = model.new_int_var(0, horizon, f"C{e}_{g}")
            intervals[g].append(model.new_optional_interval_var(arrival, length, end[edge.v], present, f"copy{e}_{g}"))
            demands[g].append(size_bytes)
    for g in range(gpus):
        # CP-SAT wants an affine capacity: one variable equal to M - Σ w_v x_vg
        capacity = model.new_int_var(0, instance.memory, f"free{g}")
        model.add(capacity == instance.memory - sum(nodes[v].persistent * x[v][g] for v in range(n)))
        if intervals[g]:
            model.add_cumulative(intervals[g], demands[g], capacity)


# --- big-M MILP ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MilpParams:
    """Options of milp.

    Attributes
    ----------
    max_nodes
        Refuse (NOT_APPLICABLE) above this many nodes (the model has O(n² K) rows).
    workers
        HiGHS threads.
    stop_at_bound
        Return the incumbent as OPTIMAL without solving when it meets the lower bound.
    """

    max_nodes: int = 30
    workers: int = 2
    stop_at_bound: bool = True

    def __post_init__(self):
        at_least("max_nodes", self.max_nodes, 1)
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
        A static-memory instance.
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
        self.problem = pulp.LpProblem("partition", pulp.LpMinimize)
        self.x = [[pulp.LpVariable(f"x_{v}_{g}", cat="Binary") for g in range(gpus)] for v in range(n)]
        self.start = [pulp.LpVariable(f"S_{v}", lowBound=0, upBound=horizon) for v in range(n)]
        self.makespan = pulp.LpVariable("C", lowBound=lower, upBound=horizon)
        self.problem += self.makespan

    def build(self, start_solution: Solution | None) -> _PartitionMilp:
        """Every row family and the incumbent as initial values, in the model's fixed order."""
        self._add_node_rows()
        self._add_precedence()
        self._add_disjunctions()
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
        """S_v >= S_u + p_u + c_uv y_uv with the split bit y_uv >= x_ug - x_vg."""
        problem, x, start = self.problem, self.x, self.start
        for edge in self.instance.edges:
            y = self.pulp.LpVariable(f"y_{edge.u}_{edge.v}", cat="Binary")
            for g in range(self.gpus):
                problem += y >= x[edge.u][g] - x[edge.v][g]
            problem += start[edge.v] >= start[edge.u] + self.times[edge.u] + edge.delay * y

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
    """Big-M MILP (PuLP/HiGHS, static memory, small graphs): assignment, split and same-GPU variables, disjunctive
    order.

    Variables: x_vg binary (one per node; pins, colocation equalities);
    S_v >= 0; y_uv >= x_ug - x_vg (split); for each pair {i, j} with no
    path between them, q_ijg <= x_ig, x_jg, >= x_ig + x_jg - 1 (same GPU g)
    and an order bit z_ij: S_j >= S_i + p_i - H(1 - z_ij) - H(1 - Σ_g q_ijg)
    and S_i >= S_j + p_j - H z_ij - H(1 - Σ_g q_ijg) (pairs joined by a path
    are ordered by the precedence rows S_v >= S_u + p_u + c_uv y_uv);
    Σ_v (w_v + s_v) x_vg <= M; C >= S_v + p_v. H is the incumbent's
    makespan (else Σp + Σc), which an optimum does not exceed. The
    backend's assignment and per-GPU order are re-timed by the engine
    (`hpcsched.partition.simulate.retime`: integer starts, none later).
    The bound is HiGHS' dual bound minus its tolerance times H, rounded up
    (the optimum is an integer).

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
        for dynamic memory or n > ``max_nodes``.
    """
    params = params or MilpParams()
    if instance.memory_model != "static":
        return Result(status=Status.NOT_APPLICABLE, notes=("the MILP is for static memory (see the module docstring)",))
    if instance.n > params.max_nodes:
        return Result(
            status=Status.NOT_APPLICABLE, notes=(f"n = {instance.n} exceeds options.max_nodes = {params.max_nodes}",)
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
        from ..core.errors import InfeasibleError

        raise InfeasibleError("HiGHS proved that no assignment respects pins, colocation and static memory")
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
    """The backend's assignment re-timed by the engine (the incumbent if better); OPTIMAL only at the bound."""
    gpu_of = built.assignment(outcome)
    if not _static_memory_ok(instance, gpu_of):  # pragma: no cover - rounding noise
        gpu_of = list(start_solution.gpu) if start_solution else gpu_of
    solution = retime(instance, gpu_of, [outcome.value(built.start[v]) or 0 for v in range(built.n)])
    if (
        start_solution is not None
        and evaluate(instance, start_solution)["objective"] < evaluate(instance, solution)["objective"]
    ):
        solution = start_solution
    status = outcome.status
    if status is Status.OPTIMAL and evaluate(instance, solution)["objective"] > bound:
        status = Status.FEASIBLE  # the re-timed schedule is what we return; only a met bound proves it
    return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=(outcome.message,))


# --- CP-SAT large-neighbourhood search ---------------------------------------------------------------


@dataclass(frozen=True)
class LnsParams:
    """Options of cpsat-lns.

    Attributes
    ----------
    workers
        CP-SAT workers per sub-solve.
    neighbourhood
        Nodes set free per iteration (a window of a topological order, widened to whole colocation groups).
    iteration_deterministic_time
        CP-SAT ``max_deterministic_time`` of each sub-solve (the wall clock stops the whole search).
    max_iterations
        Sub-solves at most.
    """

    workers: int = 2
    neighbourhood: int = 40
    iteration_deterministic_time: float = 2.0
    max_iterations: int = 10_000

    def __post_init__(self):
        at_least("workers", self.workers, 1)
        at_least("neighbourhood", self.neighbourhood, 1)
        positive("iteration_deterministic_time", self.iteration_deterministic_time)
        at_least("max_iterations", self.max_iterations, 1)


def cpsat_lns(instance: Instance, /, *, time_limit: float, seed: int, params: LnsParams | None) -> Result:
    """CP-SAT large-neighbourhood search seeded by the better of ParDNN-style and HEFT.

    Each iteration frees the GPUs of a random window of ``neighbourhood``
    consecutive nodes of a topological order (with their whole colocation
    groups), keeps every other node on its GPU, and re-solves the full
    `cpsat` model (all starts free) under a deterministic budget, hinted
    with the incumbent and limited to its makespan; a better schedule
    replaces it. A heuristic: FEASIBLE, OPTIMAL only when the incumbent
    meets `bounds.best`; the bound reported is `bounds.best`.

    Parameters
    ----------
    instance
        The partition instance.
    time_limit
        Seconds for the whole method, model building included.
    seed
        Seed of the window choice and of each sub-solve (seed + iteration).
    params
        `LnsParams`, or None for the defaults.

    Returns
    -------
    Result
        FEASIBLE with the best schedule found and `bounds.best` as bound (OPTIMAL only when they meet);
        NOT_APPLICABLE when no heuristic gave a schedule to start from.
    """
    import numpy as np

    params = params or LnsParams()
    deadline = Deadline.after(time_limit)
    bounds.require_feasible(instance)
    best = incumbent(instance, deadline.remaining())
    if best is None:
        return Result(status=Status.NOT_APPLICABLE, notes=("no heuristic schedule to start from",))
    lower = bounds.best(instance)
    best_value = int(evaluate(instance, best)["objective"])
    rng = np.random.default_rng(seed)
    order = topological_order(instance.n, instance.edges)
    unit_list = units(instance)
    owner = unit_index(instance, unit_list)
    size = min(params.neighbourhood, instance.n)
    iterations = improvements = 0
    solver = cpsat_backend.version()
    while iterations < params.max_iterations and best_value > lower and not deadline.expired():
        first = int(rng.integers(0, instance.n - size + 1))
        free = {u for v in order[first : first + size] for u in unit_list[owner[v]].members}
        fixed = {v: best.gpu[v] for v in range(instance.n) if v not in free}
        try:
            model, x, start, _end = _build_model(instance, best_value, lower, deadline, fixed)
        except TimeLimitReached:  # the deadline while building: stop with the incumbent
            break
        _hint_as_is(instance, model, x, start, best)
        outcome = cpsat_backend.solve_cpsat(
            model,
            time_limit=deadline.remaining(),
            deterministic_time=params.iteration_deterministic_time,
            workers=params.workers,
            seed=seed + iterations,
        )
        iterations += 1
        candidate = _read_solution(instance, outcome, x, start)
        if candidate is not None:
            value = int(evaluate(instance, candidate)["objective"])
            if value < best_value:
                best, best_value, improvements = candidate, value, improvements + 1
    status = Status.OPTIMAL if best_value <= lower else Status.FEASIBLE
    return Result(
        status=status,
        solution=best,
        bound=lower,
        solver=solver,
        notes=(f"{iterations} sub-solves of {size} free nodes, {improvements} improvements",),
    )
