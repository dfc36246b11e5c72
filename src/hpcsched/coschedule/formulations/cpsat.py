"""Non-preemptive CP-SAT on an integer time grid, re-timed exactly by the slab LP.

Time is discretized into ticks of length ``tick = ceil(Σp / grid)`` time
units (``grid`` option, default 2000 ticks for the serial schedule);
durations are rounded up to whole ticks and rates down to multiples of
1/1000, and the work constraint is an inequality (work done >= p). Overlaps
are o_ij = max(0, min(E) - max(S)); a cumulative of capacity 2 forbids
three kernels at once; incompatible pairs get o = 0.

Notes
-----
Why the grid schedule's event order is feasible for the real problem, and
why the grid optimum is no bound: ``docs/coschedule.md`` ("CP-SAT on a grid").
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result
from ...solvers.cpsat import new_model, solve_cpsat
from ..model import Instance, Solution, evaluate
from ..simulate import simulate_fixed_starts
from .common import decode_intervals, finish, proven_bound, stream_pairs, upper_bound

#: Rates are rounded down to multiples of 1 / RATE_SCALE.
RATE_SCALE = 1000
#: Pairs built between two deadline checks.
CHECK_EVERY = 256


@dataclass(frozen=True)
class CpsatParams:
    """Options of ``cpsat``.

    Attributes
    ----------
    grid
        Ticks of the serial schedule (Σp): one tick is ``ceil(Σp / grid)`` time units.
    """

    grid: int = 2000

    def __post_init__(self) -> None:
        at_least("grid", self.grid, 1)


class _GridModel:
    """The CP-SAT model on the grid, one method per constraint family."""

    def __init__(self, instance: Instance, tick: int, deadline: Deadline) -> None:
        self.instance = instance
        self.deadline = deadline
        self.tick = tick
        n = instance.n
        self.ticks = [math.ceil(p / tick) for p in instance.durations]
        self.horizon = horizon = sum(self.ticks)
        self.model = model = new_model()
        self.start = [model.new_int_var(0, horizon, f"S_{i}") for i in range(n)]
        self.end = [model.new_int_var(0, horizon, f"E_{i}") for i in range(n)]
        self.length = [model.new_int_var(self.ticks[i], horizon, f"L_{i}") for i in range(n)]
        self.intervals = [
            model.new_interval_var(self.start[i], self.length[i], self.end[i], f"I_{i}") for i in range(n)
        ]
        self.slowdown: list[list[tuple[int, Any]]] = [[] for _ in range(n)]
        self.overlaps: list[Any] = []

    def build(self, hint: Solution) -> None:
        self.model.add_cumulative(self.intervals, [1] * self.instance.n, 2)
        for a, b in self.instance.precedences():
            self.model.add(self.end[a] <= self.start[b])
        self.pair_constraints()
        self.work_and_makespan()
        # Hint: the heuristic schedule's starts on the grid (CP-SAT repairs it if the rounding breaks it).
        for segment in hint.segments:
            self.model.add_hint(self.start[segment.kernel], min(self.horizon, int(segment.start // self.tick)))
        self.deadline.check("building the model")

    def pair_constraints(self) -> None:
        chained = stream_pairs(self.instance)
        for count, (i, j) in enumerate(itertools.combinations(range(self.instance.n), 2)):
            if count % CHECK_EVERY == 0:
                self.deadline.check("building the pair constraints")
            if (i, j) in chained:
                continue
            if not self.instance.compatible(i, j):
                self.model.add_no_overlap([self.intervals[i], self.intervals[j]])
                continue
            self._overlap(i, j)

    def _overlap(self, i: int, j: int) -> None:
        model, horizon = self.model, self.horizon
        first_end = model.new_int_var(0, horizon, f"mE_{i}_{j}")
        last_start = model.new_int_var(0, horizon, f"MS_{i}_{j}")
        model.add_min_equality(first_end, [self.end[i], self.end[j]])
        model.add_max_equality(last_start, [self.start[i], self.start[j]])
        o = model.new_int_var(0, horizon, f"o_{i}_{j}")
        difference = model.new_int_var(-horizon, horizon, f"d_{i}_{j}")
        model.add(difference == first_end - last_start)
        model.add_max_equality(o, [difference, 0])
        self.overlaps.append(o)
        rate_ij, rate_ji = self.instance.rate(i, j), self.instance.rate(j, i)
        assert rate_ij is not None and rate_ji is not None  # compatible pairs are listed
        self.slowdown[i].append((RATE_SCALE - math.floor(RATE_SCALE * rate_ij), o))
        self.slowdown[j].append((RATE_SCALE - math.floor(RATE_SCALE * rate_ji), o))

    def work_and_makespan(self) -> None:
        model = self.model
        for i in range(self.instance.n):
            # Work at least p: solo ticks count fully, co-run ticks at the rounded-down rate.
            model.add(
                RATE_SCALE * self.length[i] - sum(c * o for c, o in self.slowdown[i]) >= RATE_SCALE * self.ticks[i]
            )
        self.makespan = model.new_int_var(max(self.ticks), self.horizon, "C")
        model.add_max_equality(self.makespan, self.end)
        # Valid cut: the union of the intervals (Σ lengths - Σ overlaps, at most two at once) fits in [0, C].
        model.add(sum(self.length) - sum(self.overlaps) <= self.makespan)
        model.minimize(self.makespan)


def cpsat(instance: Instance, /, *, time_limit: float, seed: int, params: CpsatParams | None) -> Result:
    """Non-preemptive CP-SAT on an integer time grid, re-timed exactly by the slab LP.

    Parameters
    ----------
    instance
        The instance. Streams: consecutive stream-mates get E_a <= S_b on the
        grid (kept by the slab re-timing, which keeps the event order).
    time_limit
        Seconds for the whole method: the deadline is checked in the pair
        loop; CP-SAT gets the time left.
    seed
        CP-SAT's random seed.
    params
        `CpsatParams` (None: the defaults).

    Returns
    -------
    Result
        The better of the re-timed grid schedule and the best list schedule;
        the bound is the preemptive LP / longest stream (the grid optimum is
        no bound), OPTIMAL only when the makespan meets it.
    """
    params = params or CpsatParams()
    deadline = Deadline.after(time_limit)
    tick = max(1, math.ceil(sum(instance.durations) / params.grid))
    _, fallback = upper_bound(instance, deadline)
    proven = proven_bound(instance)
    notes = [
        f"time grid: 1 tick = {tick} {instance.time_unit or 'units'}; "
        f"durations rounded up, rates down to 1/{RATE_SCALE}; "
        "grid schedule re-timed exactly (slab LP)",
    ]
    grid = _GridModel(instance, tick, deadline)
    try:
        grid.build(fallback)
    except TimeLimitReached as reached:
        notes.append(f"{reached}: best list schedule returned")
        return finish(instance, fallback, backend_optimal=False, lower_bounds=[proven], solver=None, notes=notes)
    outcome = solve_cpsat(grid.model, time_limit=deadline.remaining(), seed=seed)
    if outcome.has_solution:
        assert outcome.value is not None  # a solution comes with its values
        notes.append(
            f"CP-SAT {outcome.message} on the grid: {outcome.objective} ticks (bound {outcome.bound}), "
            "not a bound for the original"
        )
        starts = [outcome.value(v) for v in grid.start]
        ends = [outcome.value(v) for v in grid.end]
        solution = decode_intervals(instance, starts, ends, snap=0.0)
        if solution is None:
            solution = simulate_fixed_starts(instance, [s * tick for s in starts])
            notes.append("slab LP infeasible for the grid order; re-timed by fixed-start simulation")
    else:
        notes.append(f"CP-SAT found no grid schedule ({outcome.message}); best list schedule returned")
        solution = fallback
    if evaluate(instance, fallback)["makespan"] < evaluate(instance, solution)["makespan"]:
        solution = fallback
        notes.append("best list schedule was better than the re-timed grid schedule")
    # The grid optimum is not the original optimum: no solver bound, proven only by the LP / stream bound.
    return finish(instance, solution, backend_optimal=False, lower_bounds=[proven], solver=outcome.backend, notes=notes)
