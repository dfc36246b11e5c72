"""Exact time-indexed CP-SAT model of kind ``chain-offload`` (small chains, small integer times).

Model
-----
Time units 0..H-1, H a horizon no shorter than some known valid schedule
(default: the makespan of the remat-only persistent DP sequence run back to
back, else store-all, else, below the remat-only memory floor, the
`offload_greedy` schedule when the definition accepts it; option ``horizon``). Booleans ``start[p][t]`` for every
operation p (``F j``, ``Fall j``, ``B j``, ``Off i``, ``Pre i``, ``Offall i``,
``Preall i``; each ``B j`` exactly once, the others any number of times) and,
per value v in x_0..x_L, xbar_1..xbar_L, ``held[v][t]`` and ``ready[v][t]``:

* a held value was held at t-1 or one of its producers starts at t; a
  producer starts only when v is not held at t-1 (one copy at a time) and
  keeps v held while it runs; v is ready at t only if it was ready at t-1 or
  a producer ended at t; ready implies held; x_0 is held and ready at 0;
* a reader starting at t needs its value ready over its whole run; a read of
  x_i picks one server for the whole run (x_i or xbar_i, an auxiliary
  boolean); ``Pre``/``Preall`` need an ``Off``/``Offall`` of the same value
  ended by their start;
* a copy of xbar_i is dropped only at the end of an explicit read of it
  (``B i-1``, ``Offall i``), so the model's xbar spans are the definition's
  (rule 4 of `two_levels`) and every x_i read it serves by xbar is one the
  definition serves by xbar; x copies may be held longer than the
  definition's liveness (never less memory in the model);
* one compute operation runs at a time; one transfer per channel;
* memory per time unit: held values + delta_j (from the start of ``B j`` to
  the end of ``B j-1``) + transients <= M; everything ends by the end of
  ``B 0``, the objective.

Exactness (sketch). A model solution is a valid schedule whose definition
memory is at most the model's (the definition releases at last reads). A
valid schedule of makespan <= H with integer starts is a model solution after
removing waste (a ``Fall`` whose xbar is never explicitly read, a forward
whose output is never read, a link operation whose copy is never read):
removal keeps the other start times, so memory and makespan do not grow.
Hence the model's optimum is the optimum over schedules of makespan <= H,
which is the optimum since a valid schedule of makespan H is known. Only
when the horizon is an option (no known schedule) is "no solution within H"
not a proof of infeasibility: the method then says so and does not claim
INFEASIBLE.

Option ``allow_recomputation=False`` forbids ``F`` and requires each ``Fall``
exactly once: the offload-only question on the same chain.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python.cp_model import IntVar, LinearExpr

from ...core.deadline import Deadline
from ...core.errors import InfeasibleError
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat
from ..model import Instance, Solution
from .offload_horizon import Horizon, choose_horizon, known_horizon, offload_horizon


@dataclass(frozen=True)
class CpsatOffloadParams:
    """Options of `cpsat_offload`.

    Attributes
    ----------
    horizon
        Time units modelled (None: the makespan of a known remat-only schedule).
    max_horizon
        Largest horizon modelled (the model has ~ operations × H booleans); larger is NOT_APPLICABLE.
    allow_recomputation
        False: no ``F``, each ``Fall`` once (offload only).
    workers, deterministic_time
        CP-SAT workers and ``max_deterministic_time`` (None: only the wall-clock limit).
    """

    horizon: int | None = None
    max_horizon: int = 400
    allow_recomputation: bool = True
    workers: int = 1
    deterministic_time: float | None = None

    def __post_init__(self) -> None:
        if self.horizon is not None:
            at_least("horizon", self.horizon, 1)
        at_least("max_horizon", self.max_horizon, 1)
        at_least("workers", self.workers, 1)
        positive("deterministic_time", self.deterministic_time)


Op = tuple[str, int]
Value = tuple[str, int]
_BUILDING = "building the CP-SAT model"


def _operations(length: int, allow_recomputation: bool) -> list[Op]:
    """Every operation of the model; compute first (the list's tie order in the answer)."""
    ops: list[Op] = [("B", j) for j in range(length, -1, -1)]
    ops += [("Fall", j) for j in range(length)]
    if allow_recomputation:
        ops += [("F", j) for j in range(length)]
    ops += [("Off", i) for i in range(length + 1)] + [("Pre", i) for i in range(length + 1)]
    ops += [("Offall", i) for i in range(1, length + 1)] + [("Preall", i) for i in range(1, length + 1)]
    return ops


def _producers(ops: list[Op], values: list[Value]) -> dict[Value, list[Op]]:
    """The operations that create each value (a forward, a prefetch)."""
    producers: dict[Value, list[Op]] = {v: [] for v in values}
    made_by = {"F": ("x", 1), "Fall": ("xbar", 1), "Pre": ("x", 0), "Preall": ("xbar", 0)}
    for name, s in ops:
        if name in made_by:
            kind, shift = made_by[name]
            producers[(kind, s + shift)].append((name, s))
    return producers


def _explicit_readers(length: int, values: list[Value]) -> dict[Value, list[Op]]:
    """The explicit readers of the xbar values (``B i-1``, ``Offall i``)."""
    explicit: dict[Value, list[Op]] = {v: [] for v in values}
    for j in range(length):
        explicit[("xbar", j + 1)].append(("B", j))
    for i in range(1, length + 1):
        explicit[("xbar", i)].append(("Offall", i))
    return explicit


class _OffloadModel:
    """The time-indexed CP-SAT model, one method per constraint family (see the module docstring).

    Parameters
    ----------
    instance
        A ``chain-offload`` instance.
    horizon
        Time units modelled (H).
    allow_recomputation
        False: no ``F`` and each ``Fall`` exactly once.
    deadline
        Checked inside the long build loops.
    """

    def __init__(self, instance: Instance, horizon: int, allow_recomputation: bool, deadline: Deadline) -> None:
        from ..model.two_levels import duration

        self.instance, self.H, self.deadline = instance, horizon, deadline
        self.L = instance.length
        self.allow_recomputation = allow_recomputation
        self.model = new_model()
        self.ops = _operations(self.L, allow_recomputation)
        self.dur = {p: duration(instance, *p) for p in self.ops}
        self.start: dict[tuple[Op, int], IntVar] = {}
        for p in self.ops:
            deadline.check(_BUILDING)
            for t in range(self.H - self.dur[p] + 1):
                self.start[(p, t)] = self.model.new_bool_var(f"s_{p[0]}{p[1]}_{t}")
        self.values = [("x", i) for i in range(self.L + 1)] + [("xbar", i) for i in range(1, self.L + 1)]
        self.size = {v: (instance.x[v[1]] if v[0] == "x" else instance.xbar[v[1]]) for v in self.values}
        self.held: dict = {}
        self.ready: dict = {}
        # the end of B 0 (the makespan); set by _add_backward_order before anything reads it
        self.end_b0: LinearExpr | int = 0
        self.weight = 1

    def build(self) -> _OffloadModel:
        """Add every constraint family and the objective, in the model's fixed order."""
        self._add_backward_order()
        self._add_value_states()
        self._add_reads()
        self._add_streams_and_memory()
        self._add_objective()
        self.deadline.check(_BUILDING)
        return self

    def starts(self, p: Op, low: int, high: int) -> list:
        """start[p][t] for low <= t <= high."""
        return [self.start[(p, t)] for t in range(max(0, low), min(self.H - self.dur[p], high) + 1)]

    def running(self, p: Op, t: int) -> list:
        """The start literals of p that make it run at t."""
        return self.starts(p, t - self.dur[p] + 1, t)

    def begin(self, p: Op) -> LinearExpr | int:
        """Start time expression of a once-only operation."""
        return sum(t * self.start[(p, t)] for t in range(self.H - self.dur[p] + 1))

    def _add_backward_order(self) -> None:
        """Each ``B j`` once (each ``Fall`` once without recomputation), in order; all ends by ``B 0``."""
        model, L = self.model, self.L
        for j in range(L + 1):
            model.add_exactly_one(self.starts(("B", j), 0, self.H))
        if not self.allow_recomputation:
            for j in range(L):
                model.add_exactly_one(self.starts(("Fall", j), 0, self.H))
        for j in range(L, 0, -1):
            model.add(self.begin(("B", j - 1)) >= self.begin(("B", j)) + self.dur[("B", j)])
        self.end_b0 = self.begin(("B", 0)) + self.dur[("B", 0)]
        for (p, t), literal in self.start.items():
            model.add(self.end_b0 >= t + self.dur[p]).only_enforce_if(literal)

    def _add_value_states(self) -> None:
        """held/ready per value and time: creation, one copy at a time, xbar dropped after explicit reads."""
        model, H = self.model, self.H
        producers = _producers(self.ops, self.values)
        self.held = {(v, t): model.new_bool_var(f"h_{v[0]}{v[1]}_{t}") for v in self.values for t in range(H)}
        self.ready = {(v, t): model.new_bool_var(f"r_{v[0]}{v[1]}_{t}") for v in self.values for t in range(H)}
        model.add(self.held[(("x", 0), 0)] == 1)
        model.add(self.ready[(("x", 0), 0)] == 1)
        explicit = _explicit_readers(self.L, self.values)
        for v in self.values:
            self.deadline.check(_BUILDING)
            for t in range(H):
                self._add_value_state_at(v, t, producers[v], explicit[v])
            for p in producers[v]:
                for t in range(H - self.dur[p] + 1):
                    for u in range(t, t + self.dur[p]):
                        model.add_implication(self.start[(p, t)], self.held[(v, u)])

    def _add_value_state_at(self, v: Value, t: int, producers: list[Op], explicit: list[Op]) -> None:
        """The held/ready rules of value v at time t."""
        model, start, dur = self.model, self.start, self.dur
        h, r = self.held[(v, t)], self.ready[(v, t)]
        model.add_implication(r, h)
        creators = [start[(p, t)] for p in producers if (p, t) in start]
        finished = [start[(p, t - dur[p])] for p in producers if (p, t - dur[p]) in start]
        if not (v == ("x", 0) and t == 0):
            model.add_bool_or(([self.held[(v, t - 1)]] if t else []) + creators).only_enforce_if(h)
            model.add_bool_or(([self.ready[(v, t - 1)]] if t else []) + finished).only_enforce_if(r)
        for literal in creators:
            if t:
                model.add_implication(literal, self.held[(v, t - 1)].Not())
        if v[0] == "xbar" and t + 1 < self.H:
            # drop only at the end of an explicit read (the definition's xbar span)
            ends_now = [start[(p, t + 1 - dur[p])] for p in explicit if (p, t + 1 - dur[p]) in start]
            model.add_bool_or([self.held[(v, t + 1)], *ends_now]).only_enforce_if(h)

    def _add_reads(self) -> None:
        """Every operation's inputs are ready over its whole run; prefetches follow an offload."""
        for p in self.ops:
            self.deadline.check(_BUILDING)
            for t in range(self.H - self.dur[p] + 1):
                self._add_read_at(p, t)

    def _add_read_at(self, p: Op, t: int) -> None:
        """The read rules of operation p started at t."""
        model, ready = self.model, self.ready
        name, s = p
        literal = self.start[(p, t)]
        span = range(t, t + self.dur[p])
        needs = []
        if name == "B" and s < self.L:
            needs.append(("xbar", s + 1))
        if name == "Offall":
            needs.append(("xbar", s))
        for v in needs:
            for u in span:
                model.add_implication(literal, ready[(v, u)])
        if name in ("F", "Fall", "B", "Off"):
            if s == 0:
                for u in span:
                    model.add_implication(literal, ready[(("x", 0), u)])
            else:
                by_xbar = model.new_bool_var(f"u_{name}{s}_{t}")
                for u in span:
                    model.add(ready[(("xbar", s), u)] == 1).only_enforce_if([literal, by_xbar])
                    model.add(ready[(("x", s), u)] == 1).only_enforce_if([literal, by_xbar.Not()])
        if name in ("Pre", "Preall"):
            writer = ("Off" if name == "Pre" else "Offall", s)
            model.add(sum(self.starts(writer, 0, t - self.dur[writer])) >= 1).only_enforce_if(literal)

    def _add_streams_and_memory(self) -> None:
        """One compute operation at a time, one transfer per channel, memory <= M at every time unit."""
        model, ops = self.model, self.ops
        compute = [p for p in ops if p[0] in ("F", "Fall", "B")]
        outs = [p for p in ops if p[0] in ("Off", "Offall")]
        ins = [p for p in ops if p[0] in ("Pre", "Preall")]
        channels = [outs + ins] if self.instance.duplex == "half" else [outs, ins]
        for t in range(self.H):
            self.deadline.check(_BUILDING)
            model.add(sum(lit for p in compute for lit in self.running(p, t)) <= 1)
            for channel in channels:
                model.add(sum(lit for p in channel for lit in self.running(p, t)) <= 1)
            held = sum(self.size[v] * self.held[(v, t)] for v in self.values)
            model.add(held + self._deltas(t) + self._transients(compute, t) <= self.instance.memory)

    def _deltas(self, t: int):
        """Memory of the delta_j at t: from the start of ``B j`` to the end of ``B j-1``."""
        L, x = self.L, self.instance.x

        def started_by(j: int) -> list:
            return self.starts(("B", j), 0, t)

        def ended_by(j: int) -> list:
            return self.starts(("B", j), 0, t - self.dur[("B", j)])

        deltas = (
            sum(self.size[("x", L)] * lit for lit in started_by(L))
            - sum(self.size[("x", L)] * lit for lit in ended_by(L - 1))
            if L >= 1
            else 0
        )
        for j in range(L - 1, 0, -1):
            deltas += sum(x[j] * lit for lit in started_by(j)) - sum(x[j] * lit for lit in ended_by(j - 1))
        deltas += sum(x[0] * lit for lit in started_by(0)) - sum(x[0] * lit for lit in ended_by(0))
        return deltas

    def _transients(self, compute: list[Op], t: int):
        """Transient memory of the compute operation running at t."""
        instance = self.instance
        return sum(
            (instance.btmp[p[1]] if p[0] == "B" else instance.ftmp[p[1]]) * lit
            for p in compute
            for lit in self.running(p, t)
        )

    def _add_objective(self) -> None:
        """Lexicographic: makespan first, then fewest link operations (no useless copies in the answer)."""
        link_starts = [lit for (p, _), lit in self.start.items() if p[0] in ("Off", "Pre", "Offall", "Preall")]
        self.weight = len(link_starts) + 1
        self.model.minimize(self.weight * self.end_b0 + sum(link_starts))

    def solution(self, outcome) -> Solution:
        """The schedule of a solved model: by start; at equal starts compute before link operations."""
        timed = sorted(
            ((t, self.ops.index(p), p) for (p, t), lit in self.start.items() if outcome.value(lit) > 0.5),
            key=lambda item: (item[0], item[1]),
        )
        return Solution(tuple(p for _, _, p in timed), tuple(t for t, _, _ in timed))


def cpsat_offload(instance: Instance, /, *, time_limit: float, seed: int, params: CpsatOffloadParams | None) -> Result:
    """Exact time-indexed CP-SAT over two-level schedules (remat + offload) for small chains.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (CP-SAT's random seed).
    params : CpsatOffloadParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        OPTIMAL when CP-SAT proves the schedule optimal within a proven horizon,
        else FEASIBLE; TIME_LIMIT_NO_SOLUTION when the limit ends the search
        first; NOT_APPLICABLE for kind ``chain``, without a horizon, or when no
        schedule exists within the horizon.
    """
    params = params or CpsatOffloadParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    deadline = Deadline.after(time_limit)
    horizon = choose_horizon(instance, params, deadline)
    if isinstance(horizon, Result):
        return horizon
    built = _OffloadModel(instance, horizon.length, params.allow_recomputation, deadline).build()
    outcome = solve_cpsat(
        built.model,
        time_limit=deadline.remaining(),
        deterministic_time=params.deterministic_time,
        workers=params.workers,
        seed=seed,
    )
    return _offload_result(built, outcome, params, horizon)


def _offload_result(built: _OffloadModel, outcome, params: CpsatOffloadParams, horizon: Horizon) -> Result:
    """The method's result from the CP-SAT outcome: what is proven depends on the horizon's origin."""
    H = horizon.length
    notes = [f"time-indexed over H = {H} time units ({'known schedule' if params.horizon is None else 'option'})"]
    if not params.allow_recomputation:
        notes.append("no recomputation (each Fall once, no F): the offload-only question")
    horizon_proven = params.horizon is None or (horizon.proven is not None and params.horizon >= horizon.proven)
    if outcome.status is Status.INFEASIBLE:
        if horizon_proven and params.allow_recomputation:
            raise InfeasibleError("no two-level schedule fits the budget (CP-SAT over a proven horizon)")
        return Result(status=Status.NOT_APPLICABLE, notes=(*notes, f"no schedule within H = {H} in this class"))
    bound = (
        float(int((outcome.bound + 1e-6) // built.weight))
        if outcome.bound is not None and horizon_proven and params.allow_recomputation
        else None
    )
    if not outcome.has_solution:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, solver=outcome.backend, notes=tuple(notes))
    solution = built.solution(outcome)
    optimal = outcome.status is Status.OPTIMAL and horizon_proven and params.allow_recomputation
    if outcome.status is Status.OPTIMAL and not optimal:
        notes.append("optimal within the restricted class / horizon only")
    status = Status.OPTIMAL if optimal else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=tuple(notes))


__all__ = ["CpsatOffloadParams", "cpsat_offload", "known_horizon", "offload_horizon"]
