"""CP-SAT for partition (both memory models): the model builder, the incumbent and hint, the result."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers import cpsat as cpsat_backend
from .. import bounds
from ..heuristics import heft, pardnn
from ..model import Instance, Solution, evaluate

#: Largest n and K brute force accepts.


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
        from ...core.errors import InfeasibleError

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
        positive = None
        if self.instance.memory_model == "static":
            self._add_static_memory()
        else:
            # With Σp = 0 a makespan of 0 holds nothing, persistent memory included (the definition's
            # [0, makespan) is empty), so the persistent rows hold only when the makespan is positive.
            positive = self.model.new_bool_var("positive") if sum(self.times) == 0 else None
            _dynamic_memory(
                self.model,
                self.instance,
                self.x,
                self.start,
                self.end,
                self.split,
                self.horizon,
                self.deadline,
                positive,
            )
        makespan = self.model.new_int_var(lower, self.horizon, "makespan")
        self.model.add_max_equality(makespan, self.end)
        if positive is not None:
            self.model.add(makespan >= 1).only_enforce_if(positive)
            self.model.add(makespan == 0).only_enforce_if(~positive)
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


def _dynamic_memory(
    model, instance: Instance, x, start, end, split, horizon: int, deadline: Deadline, positive=None
) -> None:
    """The Cumulative over lifetimes of the dynamic memory model (see `cpsat`).

    ``positive``: None when Σp > 0 (the makespan is positive); otherwise the literal "makespan > 0", which the
    persistent memory's rows are conditioned on.
    """
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
        free = model.add(capacity == instance.memory - sum(nodes[v].persistent * x[v][g] for v in range(n)))
        if positive is not None:
            free.only_enforce_if(positive)
            model.add(capacity == instance.memory).only_enforce_if(~positive)
        if intervals[g]:
            model.add_cumulative(intervals[g], demands[g], capacity)
