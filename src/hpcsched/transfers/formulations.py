"""Exact methods: CP-SAT, a disjunctive MILP, and brute force over order pairs.

All three optimize over *all* schedules: the compute order may differ from
the transfer order (unlike the heuristics, which are permutation schedules).

``cpsat``
    Intervals T_i = [s_i, s_i + c_i) and P_i = [t_i, t_i + p_i), a memory
    interval R_i = [s_i, t_i + p_i) of variable length, NoOverlap(T),
    NoOverlap(P), Cumulative(R, m, M), t_i ≥ s_i + c_i, minimize C ≥ t_i + p_i.
    Zero-length operations are left out of the NoOverlap constraints (CP-SAT
    forbids a zero-size interval strictly inside another one, while the
    definition lets an empty operation overlap nothing). Options (all on by
    default; the benchmark switches them one by one):

    * ``lower_bound`` — C ≥ `bounds.best` (Johnson, memory-area and clique
      bounds), and the reported bound is at least that;
    * ``warm_start`` — the best constructive heuristic gives the horizon
      (every start ≤ its makespan) and a solution hint; without it the
      horizon is Σ (c_i + p_i);
    * ``symmetry`` — for identical tasks i < j (same c, p, m):
      s_i ≤ s_j and t_i ≤ t_j. Safe: if s_i ≤ s_j but t_i > t_j, exchanging
      the two computations keeps every constraint (t_j ≥ s_j + c ≥ s_i + c,
      t_i > t_j ≥ s_j + c) and leaves the memory profile unchanged (the two
      holding intervals [s_i, t_j+p) and [s_j, t_i+p) cover each instant as
      often as the originals), and renaming identical tasks orders the
      transfers.

``milp``
    Disjunctive MILP (PuLP, HiGHS by default, ``backend="cbc"`` possible):
    z_ij = 1 if transfer i starts before transfer j (z_ji = 1 − z_ij),
    y_ij the same for computations, w_ij = 1 if i has finished by s_j
    (w_ij ≤ z_ij, t_i + p_i ≤ s_j + H(1 − w_ij)). Memory row per task j:
    m_j + Σ_{i≠j} m_i (z_ij − w_ij) ≤ M — the held total only rises at
    transfer starts, so checking it there is exact (a task released before s_j
    may set w_ij = 1; one not released cannot). Big-M H is the makespan of
    the best constructive heuristic (an upper bound on the optimum, so
    restricting every schedule to [0, H] loses no optimum), not Σ. For pairs
    with a zero-length operation the disjunction only orders the starts (an
    empty operation overlaps nothing). Starts are integer variables (the
    data are integers). Options ``lower_bound`` and ``symmetry`` as for
    CP-SAT; ``backend``.

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

import itertools
import math
import time

from ..core.result import Result, Status
from ..solvers.cpsat import new_model, solve_cpsat
from ..solvers.milp import solve_pulp
from . import bounds
from .heuristics import best_constructive
from .model import Instance, Solution, makespan_of, require_fits
from .simulate import Simulator

PROBLEM = "transfers"
BRUTE_FORCE_MAX_N = 6


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
) -> Result:
    """Turn a backend Outcome into a Result (bound combined with our bounds if asked)."""
    bound = outcome.bound
    if bound is not None and math.isfinite(bound):
        bound = math.ceil(bound - 1e-6)  # integer makespan: a fractional bound rounds up
    else:
        bound = None
    if use_lower_bound:
        best = bounds.best(instance)
        bound = best if bound is None else max(bound, best)
    if not outcome.has_solution or transfer_start is None:
        status = outcome.status if outcome.status is not Status.OPTIMAL else Status.ERROR
        return Result(PROBLEM, method, status, bound=bound, solver=outcome.backend,
                      notes=(*notes, f"backend: {outcome.message}"))
    solution = Solution(tuple(transfer_start), tuple(compute_start))
    objective = makespan_of(instance, solution)
    status = outcome.status
    if status is Status.FEASIBLE and bound is not None and objective <= bound:
        status = Status.OPTIMAL
        notes.append("objective meets the lower bound")
    return Result(PROBLEM, method, status, objective=objective, bound=bound, solution=solution,
                  solver=outcome.backend, notes=(*notes, f"backend: {outcome.message}"))


def solve_cpsat_model(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    lower_bound: bool = True,
    warm_start: bool = True,
    symmetry: bool = True,
    workers: int = 2,
    log: bool = False,
    **options,
) -> Result:
    """CP-SAT: intervals, NoOverlap on link and device, Cumulative memory; minimize makespan."""
    require_fits(instance)
    tasks = instance.tasks
    notes = [f"options: lower_bound={lower_bound}, warm_start={warm_start}, symmetry={symmetry}"]
    if warm_start:
        heuristic_name, _, heuristic, horizon = best_constructive(instance)
        notes.append(f"hint and horizon from {heuristic_name} ({horizon})")
    else:
        heuristic, horizon = None, sum(t.transfer + t.compute for t in tasks)
    model = new_model()
    transfer_start, compute_start, link, device, holding = [], [], [], [], []
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
        transfer_start.append(s)
        compute_start.append(t)
    model.add_no_overlap(link)
    model.add_no_overlap(device)
    model.add_cumulative(holding, [task.memory for task in tasks], instance.capacity)
    makespan = model.new_int_var(bounds.best(instance) if lower_bound else 0, horizon, "C")
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
        model.add_hint(makespan, horizon)
    model.minimize(makespan)
    outcome = solve_cpsat(model, time_limit=time_limit, workers=workers, seed=seed, log=log)
    starts = None
    if outcome.has_solution:
        starts = ([int(outcome.value(v)) for v in transfer_start], [int(outcome.value(v)) for v in compute_start])
    return _finish(instance, "cpsat", outcome, *(starts or (None, None)), lower_bound, notes)


def solve_milp(
    instance: Instance,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    backend: str = "highs",
    lower_bound: bool = True,
    symmetry: bool = True,
    threads: int = 2,
    **options,
) -> Result:
    """Disjunctive MILP (z, y, w binaries, memory row per task) on PuLP + HiGHS or CBC."""
    import pulp

    require_fits(instance)
    tasks, n = instance.tasks, instance.n
    heuristic_name, _, _, horizon = best_constructive(instance)
    notes = [f"big-M = {horizon} from {heuristic_name}; options: lower_bound={lower_bound}, symmetry={symmetry}"]
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
        if (i, j) in identical:
            z_ij = 1  # identical tasks go in index order on both machines (see module docstring)
        else:
            z_ij = problem.add_variable(f"z_{i}_{j}", cat="Binary")
        before[(i, j)], before[(j, i)] = z_ij, 1 - z_ij
        positive = c[i] > 0 and c[j] > 0  # an empty transfer only orders its start
        problem += s[j] >= s[i] + (c[i] if positive else 0) - horizon * (1 - z_ij)
        problem += s[i] >= s[j] + (c[j] if positive else 0) - horizon * z_ij
        if p[i] > 0 and p[j] > 0:
            y_ij = 1 if (i, j) in identical else problem.add_variable(f"y_{i}_{j}", cat="Binary")
            problem += t[j] >= t[i] + p[i] - horizon * (1 - y_ij)
            problem += t[i] >= t[j] + p[j] - horizon * y_ij
    total = sum(m)
    for j in range(n):
        if total <= instance.capacity:
            break  # everything fits together: no memory row binds
        held = []
        for i in range(n):
            if i == j:
                continue
            w_ij = problem.add_variable(f"w_{i}_{j}", cat="Binary")
            problem += w_ij <= before[(i, j)]
            problem += t[i] + p[i] <= s[j] + horizon * (1 - w_ij)
            held.append(m[i] * (before[(i, j)] - w_ij))
        problem += m[j] + pulp.lpSum(held) <= instance.capacity
    outcome = solve_pulp(problem, backend=backend, time_limit=time_limit, threads=threads, seed=seed)
    starts = (None, None)
    if outcome.has_solution:
        starts = ([round(outcome.value(v)) for v in s], [round(outcome.value(v)) for v in t])
    return _finish(instance, "milp", outcome, *starts, lower_bound, notes)


def brute_force(
    instance: Instance, *, time_limit: float | None = None, seed: int = 0, max_n: int = BRUTE_FORCE_MAX_N, **options
) -> Result:
    """Every transfer order x every compute order through the simulator (n <= 6)."""
    require_fits(instance)
    if instance.n > max_n:
        return Result(PROBLEM, "brute-force", Status.NOT_APPLICABLE,
                      notes=(f"n = {instance.n} > {max_n}: (n!)^2 order pairs is too many",))
    started = time.perf_counter()
    simulator = Simulator(instance)
    lower = bounds.best(instance)
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
        return Result(PROBLEM, "brute-force", Status.FEASIBLE, objective=best_value, bound=lower,
                      solution=solution, notes=("time limit before all order pairs were tried",))
    note = "stopped at the lower bound" if stopped_early else f"all {len(orders) ** 2} order pairs tried"
    return Result(PROBLEM, "brute-force", Status.OPTIMAL, objective=best_value, bound=best_value,
                  solution=solution, notes=(note,))
