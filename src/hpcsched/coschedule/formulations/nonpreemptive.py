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
import time as clock
from typing import Any

from ...core.deadline import Deadline
from ...core.fields import require_int
from ...core.result import Result, Status
from ...solvers.cpsat import new_model, solve_cpsat
from ...solvers.outcome import Outcome
from ..model import Instance, evaluate
from .slabs import slabs_of_intervals, solution_from_slabs, time_slab_sequence

PROBLEM = "coschedule"
BRUTE_FORCE_LIMIT = 6


def _upper_bound(instance: Instance, deadline: Deadline) -> tuple[float, Any]:
    """A good non-preemptive schedule (makespan, solution) for big-M and warm start."""
    from ..heuristics import best_list_schedule, list_schedule, local_search

    if instance.n > LARGE_N:  # one LPT pass: the other candidates cost O(n^2) per event at this size
        solution = list_schedule(instance, sorted(range(instance.n), key=lambda k: -instance.kernels[k].duration))
        return evaluate(instance, solution)["makespan"], solution
    solution = best_list_schedule(instance)
    budget = deadline.remaining()
    if instance.n <= 150 and (budget is None or budget > 1.0):
        # A short, seeded local search (move count, not time: reproducible) tightens big-M;
        # at most a fifth of the time left, so the model still gets built and solved.
        searched = local_search(instance, max_moves=300, time_limit=30 if budget is None else min(30.0, budget / 5)).solution
        if evaluate(instance, searched)["makespan"] < evaluate(instance, solution)["makespan"]:
            solution = searched
    return evaluate(instance, solution)["makespan"], solution


#: Above this n the exact methods take a cheap start (LPT) and the trivial bound instead of the LP.
LARGE_N = 300


def _proven_bound(instance: Instance) -> float:
    from .. import bounds

    return bounds.best(instance) if instance.n <= LARGE_N else bounds.trivial(instance)


def _decode_intervals(instance: Instance, starts, ends, snap: float):
    sets = slabs_of_intervals(starts, ends, snap=snap)
    lengths = time_slab_sequence(instance, sets)
    if lengths is None:
        return None
    return solution_from_slabs(sets, lengths)


#: Relative gap under which HiGHS's proven MILP optimum stands against the re-timed makespan
#: (the registry's optimality gap). A bound above the makespan is never allowed (registry: 1e-9).
MILP_GAP = 1e-6
#: HiGHS feasibility and integrality tolerance of the MILP (default 1e-6). With big-M = U a binary
#: at 1e-6 relaxes a row by 1e-6 U: a 20-kernel Orion mix got a "bound" 0.108 above its true
#: optimum (issue 20, item 5). At 1e-9 the slack is 1e-9 U per row, and the bound is shaved by it.
MIP_TOLERANCE = 1e-9


def safe_mip_bound(dual_bound: float | None, n: int, big: float) -> float | None:
    """HiGHS's dual bound made safe against its tolerances.

    The MILP is solved with rows and integrality relaxed by `MIP_TOLERANCE`;
    a relaxed big-M row lets one interval slip by at most ``MIP_TOLERANCE x
    big`` (plus the row tolerance), and a chain of kernels at most n times
    that, each with its start, end and overlap rows: the bound is lowered by
    ``4 n MIP_TOLERANCE (big + 1)``. None stays None.
    """
    if dual_bound is None or not math.isfinite(dual_bound):
        return None
    return dual_bound - 4 * max(1, n) * MIP_TOLERANCE * (abs(big) + 1.0)


def _solve_highs(model: Any, *, time_limit: float | None, seed: int) -> Outcome:
    """Solve a PuLP MILP with HiGHS at `MIP_TOLERANCE` (gap 0); OPTIMAL only when HiGHS proved it.

    `hpcsched.solvers.milp.solve_pulp` runs HiGHS at its default 1e-6
    tolerances, too loose for the big-M rows here (see `MIP_TOLERANCE`).
    """
    import highspy
    import pulp

    from ...solvers.milp import DEFAULT_THREADS, version

    highspy.Highs.resetGlobalScheduler(True)  # see solvers.milp: one pool per process
    solver = pulp.HiGHS(
        msg=False,
        timeLimit=None if time_limit is None else max(1e-3, float(time_limit)),
        threads=DEFAULT_THREADS,
        gapRel=0.0,
        random_seed=int(seed) % 2147483647,
        mip_feasibility_tolerance=MIP_TOLERANCE,
        primal_feasibility_tolerance=MIP_TOLERANCE,
    )
    started = clock.perf_counter()
    try:
        model.solve(solver)
    except (pulp.PulpSolverError, ArithmeticError, IndexError, ValueError) as error:
        return Outcome(Status.ERROR, None, None, clock.perf_counter() - started, version("highs"), message=f"highs failed: {error}")
    runtime = clock.perf_counter() - started
    message = f"{pulp.LpStatus[model.status]} / {pulp.LpSolution[model.sol_status]}"
    if model.sol_status == pulp.LpSolutionOptimal:
        status = Status.OPTIMAL
    elif model.sol_status == pulp.LpSolutionIntegerFeasible:
        status = Status.FEASIBLE
    elif model.status == pulp.LpStatusInfeasible:
        status = Status.INFEASIBLE
    else:
        status = Status.TIME_LIMIT_NO_SOLUTION
    bound = None
    if getattr(model, "solverModel", None) is not None:
        dual = model.solverModel.getInfo().mip_dual_bound
        bound = float(dual) if math.isfinite(dual) else None
    return Outcome(
        status=status,
        objective=pulp.value(model.objective) if status.has_solution else None,
        bound=bound,
        runtime_s=runtime,
        backend=version("highs") + f" (mip_feasibility_tolerance {MIP_TOLERANCE:g})",
        value=(lambda variable: variable.value()) if status.has_solution else None,
        message=message,
    )


def _finish(method, instance, solution, backend_optimal: bool, bounds, backend, notes, gap: float = 0.0, proof_by_bound: bool = True):
    """The Result of a non-preemptive exact method for the schedule ``solution``.

    ``bounds`` are proven lower bounds (None entries skipped); the largest is
    reported, never clamped to the makespan: a bound above the validated
    makespan is a bug in the bound, and the registry turns it into ERROR.
    OPTIMAL is claimed when the backend proved its model optimal
    (``backend_optimal``) and the makespan is within ``gap`` of the bound,
    or, with ``proof_by_bound``, when the makespan meets a proven bound to
    1e-9 (``milp`` passes False: it claims OPTIMAL only on HiGHS's word).
    """
    makespan = evaluate(instance, solution)["makespan"]
    known = [b for b in bounds if b is not None]
    bound = max(known) if known else None
    met = proof_by_bound and bound is not None and makespan <= bound * (1 + 1e-9)
    if backend_optimal and not met:
        met = bound is not None and makespan <= bound * (1 + gap)
        if not met:
            notes = [*notes, f"backend proved its model optimal, but the re-timed makespan {makespan:.10g} is above the safe bound {bound}: FEASIBLE"]
    status = Status.OPTIMAL if met else Status.FEASIBLE
    return Result(PROBLEM, method, status, objective=makespan, bound=bound, solution=solution, solver=backend, notes=tuple(notes))


def _stream_pairs(instance: Instance) -> set[tuple[int, int]]:
    """Pairs (i < j) of one stream: ordered by the stream chain, no variables needed."""
    return {(min(a, b), max(a, b)) for stream in instance.streams for x, a in enumerate(stream) for b in stream[x + 1 :]}


def milp_nonpreemptive(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Non-preemptive MILP (HiGHS): start/end, overlap lengths, order and overlap binaries.

    Streams: consecutive stream-mates get E_a <= S_b; pairs of one stream get
    no pair variables (the chain orders them). The time limit covers the
    build: the deadline is checked in the pair and triple loops, HiGHS gets
    what is left, and when the limit passes first the best list schedule is
    returned (FEASIBLE, proven bound only). OPTIMAL only when HiGHS proved
    the MILP optimal; the bound is the larger of the preemptive LP, the
    longest stream and HiGHS's dual bound made safe (`safe_mip_bound`).
    """
    import pulp

    deadline = Deadline.after(time_limit)
    n = instance.n
    durations = instance.durations
    upper, fallback = _upper_bound(instance, deadline)
    proven = _proven_bound(instance)  # preemptive LP (shaved) or trivial, and the longest stream
    notes = [f"big-M = {upper:.6g} (best list schedule / local search)"]

    def out_of_time(phase: str) -> Result:
        return _finish(
            "milp", instance, fallback, False, [proven], None, [*notes, f"time limit reached while {phase}: best list schedule returned"], proof_by_bound=False
        )

    if deadline.expired():
        return out_of_time("computing big-M")
    big = upper
    model = pulp.LpProblem("coschedule_nonpreemptive", pulp.LpMinimize)
    start = [pulp.LpVariable(f"S_{i}", lowBound=0, upBound=upper) for i in range(n)]
    end = [pulp.LpVariable(f"E_{i}", lowBound=0, upBound=upper) for i in range(n)]
    makespan = pulp.LpVariable("C", lowBound=max(durations), upBound=upper)
    model += makespan
    overlap, together = {}, {}
    extra = [[] for _ in range(n)]
    chained = _stream_pairs(instance)
    for a, b in instance.precedences():
        model += end[a] <= start[b]
    for count, (i, j) in enumerate(itertools.combinations(range(n), 2)):
        if count % 256 == 0 and deadline.expired():
            return out_of_time("building the pair rows")
        if (i, j) in chained:
            continue
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
    partners = {i: sorted({b for a, b in together if a == i}) for i in range(n)}
    for i in range(n):
        if deadline.expired():
            return out_of_time("building the triple rows")
        for j in partners[i]:
            for k in partners[j]:
                if (i, k) in together:
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
    model += makespan >= proven
    if deadline.expired():
        return out_of_time("building the model")
    outcome = _solve_highs(model, time_limit=deadline.remaining(), seed=seed)
    solver_bound = safe_mip_bound(outcome.bound, n, big)
    notes.append(f"HiGHS {outcome.message}; dual bound {outcome.bound}, made safe: {solver_bound}")
    solution = None
    if outcome.has_solution:
        starts = [outcome.value(v) for v in start]
        ends = [outcome.value(v) for v in end]
        solution = _decode_intervals(instance, starts, ends, snap=1e-7 * upper)
        notes.append(f"MILP objective {outcome.objective}")
    if solution is None:
        notes.append(f"MILP returned no usable schedule ({outcome.message}); best list schedule returned")
        return _finish("milp", instance, fallback, False, [proven, solver_bound], outcome.backend, notes, proof_by_bound=False)
    if evaluate(instance, fallback)["makespan"] < evaluate(instance, solution)["makespan"]:
        solution = fallback
    return _finish(
        "milp", instance, solution, outcome.status is Status.OPTIMAL, [proven, solver_bound], outcome.backend, notes, MILP_GAP, proof_by_bound=False
    )


def cpsat_nonpreemptive(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, grid: int = 2000, **_: Any
) -> Result:
    """Non-preemptive CP-SAT on an integer time grid, re-timed exactly by the slab LP.

    Streams: consecutive stream-mates get E_a <= S_b on the grid (kept by the
    slab re-timing, which keeps the event order). The deadline is checked in
    the pair loop; CP-SAT gets the time left.
    """
    grid = require_int(grid, "options.grid", minimum=1)
    deadline = Deadline.after(time_limit)
    n = instance.n
    total = sum(instance.durations)
    tick = max(1, math.ceil(total / grid))
    ticks = [math.ceil(p / tick) for p in instance.durations]
    scale = 1000
    upper_real, fallback = _upper_bound(instance, deadline)
    proven = _proven_bound(instance)
    notes = [
        f"time grid: 1 tick = {tick} {instance.time_unit or 'units'}; durations rounded up, rates down to 1/{scale}; "
        "grid schedule re-timed exactly (slab LP)",
    ]

    def out_of_time(phase: str) -> Result:
        return _finish("cpsat", instance, fallback, False, [proven], None, [*notes, f"time limit reached while {phase}: best list schedule returned"])

    horizon = sum(ticks)
    model = new_model()
    start = [model.new_int_var(0, horizon, f"S_{i}") for i in range(n)]
    end = [model.new_int_var(0, horizon, f"E_{i}") for i in range(n)]
    length = [model.new_int_var(ticks[i], horizon, f"L_{i}") for i in range(n)]
    intervals = [model.new_interval_var(start[i], length[i], end[i], f"I_{i}") for i in range(n)]
    model.add_cumulative(intervals, [1] * n, 2)
    for a, b in instance.precedences():
        model.add(end[a] <= start[b])
    chained = _stream_pairs(instance)
    slowdown = [[] for _ in range(n)]
    overlaps = []
    for count, (i, j) in enumerate(itertools.combinations(range(n), 2)):
        if count % 256 == 0 and deadline.expired():
            return out_of_time("building the pair constraints")
        if (i, j) in chained:
            continue
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
    if deadline.expired():
        return out_of_time("building the model")
    outcome = solve_cpsat(model, time_limit=deadline.remaining(), seed=seed)
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
    # The grid optimum is not the original optimum: no solver bound, proven only by the LP / stream bound.
    return _finish("cpsat", instance, solution, False, [proven], outcome.backend, notes)


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


def respects_streams(instance: Instance, sets) -> bool:
    """True when, in the slab sequence, no kernel appears before its stream predecessor's last slab.

    The shared slab (both kernels) is allowed: stream-mates are not compatible,
    so the slab LP fixes its length to 0 (the successor starts as the
    predecessor ends).
    """
    if not instance.streams:
        return True
    first, last = {}, {}
    for position, kernels in enumerate(sets):
        for k in kernels:
            first.setdefault(k, position)
            last[k] = position
    return all(first[b] >= last[a] for a, b in instance.precedences())


def brute_force_nonpreemptive(instance: Instance, *, time_limit: float | None = None, seed: int = 0, **_: Any) -> Result:
    """Exact non-preemptive optimum by enumerating event sequences (n <= 6), each timed by an LP.

    Streams: sequences where a kernel appears before its stream predecessor's
    last slab are skipped (see `respects_streams`).
    """
    if instance.n > BRUTE_FORCE_LIMIT:
        return Result(PROBLEM, "brute-force", Status.NOT_APPLICABLE, notes=(f"n = {instance.n} > {BRUTE_FORCE_LIMIT}",))
    deadline = Deadline.after(time_limit)
    best, best_sets, best_lengths = math.inf, None, None
    for sets in nonpreemptive_sequences(instance.n):
        if deadline.expired():
            break
        if not respects_streams(instance, sets):
            continue
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
