"""Exact methods: CP-SAT, a disjunctive MILP, a dynamic program and brute force over order pairs.

All four optimize over *all* schedules: the compute order may differ from
the transfer order (unlike the heuristics, which are permutation schedules).

``cpsat``
    Intervals T_i = [s_i, s_i + c_i) and P_i = [t_i, t_i + p_i), a memory
    interval R_i = [s_i, t_i + p_i) of variable length, NoOverlap(T),
    NoOverlap(P), Cumulative(R, m, M), t_i ≥ s_i + c_i, minimize C ≥ t_i + p_i.
    Zero-length operations are left out of the NoOverlap constraints (CP-SAT
    forbids a zero-size interval strictly inside another one, while the
    definition lets an empty operation overlap nothing). Options (on by
    default except ``conflicts``, which the benchmark found to slow CP-SAT
    down; the benchmark switches them one by one):

    * ``lower_bound`` — C ≥ `bounds.best` (Johnson, memory-area and clique
      bounds), and the reported bound is at least that; with ``warm_start``,
      a warm-start schedule that meets the bound is returned as OPTIMAL
      without calling the solver (the bound proves it);
    * ``warm_start`` — the best heuristic (`incumbent`: the static and
      dynamic rules, NEH for n ≤ 100, and iterated greedy for ``warm_start_seconds``,
      default 20 % of the time limit up to 10 s, or until 20 n iterations
      bring nothing; skipped when a rule already meets the bound) gives the horizon (every start ≤ its makespan) and a
      solution hint; without it the horizon is Σ (c_i + p_i). The time limit
      covers the warm start and the solve together;
    * ``conflicts`` — redundant NoOverlap constraints on the holding
      intervals of tasks that never fit together (m_i + m_j > M): one over
      the "big" tasks (2 m > M, pairwise in conflict) and one per smaller task
      k over k and the big tasks it conflicts with (cliques of the threshold
      conflict graph, see `bounds`). The Cumulative implies them, but its
      propagation with variable-length intervals is weak, while NoOverlap's
      disjunctive reasoning (edge finding) is strong — in theory: on the
      benchmark it made CP-SAT slower, so it is off by default;
    * ``symmetry`` — for identical tasks i < j (same c, p, m):
      s_i ≤ s_j and t_i ≤ t_j. Safe: if s_i ≤ s_j but t_i > t_j, exchanging
      the two computations keeps every constraint (t_j ≥ s_j + c ≥ s_i + c,
      t_i > t_j ≥ s_j + c) and leaves the memory profile unchanged (the two
      holding intervals [s_i, t_j+p) and [s_j, t_i+p) cover each instant as
      often as the originals), and renaming identical tasks orders the
      transfers.
    * ``probe_seconds`` (default 0, off) — before the optimization, the same
      model with every horizon cut to `bounds.best` and C ≤ that bound, as a
      feasibility solve for that many seconds (``None``: 25 % of the time
      limit). A schedule there meets the bound, hence is optimal; a proof of
      infeasibility means C ≥ bound + 1, which the reported bound keeps.
      The round-2 benchmark found it undecided on every instance it tried
      (uniform 1.5x, n = 30–50), so it is off;
    * ``parameters`` — extra CP-SAT ``SatParameters`` (e.g. ``subsolvers``).

``milp``
    Disjunctive MILP (PuLP, HiGHS by default, ``backend="cbc"`` possible):
    z_ij = 1 if transfer i starts before transfer j (z_ji = 1 − z_ij),
    y_ij the same for computations, w_ij = 1 if i has finished by s_j
    (w_ij ≤ z_ij, t_i + p_i ≤ s_j + H(1 − w_ij)). Memory row per task j:
    m_j + Σ_{i≠j} m_i (z_ij − w_ij) ≤ M — the held total only rises at
    transfer starts, so checking it there is exact (a task released before
    s_j may set w_ij = 1; one not released cannot). Starts are integer
    variables (the data are integers).

    * Big-M H is the makespan of the warm-start schedule (`incumbent`), an
      upper bound on the optimum, so restricting every schedule to [0, H]
      loses no optimum; not Σ. That schedule is also returned when the
      backend's incumbent is worse or missing (it is a feasible point of the
      model; the PuLP adapter passes no MIP start).
    * Pairs with an empty transfer (c = 0) get two indicators
      z_ij = [s_i ≤ s_j] and z_ji = [s_j ≤ s_i] with z_ij + z_ji ≥ 1 instead
      of the disjunction: equal starts count both ways (a single "before"
      binary would let three tied starts form a cycle that hides memory).
      Empty computations are left out of the device disjunctions.
    * Options: ``lower_bound`` (C ≥ `bounds.best`; a warm-start schedule
      meeting it is returned as OPTIMAL without a solve), ``symmetry``
      (identical tasks: z_ij = y_ij = 1 for i < j, safe by the argument
      above), ``conflicts`` (on by default: w_ij + w_ji ≥ 1 for pairs that
      never fit together — one must be released before the other starts;
      the memory rows imply it only through big-M), ``backend``.

``dp``
    Dynamic program over the simulator's placement sequences, with dominance
    between partial schedules and a completion bound (n ≤ 25; see
    `solve_dp`). It proves instances whose optimum lies above every lower
    bound, which CP-SAT's search does not beyond n ≈ 12.

``brute-force``
    Every transfer order π × every compute order σ (n ≤ 6), each run through
    the earliest-start `Simulator`; stops early when the lower bound is met.

    Why this is exact. Every simulated schedule is feasible, so the minimum
    is ≥ the optimum. Conversely take any feasible schedule S; let π sort the
    tasks by s_i and σ by (t_i, t_i + p_i, position in π). Following the
    simulator's sequence of placements, every operation starts no later than
    in S (induction): a computation waits only for its transfer and, if it
    has positive length, for the previous positive-length computation in σ,
    both no later than in S. A transfer of task j waits for the previous
    transfer in π and for memory: the tasks counted as held are the
    π-earlier ones not yet released; those whose computation is placed are
    released no later than in S, and those whose computation is not yet
    placed come after a task in σ whose transfer is π-at-or-after j, hence
    (by the order chosen for σ) are still held at s_j in S. So at time s_j
    the simulator sees at most the bytes S holds at s_j, and m_j fits: the
    simulator starts j at or before s_j. Hence the simulated schedule of
    (π, σ) has makespan ≤ that of S, and the minimum over all order pairs is
    the optimum. (Zero-length operations occupy no machine in the simulator,
    as in the definition; that is what the induction needs.)
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
import typing

from ..core.deadline import Deadline, TimeLimitReached
from ..core.result import Result, Status
from ..solvers.cpsat import new_model, solve_cpsat
from ..solvers.milp import solve_pulp
from . import bounds
from .heuristics import NEH_MAX_N, best_constructive, iterated_greedy, neh
from .model import Instance, Solution, makespan_of, require_fits
from .simulate import Simulator, johnson_order

PROBLEM = "transfers"
BRUTE_FORCE_MAX_N = 6


WARM_START_STALL = 20  # iterations per task without improvement before the warm-start search stops


def incumbent(instance: Instance, search_seconds: float = 0.0, seed: int = 0) -> tuple[str, Solution, int]:
    """Best heuristic schedule for the warm start and the horizon / big-M:
    the best static or dynamic rule, NEH when n <= `NEH_MAX_N`, and iterated
    greedy from there for ``search_seconds`` (seeded) when that is positive,
    stopped earlier after 20 n iterations without improvement (on small
    instances it would otherwise take the solver's time for nothing)."""
    name, _, solution, value = best_constructive(instance)
    if value <= bounds.best(instance):
        return name, solution, value
    if search_seconds > 0:
        improved = iterated_greedy(instance, time_limit=search_seconds, seed=seed, stall=WARM_START_STALL * instance.n)
    elif instance.n <= NEH_MAX_N:
        improved = neh(instance)
    else:
        return name, solution, value
    if improved.objective < value:
        name, solution, value = improved.method, improved.solution, int(improved.objective)
    return name, solution, value


def _warm_start_seconds(option: float | None, time_limit: float | None) -> float:
    """Search time of the warm start: the option, else 20 % of the time limit (at most 10 s; 5 s without limit)."""
    if option is not None:
        return float(option)
    return 5.0 if time_limit is None else min(10.0, 0.2 * float(time_limit))


def _proven_by_bound(instance: Instance, method: str, name: str, solution: Solution, value: int) -> Result | None:
    """OPTIMAL without a solve when the warm-start schedule already meets `bounds.best`."""
    lower = bounds.best(instance)
    if value > lower:
        return None
    return Result(PROBLEM, method, Status.OPTIMAL, objective=value, bound=lower, solution=solution,
                  notes=(f"the warm-start schedule of {name} meets the lower bound {lower}: no solve needed",))


def _out_of_time(instance: Instance, method: str, name: str, solution: Solution, value: int, notes: list[str],
                 phase: str) -> Result:
    """The warm-start schedule (FEASIBLE) with `bounds.best`, when the limit passes before the backend ends."""
    return Result(PROBLEM, method, Status.FEASIBLE, objective=value, bound=bounds.best(instance), solution=solution,
                  notes=(*notes, f"time limit reached while {phase}: returning the warm-start schedule of {name}"))


def _retimed(instance: Instance, transfer_start: list[int], compute_start: list[int]) -> Solution:
    """The earliest-start schedule of the orders of a backend's schedule.

    The transfer order π sorts the tasks by s_i and the compute order σ by
    (t_i, t_i + p_i, position in π); the simulator's schedule of (π, σ) is
    feasible by construction and, when the backend's schedule is feasible, no
    later (the argument of ``brute-force``). A MILP's values are doubles
    within HiGHS' tolerances: with a big-M H, a binary that is 1e-6 off
    integrality relaxes a disjunction by 1e-6 H time units, so rounding the
    starts alone can overlap two operations or overfill memory; re-timing the
    orders cannot.
    """
    simulator = Simulator(instance)
    order = sorted(range(instance.n), key=lambda i: (transfer_start[i], i))
    position = {task: k for k, task in enumerate(order)}
    compute_order = sorted(range(instance.n), key=lambda i: (compute_start[i], compute_start[i] + instance.tasks[i].compute,
                                                             position[i]))
    solution = simulator.schedule(order, compute_order)
    return solution if solution is not None else simulator.schedule(order, order)


def identical_groups(instance: Instance) -> list[list[int]]:
    """Groups (of size ≥ 2) of tasks with equal transfer, compute and memory."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, task in enumerate(instance.tasks):
        groups.setdefault((task.transfer, task.compute, task.memory), []).append(i)
    return [members for members in groups.values() if len(members) > 1]


def _finish(
    instance: Instance,
    method: str,
    outcome,
    transfer_start: list[int] | None,
    compute_start: list[int] | None,
    use_lower_bound: bool,
    notes: list[str],
    fallback: Solution | None = None,
    bound_slack: float = 0.0,
) -> Result:
    """Turn a backend Outcome into a Result (bound combined with our bounds if asked).

    ``bound_slack``: how far the backend's dual bound may lie above the true
    optimum because of its tolerances (the MILP's big-M rows); it is
    subtracted before the integer rounding.
    """
    bound = outcome.bound
    if bound is not None and math.isfinite(bound):
        bound = math.ceil(bound - 1e-6 - bound_slack)  # integer makespan: a fractional bound rounds up
    else:
        bound = None
    if use_lower_bound:
        best = bounds.best(instance)
        bound = best if bound is None else max(bound, best)
    status = outcome.status
    if not outcome.has_solution or transfer_start is None:
        if fallback is None or status is not Status.TIME_LIMIT_NO_SOLUTION:
            status = status if status is not Status.OPTIMAL else Status.ERROR
            return Result(PROBLEM, method, status, bound=bound, solver=outcome.backend,
                          notes=(*notes, f"backend: {outcome.message}"))
        # The heuristic schedule that set the horizon is a feasible point of the model.
        solution, status = fallback, Status.FEASIBLE
        notes.append("backend found no incumbent in time: returning the heuristic schedule of the horizon")
    else:
        solution = Solution(tuple(transfer_start), tuple(compute_start))
        if fallback is not None and makespan_of(instance, fallback) < makespan_of(instance, solution):
            solution = fallback  # a feasible point of the model, better than the backend's incumbent
            notes.append("the heuristic schedule of the horizon beats the backend incumbent: returned instead")
    objective = makespan_of(instance, solution)
    if status is Status.FEASIBLE and bound is not None and objective <= bound:
        status = Status.OPTIMAL
        notes.append("objective meets the lower bound")
    return Result(PROBLEM, method, status, objective=objective, bound=bound, solution=solution,
                  solver=outcome.backend, notes=(*notes, f"backend: {outcome.message}"))


def conflict_cliques(instance: Instance) -> list[list[int]]:
    """Cliques (size ≥ 2) covering every conflicting pair (m_i + m_j > M) of the threshold graph."""
    capacity, memory = instance.capacity, instance.memory
    big = [i for i in range(instance.n) if 2 * memory[i] > capacity]
    cliques = [big] if len(big) > 1 else []
    for k in range(instance.n):
        if 2 * memory[k] <= capacity:
            partners = [i for i in big if memory[i] + memory[k] > capacity]
            if partners:
                cliques.append([k, *partners])
    return cliques


def _build_cpsat(instance: Instance, horizon: int, lowest: int, conflicts: bool, symmetry: bool,
                 heuristic: Solution | None):
    """The CP-SAT model with every start in [0, horizon] and C in [lowest, horizon]."""
    tasks = instance.tasks
    model = new_model()
    transfer_start, compute_start, link, device, holding, holding_time = [], [], [], [], [], []
    for i, task in enumerate(tasks):
        s = model.new_int_var(0, horizon - task.transfer - task.compute, f"s{i}")
        t = model.new_int_var(task.transfer, horizon - task.compute, f"t{i}")
        model.add(t >= s + task.transfer)
        if task.transfer:
            link.append(model.new_fixed_size_interval_var(s, task.transfer, f"T{i}"))
        if task.compute:
            device.append(model.new_fixed_size_interval_var(t, task.compute, f"P{i}"))
        held = model.new_int_var(task.transfer + task.compute, horizon, f"r{i}")
        holding.append(model.new_interval_var(s, held, t + task.compute, f"R{i}"))
        holding_time.append(held)
        transfer_start.append(s)
        compute_start.append(t)
    model.add_no_overlap(link)
    model.add_no_overlap(device)
    if sum(task.memory for task in tasks) > instance.capacity:  # else memory cannot bind
        model.add_cumulative(holding, [task.memory for task in tasks], instance.capacity)
    if conflicts:
        for clique in conflict_cliques(instance):
            model.add_no_overlap([holding[i] for i in clique])
    makespan = model.new_int_var(lowest, horizon, "C")
    for i, task in enumerate(tasks):
        model.add(makespan >= compute_start[i] + task.compute)
    if symmetry:
        for group in identical_groups(instance):
            for a, b in zip(group, group[1:]):
                model.add(transfer_start[a] <= transfer_start[b])
                model.add(compute_start[a] <= compute_start[b])
    if heuristic is not None:
        for i in range(instance.n):
            model.add_hint(transfer_start[i], heuristic.transfer_start[i])
            model.add_hint(compute_start[i], heuristic.compute_start[i])
            # a complete hint: CP-SAT repairs or ignores a partial one
            model.add_hint(holding_time[i], heuristic.compute_start[i] + tasks[i].compute - heuristic.transfer_start[i])
        model.add_hint(makespan, makespan_of(instance, heuristic))
    model.minimize(makespan)
    return model, transfer_start, compute_start


def _starts(outcome, transfer_start, compute_start):
    return [int(outcome.value(v)) for v in transfer_start], [int(outcome.value(v)) for v in compute_start]


def solve_cpsat_model(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    lower_bound: bool = True,
    conflicts: bool = False,
    warm_start: bool = True,
    symmetry: bool = True,
    warm_start_seconds: float | None = None,
    probe_seconds: float | None = 0.0,
    workers: int = 2,
    log: bool = False,
    parameters: dict | None = None,
    **options,
) -> Result:
    """CP-SAT: intervals, NoOverlap on link and device, Cumulative memory; minimize makespan."""
    require_fits(instance)
    tasks = instance.tasks
    notes = [f"options: lower_bound={lower_bound}, warm_start={warm_start}, symmetry={symmetry}, conflicts={conflicts}, "
             f"probe_seconds={probe_seconds}"]
    deadline = Deadline.after(time_limit)
    if warm_start:
        search = min(_warm_start_seconds(warm_start_seconds, time_limit), deadline.remaining() or math.inf)
        heuristic_name, heuristic, horizon = incumbent(instance, search, seed)
        notes.append(f"hint and horizon from {heuristic_name} ({horizon})")
        if lower_bound and (proven := _proven_by_bound(instance, "cpsat", heuristic_name, heuristic, horizon)):
            return proven
        if deadline.expired():
            return _out_of_time(instance, "cpsat", heuristic_name, heuristic, horizon, notes, "warm-starting")
    else:
        heuristic, horizon = None, sum(t.transfer + t.compute for t in tasks)
        deadline.check("starting the CP-SAT model")
    lowest = bounds.best(instance) if lower_bound else 0
    probe = _probe_seconds(probe_seconds, time_limit) if lower_bound else 0.0
    if probe > 0 and lowest < horizon:
        # Probe: is there a schedule with C <= the lower bound? With the horizon cut down to the
        # bound every start window shrinks, so propagation is much stronger than in the full
        # model. Feasible: optimal (the bound proves it). Infeasible: the bound rises by one.
        model, transfer_start, compute_start = _build_cpsat(instance, lowest, lowest, conflicts, symmetry, None)
        if deadline.expired():
            if heuristic is None:
                deadline.check("building the probe model")
            return _out_of_time(instance, "cpsat", heuristic_name, heuristic, horizon, notes, "building the probe model")
        probe = min(probe, deadline.remaining() or math.inf)
        outcome = solve_cpsat(model, time_limit=probe, workers=workers, seed=seed, log=log, parameters=parameters)
        if outcome.has_solution:
            notes.append(f"probe at C <= {lowest}: a schedule meets the lower bound")
            return _finish(instance, "cpsat", outcome, *_starts(outcome, transfer_start, compute_start), lower_bound,
                           notes, fallback=heuristic)
        if outcome.status is Status.INFEASIBLE:
            notes.append(f"probe at C <= {lowest}: infeasible, so C >= {lowest + 1}")
            lowest += 1
        else:
            notes.append(f"probe at C <= {lowest}: undecided in {probe:g} s")
    model, transfer_start, compute_start = _build_cpsat(instance, horizon, lowest, conflicts, symmetry, heuristic)
    if deadline.expired():
        if heuristic is None:
            deadline.check("building the CP-SAT model")
        return _out_of_time(instance, "cpsat", heuristic_name, heuristic, horizon, notes, "building the CP-SAT model")
    outcome = solve_cpsat(model, time_limit=deadline.remaining(), workers=workers, seed=seed, log=log,
                          parameters=parameters)
    starts = _starts(outcome, transfer_start, compute_start) if outcome.has_solution else (None, None)
    result = _finish(instance, "cpsat", outcome, *starts, lower_bound, notes, fallback=heuristic)
    if result.bound is not None and result.bound < lowest:  # the probe's proof is not in CP-SAT's bound
        result = dataclasses.replace(result, bound=lowest)
        if result.objective is not None and result.objective <= lowest:
            result = dataclasses.replace(result, status=Status.OPTIMAL)
    return result


def _probe_seconds(option: float | None, time_limit: float | None) -> float:
    """Time of the probe at C <= bound: the option, else 25 % of the time limit (10 s without limit)."""
    if option is not None:
        return float(option)
    return 10.0 if time_limit is None else 0.25 * float(time_limit)


def solve_milp(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    backend: str = "highs",
    lower_bound: bool = True,
    symmetry: bool = True,
    conflicts: bool = True,
    warm_start_seconds: float | None = None,
    threads: int = 2,
    **options,
) -> Result:
    """Disjunctive MILP (z, y, w binaries, memory row per task) on PuLP + HiGHS or CBC."""
    import pulp

    require_fits(instance)
    tasks, n = instance.tasks, instance.n
    deadline = Deadline.after(time_limit)
    search = min(_warm_start_seconds(warm_start_seconds, time_limit), deadline.remaining() or math.inf)
    heuristic_name, heuristic, horizon = incumbent(instance, search, seed)
    if lower_bound and (proven := _proven_by_bound(instance, "milp", heuristic_name, heuristic, horizon)):
        return proven
    notes = [f"big-M = {horizon} from {heuristic_name}; options: lower_bound={lower_bound}, symmetry={symmetry}, "
             f"conflicts={conflicts}"]
    largest = max(horizon + 1, instance.capacity)
    if largest > MILP_LARGEST_COEFFICIENT:
        # HiGHS refuses a model with a coefficient or bound beyond 1e15 (PuLP then fails with an
        # IndexError); well before that its 1e-6 tolerances times the big-M exceed one time unit.
        notes.append(f"big-M or capacity {largest} > {MILP_LARGEST_COEFFICIENT:.0e}: beyond the numerical range of "
                     "the MILP backend, no solve; returning the warm-start schedule")
        return Result(PROBLEM, "milp", Status.FEASIBLE, objective=horizon, bound=bounds.best(instance),
                      solution=heuristic, notes=tuple(notes))
    if deadline.expired():
        return _out_of_time(instance, "milp", heuristic_name, heuristic, horizon, notes, "warm-starting")
    try:
        problem, s, t = _build_milp(instance, horizon, lower_bound, symmetry, conflicts, deadline)
    except TimeLimitReached as reached:
        return _out_of_time(instance, "milp", heuristic_name, heuristic, horizon, notes, str(reached).split(" while ")[-1])
    if deadline.expired():
        return _out_of_time(instance, "milp", heuristic_name, heuristic, horizon, notes, "building the MILP")
    outcome = solve_pulp(problem, backend=backend, time_limit=deadline.remaining(), threads=threads, seed=seed)
    starts = (None, None)
    if outcome.has_solution:
        retimed = _retimed(instance, [round(outcome.value(v)) for v in s], [round(outcome.value(v)) for v in t])
        starts = (list(retimed.transfer_start), list(retimed.compute_start))
    result = _finish(instance, "milp", outcome, *starts, lower_bound, notes, fallback=heuristic,
                     bound_slack=MILP_TOLERANCE * horizon)
    if result.status is Status.OPTIMAL and (result.bound is None or result.objective > result.bound):
        # the backend's optimum was within its tolerances of a schedule the re-timing could not match
        result = dataclasses.replace(result, status=Status.FEASIBLE,
                                     notes=(*result.notes, "backend optimal, but its schedule re-timed exactly is "
                                                           "above the bound: FEASIBLE"))
    return result


#: HiGHS' largest matrix coefficient / bound (its ``large_matrix_value`` is 1e15); the MILP stays below it.
MILP_LARGEST_COEFFICIENT = 10**15
#: HiGHS' MIP feasibility (integrality) tolerance: a binary may sit this far from 0 or 1, which relaxes a
#: big-M row by this times H. The dual bound is lowered by that much before it is rounded up.
MILP_TOLERANCE = 1e-6


def _build_milp(instance: Instance, horizon: int, lower_bound: bool, symmetry: bool, conflicts: bool,
                deadline: Deadline):
    """The disjunctive MILP (see the module docstring) with big-M ``horizon``; checks ``deadline`` while it builds."""
    import pulp

    tasks, n = instance.tasks, instance.n
    problem = pulp.LpProblem("transfers", pulp.LpMinimize)
    s = [problem.add_variable(f"s{i}", 0, horizon - t.transfer - t.compute, cat="Integer") for i, t in enumerate(tasks)]
    t = [problem.add_variable(f"t{i}", task.transfer, horizon - task.compute, cat="Integer") for i, task in enumerate(tasks)]
    makespan = problem.add_variable("C", bounds.best(instance) if lower_bound else 0, horizon)
    problem += makespan
    c = [task.transfer for task in tasks]
    p = [task.compute for task in tasks]
    m = [task.memory for task in tasks]
    for i in range(n):
        problem += t[i] >= s[i] + c[i]
        problem += makespan >= t[i] + p[i]
    identical = {}
    if symmetry:
        for group in identical_groups(instance):
            for a, b in itertools.combinations(group, 2):
                identical[(a, b)] = True
    before: dict[tuple[int, int], object] = {}  # (i, j) -> expression equal to z_ij
    for i, j in itertools.combinations(range(n), 2):
        if j == i + 1:
            deadline.check("building the MILP (disjunctions)")
        if c[i] > 0 and c[j] > 0:
            if (i, j) in identical:
                z_ij = 1  # identical tasks go in index order on both machines (see module docstring)
            else:
                z_ij = problem.add_variable(f"z_{i}_{j}", cat="Binary")
            before[(i, j)], before[(j, i)] = z_ij, 1 - z_ij
            problem += s[j] >= s[i] + c[i] - horizon * (1 - z_ij)
            problem += s[i] >= s[j] + c[j] - horizon * z_ij
        else:
            # An empty transfer overlaps nothing, so two starts may coincide; then both
            # tasks count in each other's memory row: z_ij = 1 iff s_i <= s_j (integers).
            z_ij = problem.add_variable(f"z_{i}_{j}", cat="Binary")
            z_ji = problem.add_variable(f"z_{j}_{i}", cat="Binary")
            before[(i, j)], before[(j, i)] = z_ij, z_ji
            problem += z_ij + z_ji >= 1
            problem += s[i] <= s[j] + horizon * (1 - z_ij)
            problem += s[j] <= s[i] + horizon * (1 - z_ji)
            problem += s[i] >= s[j] + 1 - (horizon + 1) * z_ij
            problem += s[j] >= s[i] + 1 - (horizon + 1) * z_ji
        if p[i] > 0 and p[j] > 0:
            y_ij = 1 if (i, j) in identical else problem.add_variable(f"y_{i}_{j}", cat="Binary")
            problem += t[j] >= t[i] + p[i] - horizon * (1 - y_ij)
            problem += t[i] >= t[j] + p[j] - horizon * y_ij
    if sum(m) > instance.capacity:  # otherwise everything fits together: no memory row binds
        finished = {}
        for i, j in itertools.permutations(range(n), 2):
            if j == 0 or (i == 0 and j == 1):
                deadline.check("building the MILP (memory rows)")
            w_ij = finished[(i, j)] = problem.add_variable(f"w_{i}_{j}", cat="Binary")
            problem += w_ij <= before[(i, j)]
            problem += t[i] + p[i] <= s[j] + horizon * (1 - w_ij)
        for j in range(n):
            held = [m[i] * (before[(i, j)] - finished[(i, j)]) for i in range(n) if i != j]
            problem += m[j] + pulp.lpSum(held) <= instance.capacity
        if conflicts:
            for i, j in itertools.combinations(range(n), 2):
                if m[i] + m[j] > instance.capacity:
                    problem += finished[(i, j)] + finished[(j, i)] >= 1
    return problem, s, t


def brute_force(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    max_n: int = BRUTE_FORCE_MAX_N,
    stop_at_bound: bool = True,
    **options,
) -> Result:
    """Every transfer order x every compute order through the simulator (n <= 6).

    ``stop_at_bound=False`` enumerates every pair even after reaching
    `bounds.best`, for checks that must not lean on the bounds.
    """
    require_fits(instance)
    if instance.n > max_n:
        return Result(PROBLEM, "brute-force", Status.NOT_APPLICABLE,
                      notes=(f"n = {instance.n} > {max_n}: (n!)^2 order pairs is too many",))
    started = time.perf_counter()
    simulator = Simulator(instance)
    lower = bounds.best(instance) if stop_at_bound else -math.inf
    best_value, best_pair = math.inf, None
    stopped_early = timed_out = False
    orders = list(itertools.permutations(range(instance.n)))
    for transfer_order in orders:
        for compute_order in orders:
            value = simulator.makespan(transfer_order, compute_order)
            if value < best_value:
                best_value, best_pair = value, (transfer_order, compute_order)
                if best_value <= lower:
                    stopped_early = True
                    break
        if stopped_early:
            break
        if time_limit is not None and time.perf_counter() - started > time_limit:
            timed_out = True
            break
    assert best_pair is not None  # σ = π never deadlocks once every task fits
    solution = simulator.schedule(*best_pair)
    if timed_out:
        return Result(PROBLEM, "brute-force", Status.FEASIBLE, objective=best_value, bound=bounds.best(instance),
                      solution=solution, notes=("time limit before all order pairs were tried",))
    note = "stopped at the lower bound" if stopped_early else f"all {len(orders) ** 2} order pairs tried"
    return Result(PROBLEM, "brute-force", Status.OPTIMAL, objective=best_value, bound=best_value,
                  solution=solution, notes=(note,))


DP_MAX_N = 25  # the label sets grow roughly like 2^n: n = 15 takes minutes


class _Label(typing.NamedTuple):
    """A prefix of one simulator run: the operations placed so far, summarized.

    The bucket of a label (its transferred and computed task sets, and the task
    whose transfer was placed last, if that was the last operation) is its key
    in the layer dictionary, not a field.
    """

    link_free: int  # end of the last positive-length transfer
    last_transfer_start: int  # transfers start in order, even zero-length ones
    device_free: int  # end of the last positive-length computation
    makespan: int  # latest computation end so far
    arrival: tuple[int, ...]  # transfer end of every transferred task (-1: not yet)
    releases: tuple[tuple[int, int], ...]  # (end, bytes) of placed computations still held at last_transfer_start
    waiting: int  # bytes of transferred tasks whose computation is not placed
    bound: int  # lower bound on the makespan of every completion
    parent: "_Label | None"
    operation: tuple[int, int, int] | None  # (0: transfer / 1: computation, task, start)


def _members(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``."""
    members = []
    while mask:
        low = mask & -mask
        members.append(low.bit_length() - 1)
        mask ^= low
    return members


def _held(releases: tuple[tuple[int, int], ...], time: int) -> int:
    """Bytes of placed computations still held at ``time`` (released at their end)."""
    return sum(size for end, size in releases if end > time)


def _dominates(first: _Label, second: _Label, waiting_tasks: list[int]) -> bool:
    """Whether every continuation of ``second`` does at least as well from ``first`` (same bucket)."""
    if (first.link_free > second.link_free or first.last_transfer_start > second.last_transfer_start
            or first.device_free > second.device_free or first.makespan > second.makespan):
        return False
    if any(first.arrival[i] > second.arrival[i] for i in waiting_tasks):
        return False
    # Future transfers of `second` start at or after its last transfer start: compare the
    # held bytes there and at every release after it (both are step functions).
    if first.releases == second.releases:
        return True
    since = second.last_transfer_start
    later = [(end, size) for end, size in first.releases if end > since]
    if not later:
        return True
    checkpoints = {since, *(end for end, _ in later), *(end for end, _ in second.releases if end > since)}
    return all(_held(later, x) <= _held(second.releases, x) for x in checkpoints)


def _run_on_device(device_free: int, makespan: int, release: int, length: int) -> tuple[int, int]:
    """One computation placed as early as possible on the device (a zero-length one occupies nothing)."""
    if length:
        device_free = (device_free if device_free > release else release) + length
        return device_free, (makespan if makespan > device_free else device_free)
    return device_free, (makespan if makespan > release else release)


class _Placements:
    """The placement rules of the simulator on one instance, for `solve_dp` (data copied into lists once)."""

    def __init__(self, instance: Instance):
        self.n = instance.n
        self.transfer = list(instance.transfer)
        self.compute = list(instance.compute)
        self.memory = list(instance.memory)
        self.capacity = instance.capacity
        self.johnson = johnson_order(instance)
        self.by_transfer = sorted(range(self.n), key=lambda i: self.transfer[i])
        self.by_memory = sorted(range(self.n), key=lambda i: self.memory[i])
        self._flow_shop: dict[int, tuple[int, bool]] = {}

    def flow_shop(self, transferred: int) -> tuple[int, bool]:
        """Johnson's F2 makespan of the untransferred tasks from time 0, and whether one has c = 0 (cached)."""
        cached = self._flow_shop.get(transferred)
        if cached is None:
            link = device = 0
            for i in self.johnson:
                if not transferred >> i & 1:
                    link += self.transfer[i]
                    device = (device if device > link else link) + self.compute[i]
            cached = device, any(not self.transfer[i] for i in range(self.n) if not transferred >> i & 1)
            self._flow_shop[transferred] = cached
        return cached

    def completion_bound(self, transferred: int, computed: int, link_free: int, last_transfer_start: int,
                         device_free: int, makespan: int, arrival: tuple[int, ...]) -> int:
        """Lower bound on every completion of a prefix: the largest of three relaxations.

        * The device still has to run every computation not placed, each no
          earlier than its task's arrival (known for transferred tasks; for
          the others at least their transfer time after the link's next free
          instant): the earliest-release-date order solves that one-machine
          relaxation exactly.
        * The link still has to bring the untransferred tasks in, and the
          two-machine flow shop of those tasks alone (Johnson's rule) from the
          link's next free instant bounds their last computation.
        * `overlap_completion`: the only part that sees memory (which tasks
          may run a transfer and a computation side by side).
        """
        c, p = self.transfer, self.compute
        link_floor = link_free if link_free > last_transfer_start else last_transfer_start
        # Earliest-release-date order: waiting tasks by arrival, merged into the untransferred ones,
        # whose releases (link_floor + c, or last_transfer_start for c = 0) follow the order of c.
        waiting = sorted((arrival[i], p[i]) for i in _members(transferred & ~computed))
        device, bound, w = device_free, makespan, 0
        for i in self.by_transfer:
            if transferred >> i & 1:
                continue
            release = (link_floor if c[i] else last_transfer_start) + c[i]
            while w < len(waiting) and waiting[w][0] <= release:
                device, bound = _run_on_device(device, bound, *waiting[w])
                w += 1
            device, bound = _run_on_device(device, bound, release, p[i])
        for arrived, length in waiting[w:]:
            device, bound = _run_on_device(device, bound, arrived, length)
        bound = max(bound, device)
        flow_shop, has_empty_transfer = self.flow_shop(transferred)
        # A zero-length transfer may start at the last transfer start, before the link is free.
        link = last_transfer_start if has_empty_transfer else link_floor
        if flow_shop:
            bound = max(bound, link + flow_shop)
        return max(bound, self.overlap_completion(transferred, computed, min(link, device_free)))

    def overlap_completion(self, transferred: int, computed: int, start: int) -> int:
        """`bounds.overlap_bound` for the operations not placed yet, all of which run after ``start``.

        From ``start`` on, the link still carries the untransferred tasks and
        the device the uncomputed ones; a computation and a transfer overlap
        only when both tasks fit together, and `bounds.max_overlap` (the
        nested-prefix greedy of `bounds.overlap_bound`) gives the largest overlap.
        """
        c, p, m = self.transfer, self.compute, self.memory
        transfers = [(c[j], m[j]) for j in self.by_memory if not transferred >> j & 1]
        computations = [(p[i], m[i]) for i in reversed(self.by_memory) if not computed >> i & 1]
        overlap = bounds.max_overlap(transfers, computations, self.capacity)
        return start + sum(length for length, _ in transfers) + sum(length for length, _ in computations) - overlap

    def successors(self, key: tuple[int, int, int], label: _Label):
        """The operations the simulator could place next, as (key, label) pairs.

        A computation may follow its own transfer or another computation (the
        simulator places the next computation of its order as soon as that
        task has arrived); a transfer may come at any point, when its task
        fits next to the tasks waiting on the device.
        """
        c, p, m, capacity = self.transfer, self.compute, self.memory, self.capacity
        transferred, computed, last = key
        waiting_set = transferred & ~computed
        candidates = [last] if last >= 0 else _members(waiting_set)
        for i in candidates:
            start = max(label.device_free, label.arrival[i]) if p[i] else label.arrival[i]
            device_free = start + p[i] if p[i] else label.device_free
            makespan = max(label.makespan, start + p[i])
            releases = tuple(sorted((*label.releases, (start + p[i], m[i]))))
            new_key = (transferred, computed | 1 << i, -1)
            bound = self.completion_bound(transferred, new_key[1], label.link_free, label.last_transfer_start,
                                          device_free, makespan, label.arrival)
            yield new_key, label._replace(device_free=device_free, makespan=makespan, releases=releases,
                                          waiting=label.waiting - m[i], bound=bound, parent=label,
                                          operation=(1, i, start))
        for k in range(self.n):
            if transferred >> k & 1 or label.waiting + m[k] > capacity:
                continue
            start = max(label.link_free, label.last_transfer_start) if c[k] else label.last_transfer_start
            first_try = start
            held = _held(label.releases, first_try)
            for end, size in label.releases:  # sorted by end: wait for releases until k fits
                if end <= first_try:
                    continue  # released before the first try: not in `held`
                if end > start:
                    if held + label.waiting + m[k] <= capacity:
                        break
                    start = end
                held -= size
            link_free = start + c[k] if c[k] else label.link_free
            arrival = label.arrival[:k] + (start + c[k],) + label.arrival[k + 1:]
            releases = tuple(r for r in label.releases if r[0] > start)
            new_key = (transferred | 1 << k, computed, k)
            bound = self.completion_bound(new_key[0], computed, link_free, start, label.device_free,
                                          label.makespan, arrival)
            yield new_key, label._replace(link_free=link_free, last_transfer_start=start, arrival=arrival,
                                          releases=releases, waiting=label.waiting + m[k], bound=bound,
                                          parent=label, operation=(0, k, start))


def _insert(layer: dict, key: tuple[int, int, int], label: _Label) -> None:
    """Add ``label`` to its bucket unless a label there dominates it; drop the labels it dominates."""
    bucket = layer.get(key)
    if bucket is None:
        layer[key] = [label]
        return
    transferred, computed, _ = key
    waiting_tasks = _members(transferred & ~computed)
    if any(_dominates(other, label, waiting_tasks) for other in bucket):
        return
    bucket[:] = [other for other in bucket if not _dominates(label, other, waiting_tasks)]
    bucket.append(label)


def _schedule_of(instance: Instance, label: _Label) -> Solution:
    """Read the starts back along the parent chain of a complete label."""
    transfer_start, compute_start = [0] * instance.n, [0] * instance.n
    while label.operation is not None:
        kind, task, start = label.operation
        (compute_start if kind else transfer_start)[task] = start
        label = label.parent
    return Solution(tuple(transfer_start), tuple(compute_start))


def solve_dp(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    warm_start: bool = True,
    warm_start_seconds: float | None = None,
    max_n: int = DP_MAX_N,
    log: bool = False,
    **options,
) -> Result:
    """Dynamic program over simulator runs with dominance and bounding (exact).

    Every optimal makespan is reached by the earliest-start schedule of some
    order pair (see ``brute-force``). The simulator places one operation at
    a time; this method grows all those placement sequences at once, layer by
    layer (one operation more per layer), and keeps a sequence only while

    * its completion bound (`_Placements.completion_bound`: the device's
      remaining work with release dates, Johnson's flow shop of the
      untransferred tasks, and the overlap bound of the operations left) is
      below the best known makespan (the warm-start `incumbent`, with iterated greedy;
      without ``warm_start``, Σ (c + p) + 1), and
    * no other sequence with the same transferred set, computed set and
      last-placed transfer is at least as early in every respect (`_dominates`:
      link, device, arrivals, makespan so far, and bytes held at every instant
      from its last transfer start on). Each placement rule is monotone in
      these quantities, so any continuation of the dominated sequence,
      applied to the dominating one, gives a schedule that is no later.

    When the last layer is reached the best complete sequence below the
    incumbent is optimal, and when there is none the incumbent is. On the
    time limit the method returns the incumbent, with the smallest bound of
    the sequences still open as lower bound (every better schedule extends
    one of them). ``max_n`` (default 25) refuses larger instances: the label
    sets grow roughly like 2^n. ``log`` prints the size of every layer.

    It proves instances whose optimum lies above every lower bound, where
    CP-SAT's search stalls (uniform, memory 1.5x max m: n = 12 in seconds,
    n = 15 in minutes; see benchmarks/transfers, round 5). The completion
    bound sees memory only through the overlap bound, and a breadth-first
    search meets its first complete schedule in the last layer, which is why
    it does not reach n = 20.
    """
    require_fits(instance)
    if instance.n > max_n:
        return Result(PROBLEM, "dp", Status.NOT_APPLICABLE,
                      notes=(f"n = {instance.n} > max_n = {max_n}: the label sets grow like 2^n",))
    started = time.perf_counter()
    if warm_start:
        heuristic_name, heuristic, upper = incumbent(instance, _warm_start_seconds(warm_start_seconds, time_limit), seed)
        notes = [f"incumbent from {heuristic_name} ({upper})"]
        if proven := _proven_by_bound(instance, "dp", heuristic_name, heuristic, upper):
            return proven
    else:
        # Running the tasks one after the other takes Σ (c + p), so the optimum is below this.
        heuristic, upper = None, sum(instance.transfer) + sum(instance.compute) + 1
        notes = [f"no warm start: searching below {upper}"]
    placements = _Placements(instance)
    lower = bounds.best(instance)
    empty = (-1,) * instance.n
    root = _Label(0, 0, 0, 0, empty, (), 0, lower, None, None)
    layer: dict = {(0, 0, -1): [root]}
    labels_seen = 0
    for depth in range(1, 2 * instance.n + 1):
        following: dict = {}
        pending = [(key, label) for key, bucket in layer.items() for label in bucket]
        for position, (key, label) in enumerate(pending):
            if time_limit is not None and position % 256 == 0 and time.perf_counter() - started > time_limit:
                frontier = [lab.bound for _, lab in pending[position:]]
                frontier += [lab.bound for bucket in following.values() for lab in bucket]
                bound = max(lower, min([upper, *frontier]))
                if heuristic is None:
                    return Result(PROBLEM, "dp", Status.TIME_LIMIT_NO_SOLUTION, bound=bound,
                                  notes=(*notes, f"time limit in layer {depth} of {2 * instance.n}"))
                return Result(PROBLEM, "dp", Status.OPTIMAL if upper <= bound else Status.FEASIBLE, objective=upper,
                              bound=bound, solution=heuristic,
                              notes=(*notes, f"time limit in layer {depth} of {2 * instance.n} "
                                             f"({labels_seen} labels kept); bound = least bound of the open labels"))
            for new_key, child in placements.successors(key, label):
                if child.bound < upper:
                    _insert(following, new_key, child)
        layer = following
        kept = sum(len(bucket) for bucket in layer.values())
        labels_seen += kept
        if log:
            print(f"dp layer {depth}/{2 * instance.n}: {len(layer)} buckets, {kept} labels, "
                  f"{time.perf_counter() - started:.1f} s", flush=True)
    complete = [label for bucket in layer.values() for label in bucket]
    notes.append(f"search complete: {labels_seen} labels kept over {2 * instance.n} layers")
    if not complete:
        if heuristic is None:  # cannot happen: the one-after-the-other schedule is a simulator run below it
            return Result(PROBLEM, "dp", Status.ERROR, notes=(*notes, "no schedule found below Σ (c + p) + 1"))
        notes.append(f"no schedule below {upper}: the incumbent is optimal")
        return Result(PROBLEM, "dp", Status.OPTIMAL, objective=upper, bound=upper, solution=heuristic, notes=tuple(notes))
    best = min(complete, key=lambda label: label.makespan)
    return Result(PROBLEM, "dp", Status.OPTIMAL, objective=best.makespan, bound=best.makespan,
                  solution=_schedule_of(instance, best), notes=tuple(notes))
