"""The CP-SAT model of partition (both memory models), shared by `cpsat` and the LNS: builder, hints, reading."""

from __future__ import annotations

from ...core.deadline import Deadline
from ...solvers import cpsat as cpsat_backend
from ..model import Instance, Solution
from .common import canonical


class CpsatModel:
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

    def build(self, lower: int) -> CpsatModel:
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
            add_dynamic_memory(
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


def build_model(instance: Instance, horizon: int, lower: int, deadline: Deadline, fixed: dict[int, int] | None = None):
    """The CP-SAT model of `cpsat` (its docstring); ``fixed`` (node -> GPU) restricts it for the LNS (no symmetry
    breaking then)."""
    built = CpsatModel(instance, horizon, deadline, fixed).build(lower)
    return built.model, built.x, built.start, built.end


def add_dynamic_memory(
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


def hint_canonical(instance: Instance, model, x, start, start_solution: Solution) -> None:
    """The incumbent, relabelled as the symmetry breaking keeps it, as CP-SAT's hint."""
    hinted = canonical(instance, start_solution)
    for v in range(instance.n):
        model.add_hint(start[v], hinted.start[v])
        for g in range(instance.gpus):
            model.add_hint(x[v][g], hinted.gpu[v] == g)


def hint_as_is(instance: Instance, model, x, start, solution: Solution) -> None:
    """``solution`` as CP-SAT's hint, GPUs as they are (the LNS's models fix GPUs, so no relabelling)."""
    for v in range(instance.n):
        model.add_hint(start[v], solution.start[v])
        for g in range(instance.gpus):
            model.add_hint(x[v][g], solution.gpu[v] == g)


def read_solution(instance: Instance, outcome, x, start) -> Solution | None:
    """The schedule in CP-SAT's outcome, or None when it has none."""
    read = outcome.value
    if not outcome.has_solution or read is None:
        return None
    return Solution(
        tuple(next(g for g in range(instance.gpus) if read(x[v][g])) for v in range(instance.n)),
        tuple(int(read(start[v])) for v in range(instance.n)),
    )
