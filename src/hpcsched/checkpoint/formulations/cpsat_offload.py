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

from ...core.deadline import Deadline
from ...core.errors import InfeasibleError
from ...core.params import at_least, positive
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat
from ..model import Instance, Solution, store_all_peak


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


def known_horizon(instance: Instance) -> int | None:
    """The makespan of a valid remat-only schedule (persistent DP, else store-all), None if none fits."""
    from .dp import persistent_dp

    chain = instance.as_chain() if instance.kind == "chain-offload" else instance
    if chain.memory >= store_all_peak(chain):
        return chain.compute_time
    from .. import model as chain_model

    try:
        plan = persistent_dp(chain)
    except Exception:
        plan = None
    if plan is not None and plan.time is not None and not chain_model.validate(chain, Solution(plan.sequence)):
        return int(plan.time)
    return None


def offload_horizon(instance: Instance, time_limit: float) -> int | None:
    """The makespan of the `offload_greedy` schedule when it is valid by the definition (None otherwise).

    Used when no remat-only schedule fits M (below the chain's memory floor):
    any valid two-level schedule proves that the optimum is within its makespan.
    """
    from ..model.two_levels import evaluate_two_levels, validate_two_levels
    from ..offload_greedy import offload_greedy

    try:
        result = offload_greedy(instance, time_limit=time_limit, seed=0, params=None)
    except Exception:
        return None
    if result.solution is None or validate_two_levels(instance, result.solution):
        return None
    return int(evaluate_two_levels(instance, result.solution)["makespan"])


def cpsat_offload(instance: Instance, /, *, time_limit: float, seed: int,
                  params: CpsatOffloadParams | None) -> Result:
    """Exact time-indexed CP-SAT over two-level schedules (remat + offload) for small chains."""
    params = params or CpsatOffloadParams()
    if instance.kind != "chain-offload":
        return Result(status=Status.NOT_APPLICABLE, notes=("kind 'chain-offload' only (the chain has no host level)",))
    deadline = Deadline.after(time_limit)
    L, x, xb = instance.length, instance.x, instance.xbar
    proven_horizon = None
    try:
        proven_horizon = known_horizon(instance)
    except Exception:
        proven_horizon = None
    if proven_horizon is None and params.horizon is None:
        left = deadline.remaining()
        proven_horizon = offload_horizon(instance, 60.0 if left is None else left / 4)
    horizon = params.horizon if params.horizon is not None else proven_horizon
    if horizon is None:
        return Result(status=Status.NOT_APPLICABLE,
                      notes=("no remat-only schedule fits M, so no horizon is known: give option horizon",))
    if horizon > params.max_horizon:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"horizon {horizon} > max_horizon {params.max_horizon}",))
    H = horizon
    model = new_model()
    from ..model.two_levels import duration

    ops: list[tuple[str, int]] = [("B", j) for j in range(L, -1, -1)]  # compute first: the list's tie order
    ops += [("Fall", j) for j in range(L)]
    if params.allow_recomputation:
        ops += [("F", j) for j in range(L)]
    ops += [("Off", i) for i in range(L + 1)] + [("Pre", i) for i in range(L + 1)]
    ops += [("Offall", i) for i in range(1, L + 1)] + [("Preall", i) for i in range(1, L + 1)]
    dur = {p: duration(instance, *p) for p in ops}
    start = {}
    for p in ops:
        deadline.check("building the CP-SAT model")
        for t in range(H - dur[p] + 1):
            start[(p, t)] = model.new_bool_var(f"s_{p[0]}{p[1]}_{t}")

    def starts(p: tuple[str, int], low: int, high: int) -> list:
        """start[p][t] for low <= t <= high."""
        return [start[(p, t)] for t in range(max(0, low), min(H - dur[p], high) + 1)]

    def running(p: tuple[str, int], t: int) -> list:
        return starts(p, t - dur[p] + 1, t)

    for j in range(L + 1):
        model.add_exactly_one(starts(("B", j), 0, H))
    if not params.allow_recomputation:
        for j in range(L):
            model.add_exactly_one(starts(("Fall", j), 0, H))

    def begin(p):  # start time expression of a once-only operation
        return sum(t * start[(p, t)] for t in range(H - dur[p] + 1))

    for j in range(L, 0, -1):
        model.add(begin(("B", j - 1)) >= begin(("B", j)) + dur[("B", j)])
    end_b0 = begin(("B", 0)) + dur[("B", 0)]
    for (p, t), literal in start.items():
        model.add(end_b0 >= t + dur[p]).only_enforce_if(literal)
    values = [("x", i) for i in range(L + 1)] + [("xbar", i) for i in range(1, L + 1)]
    size = {v: (x[v[1]] if v[0] == "x" else xb[v[1]]) for v in values}
    producers = {v: [] for v in values}
    for p in ops:
        name, s = p
        if name == "F":
            producers[("x", s + 1)].append(p)
        elif name == "Fall":
            producers[("xbar", s + 1)].append(p)
        elif name == "Pre":
            producers[("x", s)].append(p)
        elif name == "Preall":
            producers[("xbar", s)].append(p)
    held = {(v, t): model.new_bool_var(f"h_{v[0]}{v[1]}_{t}") for v in values for t in range(H)}
    ready = {(v, t): model.new_bool_var(f"r_{v[0]}{v[1]}_{t}") for v in values for t in range(H)}
    model.add(held[(("x", 0), 0)] == 1)
    model.add(ready[(("x", 0), 0)] == 1)
    explicit = {v: [] for v in values}  # explicit readers of xbar values
    for j in range(L):
        explicit[("xbar", j + 1)].append(("B", j))
    for i in range(1, L + 1):
        explicit[("xbar", i)].append(("Offall", i))
    for v in values:
        deadline.check("building the CP-SAT model")
        for t in range(H):
            h, r = held[(v, t)], ready[(v, t)]
            model.add_implication(r, h)
            creators = [start[(p, t)] for p in producers[v] if (p, t) in start]
            finished = [start[(p, t - dur[p])] for p in producers[v] if (p, t - dur[p]) in start]
            if not (v == ("x", 0) and t == 0):
                model.add_bool_or(([held[(v, t - 1)]] if t else []) + creators).only_enforce_if(h)
                model.add_bool_or(([ready[(v, t - 1)]] if t else []) + finished).only_enforce_if(r)
            for literal in creators:
                if t:
                    model.add_implication(literal, held[(v, t - 1)].Not())
            if v[0] == "xbar" and t + 1 < H:
                # drop only at the end of an explicit read (the definition's xbar span)
                ends_now = [start[(p, t + 1 - dur[p])] for p in explicit[v] if (p, t + 1 - dur[p]) in start]
                model.add_bool_or([held[(v, t + 1)], *ends_now]).only_enforce_if(h)
        for p in producers[v]:
            for t in range(H - dur[p] + 1):
                for u in range(t, t + dur[p]):
                    model.add_implication(start[(p, t)], held[(v, u)])
    # Reads.
    for p in ops:
        deadline.check("building the CP-SAT model")
        name, s = p
        for t in range(H - dur[p] + 1):
            literal = start[(p, t)]
            span = range(t, t + dur[p])
            needs = []
            if name == "B" and s < L:
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
                model.add(sum(starts(writer, 0, t - dur[writer])) >= 1).only_enforce_if(literal)
    # Streams and memory.
    compute = [p for p in ops if p[0] in ("F", "Fall", "B")]
    outs = [p for p in ops if p[0] in ("Off", "Offall")]
    ins = [p for p in ops if p[0] in ("Pre", "Preall")]
    channels = [outs + ins] if instance.duplex == "half" else [outs, ins]

    def started_by(j: int, t: int) -> list:
        return starts(("B", j), 0, t)

    def ended_by(j: int, t: int) -> list:
        return starts(("B", j), 0, t - dur[("B", j)])

    for t in range(H):
        deadline.check("building the CP-SAT model")
        model.add(sum(lit for p in compute for lit in running(p, t)) <= 1)
        for channel in channels:
            model.add(sum(lit for p in channel for lit in running(p, t)) <= 1)
        deltas = sum(size[("x", L)] * lit for lit in started_by(L, t)) - sum(
            size[("x", L)] * lit for lit in ended_by(L - 1, t)) if L >= 1 else 0
        for j in range(L - 1, 0, -1):
            deltas += sum(x[j] * lit for lit in started_by(j, t)) - sum(x[j] * lit for lit in ended_by(j - 1, t))
        deltas += sum(x[0] * lit for lit in started_by(0, t)) - sum(x[0] * lit for lit in ended_by(0, t))
        transients = sum((instance.btmp[p[1]] if p[0] == "B" else instance.ftmp[p[1]]) * lit
                         for p in compute for lit in running(p, t))
        model.add(sum(size[v] * held[(v, t)] for v in values) + deltas + transients <= instance.memory)
    # Lexicographic: makespan first, then fewest link operations (no useless copies in the answer).
    link_starts = [lit for (p, _), lit in start.items() if p[0] in ("Off", "Pre", "Offall", "Preall")]
    weight = len(link_starts) + 1
    model.minimize(weight * end_b0 + sum(link_starts))
    deadline.check("building the CP-SAT model")
    outcome = solve_cpsat(model, time_limit=deadline.remaining(), deterministic_time=params.deterministic_time,
                          workers=params.workers, seed=seed)
    notes = [f"time-indexed over H = {H} time units ({'known schedule' if params.horizon is None else 'option'})"]
    if not params.allow_recomputation:
        notes.append("no recomputation (each Fall once, no F): the offload-only question")
    horizon_proven = params.horizon is None or (proven_horizon is not None and params.horizon >= proven_horizon)
    if outcome.status is Status.INFEASIBLE:
        if horizon_proven and params.allow_recomputation:
            raise InfeasibleError("no two-level schedule fits the budget (CP-SAT over a proven horizon)")
        return Result(status=Status.NOT_APPLICABLE, notes=(*notes, f"no schedule within H = {H} in this class"))
    bound = float(int((outcome.bound + 1e-6) // weight)) if outcome.bound is not None and horizon_proven \
        and params.allow_recomputation else None
    if not outcome.has_solution:
        return Result(status=Status.TIME_LIMIT_NO_SOLUTION, bound=bound, solver=outcome.backend, notes=tuple(notes))
    # list order: by start; at equal starts compute before link operations (ops is in that order)
    timed = sorted(((t, ops.index(p), p) for (p, t), lit in start.items() if outcome.value(lit) > 0.5),
                   key=lambda item: (item[0], item[1]))
    solution = Solution(tuple(p for _, _, p in timed), tuple(t for t, _, _ in timed))
    optimal = outcome.status is Status.OPTIMAL and horizon_proven and params.allow_recomputation
    if outcome.status is Status.OPTIMAL and not optimal:
        notes.append("optimal within the restricted class / horizon only")
    status = Status.OPTIMAL if optimal else Status.FEASIBLE
    return Result(status=status, solution=solution, bound=bound, solver=outcome.backend, notes=tuple(notes))


__all__ = ["CpsatOffloadParams", "cpsat_offload", "known_horizon", "offload_horizon"]
