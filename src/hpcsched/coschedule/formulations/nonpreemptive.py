"""Non-preemptive co-scheduling: MILP (HiGHS), CP-SAT on a time grid, brute force.

All three return one segment per kernel. Their schedules are decoded the
same way: the order of start and end events of the solver's intervals gives
a slab sequence, which the slab LP (`slabs.time_slab_sequence`) times
exactly; the best timing of a structure is never worse than the solver's
own, so the decoded makespan is at most the solver's objective (up to the
solver's tolerances). The lower bound reported is the larger of the
backend's bound (MILP only) and the preemptive LP optimum, which bounds every
non-preemptive schedule.

MILP (spec): start S_i, end E_i; for each pair i < j binaries f_ij (i starts
first), g_ij (i ends first) and, for compatible pairs, z_ij (they overlap)
with overlap length o_ij. With big-M = an upper bound U on the makespan,
o_ij equals min(E_i, E_j) - max(S_i, S_j) when z_ij = 1 (the four cases of
f, g select which end and which start), o_ij = 0 and the pair is in series
when z_ij = 0; incompatible pairs are always in series. Work identity:
E_i - S_i - Σ_j (1 - r_{i|j}) o_ij = p_i. No three kernels at one instant:
z_ij + z_jk + z_ik <= 2 (pairwise-intersecting intervals share a point,
Helly), which also makes "i runs at r_{i|j} during o_ij" exact.

CP-SAT (integer grid): time is discretized into ticks of length
``tick = ceil(Σp / grid)`` time units (``grid`` option, default 2000 ticks
for the serial schedule); durations are rounded up to whole ticks and rates
down to multiples of 1/1000, and the work constraint is an inequality
(work done >= p). Overlaps are o_ij = max(0, min(E) - max(S)); a cumulative
of capacity 2 forbids three kernels at once; incompatible pairs get o = 0.
Because the grid is pessimistic (longer kernels, slower co-runs), the grid
schedule's event order is feasible for the real problem; it is re-timed by
the slab LP. The CP-SAT optimum is optimal for the grid model only: the
result is reported OPTIMAL for the original instance only when the evaluated
makespan meets the proven lower bound (the preemptive LP).

Brute force (n <= 6): in an optimal non-preemptive schedule we may assume no
idle time and that, while one kernel runs alone with kernels still waiting,
the next kernel starts before the running one ends (a zero-length overlap
is allowed in the slab LP, so this loses nothing). Event sequences are then:
two starts, and after that alternately "one of the two running kernels ends"
and "a waiting kernel starts": n! 2^(n-1) sequences, each timed by the slab
LP; the minimum is the non-preemptive optimum.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from ...core.fields import require_int
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat
from ...solvers.milp import solve_pulp
from ..model import Instance, evaluate
from .preemptive import preemptive_optimum
from .slabs import slabs_of_intervals, solution_from_slabs, time_slab_sequence

PROBLEM = "coschedule"
BRUTE_FORCE_LIMIT = 6


def _upper_bound(instance: Instance) -> tuple[float, Any]:
    """A good non-preemptive schedule (makespan, solution) for big-M and warm start."""
    from ..heuristics import best_list_schedule, local_search

    solution = best_list_schedule(instance)
    if instance.n <= 150:
        # A short, seeded local search (move count, not time: reproducible) tightens big-M.
        searched = local_search(instance, max_moves=300, time_limit=30).solution
        if evaluate(instance, searched)["makespan"] < evaluate(instance, solution)["makespan"]:
            solution = searched
    return evaluate(instance, solution)["makespan"], solution


def _decode_intervals(instance: Instance, starts, ends, snap: float):
    sets = slabs_of_intervals(starts, ends, snap=snap)
    lengths = time_slab_sequence(instance, sets)
    if lengths is None:
        return None
    return solution_from_slabs(sets, lengths)


#: Relative slack of "the makespan meets the bound" after a proven MILP optimum: the MILP's own
#: feasibility tolerances (1e-6), the registry's tolerance too. Elsewhere the bound must be met to 1e-9.
MILP_TOLERANCE = 1e-6


def _finish(method, instance, solution, outcome_status, solver_bound, lp_bound, backend, notes, exact_model: bool):
    """The Result of a non-preemptive exact method for the schedule ``solution``.

    The bound is the best proven one, not clamped to the makespan: a bound
    above the validated makespan is a bug in the bound, and the registry
    turns it into ERROR instead of having it hidden here. OPTIMAL is claimed
    only when the makespan meets that bound (within 1e-9, or within the
    MILP's 1e-6 tolerances when the exact model proved its optimum).
    """
    makespan = evaluate(instance, solution)["makespan"]
    bounds = [b for b in (solver_bound, lp_bound) if b is not None]
    bound = max(bounds) if bounds else None
    tolerance = MILP_TOLERANCE if exact_model and outcome_status is Status.OPTIMAL else 1e-9
    met = bound is not None and makespan <= bound * (1 + tolerance)
    if exact_model and outcome_status is Status.OPTIMAL and not met:
        notes = [*notes, f"MILP proved optimal, but the re-timed makespan {makespan:.10g} is above the bound {bound}: FEASIBLE"]
    status = Status.OPTIMAL if met else Status.FEASIBLE
    return Result(PROBLEM, method, status, objective=makespan, bound=bound, solution=solution, solver=backend, notes=tuple(notes))


def milp_nonpreemptive(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Non-preemptive MILP (HiGHS): start/end, overlap lengths, order and overlap binaries."""
    import pulp

    n = instance.n
    durations = instance.durations
    upper, fallback = _upper_bound(instance)
    big = upper
    model = pulp.LpProblem("coschedule_nonpreemptive", pulp.LpMinimize)
    start = [pulp.LpVariable(f"S_{i}", lowBound=0, upBound=upper) for i in range(n)]
    end = [pulp.LpVariable(f"E_{i}", lowBound=0, upBound=upper) for i in range(n)]
    makespan = pulp.LpVariable("C", lowBound=max(durations), upBound=upper)
    model += makespan
    overlap, together = {}, {}
    extra = [[] for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        first = pulp.LpVariable(f"f_{i}_{j}", cat="Binary")
        ends_first = pulp.LpVariable(f"g_{i}_{j}", cat="Binary")
        model += start[i] - start[j] <= big * (1 - first)
        model += start[j] - start[i] <= big * first
        model += end[i] - end[j] <= big * (1 - ends_first)
        model += end[j] - end[i] <= big * ends_first
        if instance.compatible(i, j):
            z = pulp.LpVariable(f"z_{i}_{j}", cat="Binary")
            o = pulp.LpVariable(f"o_{i}_{j}", lowBound=0, upBound=upper)
            together[i, j], overlap[i, j] = z, o
            model += o <= big * z
            # No overlap: in series, in the order f says.
            model += end[i] <= start[j] + big * (1 - first) + big * z
            model += end[j] <= start[i] + big * first + big * z
            # Overlap: o is at most each end minus each start ...
            for a, b in ((i, j), (j, i), (i, i), (j, j)):
                model += o <= end[a] - start[b] + big * (1 - z)
            # ... and at least the first end minus the last start.
            model += o >= end[i] - start[j] - big * (3 - first - ends_first - z)
            model += o >= end[j] - start[j] - big * (2 - first + ends_first - z)
            model += o >= end[i] - start[i] - big * (2 + first - ends_first - z)
            model += o >= end[j] - start[i] - big * (1 + first + ends_first - z)
            extra[i].append((1 - instance.rate(i, j)) * o)
            extra[j].append((1 - instance.rate(j, i)) * o)
        else:
            model += end[i] <= start[j] + big * (1 - first)
            model += end[j] <= start[i] + big * first
    for i, j, k in itertools.combinations(range(n), 3):
        if (i, j) in together and (j, k) in together and (i, k) in together:
            model += together[i, j] + together[j, k] + together[i, k] <= 2
    for i in range(n):
        model += end[i] - start[i] - pulp.lpSum(extra[i]) == durations[i]
        model += makespan >= end[i]
        # Valid cut: i's overlaps with different partners are disjoint parts of its interval.
        mine = [o for (a, b), o in overlap.items() if i in (a, b)]
        if mine:
            model += pulp.lpSum(mine) <= end[i] - start[i]
    # Valid cut: busy time (union of the intervals) = Σ lengths - Σ overlaps <= C, which with the
    # work identity reads Σp - Σ (r_ij + r_ji - 1) o_ij <= C: the preemptive LP inside the MILP.
    model += sum(durations) - pulp.lpSum(
        (instance.rate(i, j) + instance.rate(j, i) - 1) * o for (i, j), o in overlap.items()
    ) <= makespan
    lp_value = preemptive_optimum(instance)  # None unless the LP proved its optimum
    if lp_value is not None:
        model += makespan >= lp_value * (1 - 1e-9)
    outcome = solve_pulp(model, time_limit=time_limit, seed=seed)
    lp_bound = lp_value
    notes = [f"big-M = {upper:.6g} (best list schedule / 300-move local search)"]
    solution = None
    if outcome.has_solution:
        starts = [outcome.value(v) for v in start]
        ends = [outcome.value(v) for v in end]
        solution = _decode_intervals(instance, starts, ends, snap=1e-7 * upper)
        notes.append(f"MILP {outcome.message}, objective {outcome.objective}")
    if solution is None:
        if outcome.status is Status.INFEASIBLE or not outcome.has_solution:
            notes.append(f"MILP returned no usable schedule ({outcome.message}); best list schedule returned")
        solution = fallback
        return _finish("milp", instance, solution, Status.FEASIBLE, outcome.bound, lp_bound, outcome.backend, notes, False)
    if evaluate(instance, fallback)["makespan"] < evaluate(instance, solution)["makespan"]:
        solution = fallback
    return _finish("milp", instance, solution, outcome.status, outcome.bound, lp_bound, outcome.backend, notes, True)


def cpsat_nonpreemptive(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, grid: int = 2000, **_: Any
) -> Result:
    """Non-preemptive CP-SAT on an integer time grid, re-timed exactly by the slab LP."""
    grid = require_int(grid, "options.grid", minimum=1)
    n = instance.n
    total = sum(instance.durations)
    tick = max(1, math.ceil(total / grid))
    ticks = [math.ceil(p / tick) for p in instance.durations]
    scale = 1000
    upper_real, fallback = _upper_bound(instance)
    horizon = sum(ticks)
    model = new_model()
    start = [model.new_int_var(0, horizon, f"S_{i}") for i in range(n)]
    end = [model.new_int_var(0, horizon, f"E_{i}") for i in range(n)]
    length = [model.new_int_var(ticks[i], horizon, f"L_{i}") for i in range(n)]
    intervals = [model.new_interval_var(start[i], length[i], end[i], f"I_{i}") for i in range(n)]
    model.add_cumulative(intervals, [1] * n, 2)
    slowdown = [[] for _ in range(n)]
    overlaps = []
    for i, j in itertools.combinations(range(n), 2):
        if not instance.compatible(i, j):
            model.add_no_overlap([intervals[i], intervals[j]])
            continue
        first_end = model.new_int_var(0, horizon, f"mE_{i}_{j}")
        last_start = model.new_int_var(0, horizon, f"MS_{i}_{j}")
        model.add_min_equality(first_end, [end[i], end[j]])
        model.add_max_equality(last_start, [start[i], start[j]])
        o = model.new_int_var(0, horizon, f"o_{i}_{j}")
        difference = model.new_int_var(-horizon, horizon, f"d_{i}_{j}")
        model.add(difference == first_end - last_start)
        model.add_max_equality(o, [difference, 0])
        overlaps.append(o)
        slowdown[i].append((scale - math.floor(scale * instance.rate(i, j)), o))
        slowdown[j].append((scale - math.floor(scale * instance.rate(j, i)), o))
    for i in range(n):
        # Work at least p: solo ticks count fully, co-run ticks at the rounded-down rate.
        model.add(scale * length[i] - sum(c * o for c, o in slowdown[i]) >= scale * ticks[i])
    makespan = model.new_int_var(max(ticks), horizon, "C")
    model.add_max_equality(makespan, end)
    # Valid cut: the union of the intervals (Σ lengths - Σ overlaps, at most two at once) fits in [0, C].
    model.add(sum(length) - sum(overlaps) <= makespan)
    model.minimize(makespan)
    # Hint: the heuristic schedule's starts on the grid (CP-SAT repairs it if the rounding breaks it).
    for segment in fallback.segments:
        model.add_hint(start[segment.kernel], min(horizon, int(segment.start // tick)))
    outcome = solve_cpsat(model, time_limit=time_limit, seed=seed)
    lp_bound = preemptive_optimum(instance)  # None unless the LP proved its optimum
    notes = [
        f"time grid: 1 tick = {tick} {instance.time_unit or 'units'}; durations rounded up, rates down to 1/{scale}; "
        "grid schedule re-timed exactly (slab LP)",
    ]
    if outcome.has_solution:
        notes.append(f"CP-SAT {outcome.message} on the grid: {outcome.objective} ticks (bound {outcome.bound}), not a bound for the original")
        starts = [outcome.value(v) for v in start]
        ends = [outcome.value(v) for v in end]
        solution = _decode_intervals(instance, starts, ends, snap=0.0)
        if solution is None:
            from ..simulate import simulate_fixed_starts

            solution = simulate_fixed_starts(instance, [s * tick for s in starts])
            notes.append("slab LP infeasible for the grid order; re-timed by fixed-start simulation")
    else:
        notes.append(f"CP-SAT found no grid schedule ({outcome.message}); best list schedule returned")
        solution = fallback
    if evaluate(instance, fallback)["makespan"] < evaluate(instance, solution)["makespan"]:
        solution = fallback
        notes.append("best list schedule was better than the re-timed grid schedule")
    # The grid optimum is not the original optimum: no solver bound, proven only by the LP bound.
    return _finish("cpsat", instance, solution, outcome.status, None, lp_bound, outcome.backend, notes, False)


def nonpreemptive_sequences(n: int):
    """Event sequences of the brute force, as slab sequences (see module doc)."""
    for order in itertools.permutations(range(n)):
        if n == 1:
            yield [(order[0],)]
            continue
        for ends in itertools.product((0, 1), repeat=n - 1):
            sets = [(order[0],)]
            running = [order[0], order[1]]
            sets.append(tuple(sorted(running)))
            for step in range(n - 1):
                survivor = running[1 - ends[step]]
                running = [survivor]
                sets.append((survivor,))
                if step + 2 < n:
                    running.append(order[step + 2])
                    sets.append(tuple(sorted(running)))
            yield sets


def brute_force_nonpreemptive(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Exact non-preemptive optimum by enumerating event sequences (n <= 6), each timed by an LP."""
    import time as clock

    if instance.n > BRUTE_FORCE_LIMIT:
        return Result(PROBLEM, "brute-force", Status.NOT_APPLICABLE, notes=(f"n = {instance.n} > {BRUTE_FORCE_LIMIT}",))
    started = clock.perf_counter()
    best, best_sets, best_lengths = math.inf, None, None
    for sets in nonpreemptive_sequences(instance.n):
        if time_limit is not None and clock.perf_counter() - started > time_limit:
            break
        lengths = time_slab_sequence(instance, sets)
        if lengths is not None and (best_sets is None or sum(lengths) < best - 1e-12 * best):
            best, best_sets, best_lengths = sum(lengths), sets, lengths
    else:
        solution = solution_from_slabs(best_sets, best_lengths)
        return Result(PROBLEM, "brute-force", Status.OPTIMAL, objective=best, bound=evaluate(instance, solution)["makespan"], solution=solution)
    solution = solution_from_slabs(best_sets, best_lengths) if best_sets else None
    return Result(
        PROBLEM,
        "brute-force",
        Status.FEASIBLE if solution else Status.TIME_LIMIT_NO_SOLUTION,
        objective=best if solution else None,
        solution=solution,
        notes=("time limit reached before all sequences were timed",),
    )
