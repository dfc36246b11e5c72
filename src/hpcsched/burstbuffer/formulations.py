"""Exact methods: the static sizing LP/MILP and the fair-sharing bisection.

Static sizing (``sizing-static-lp``, Pyomo on HiGHS)
    With no slowdown every application follows its nominal timeline, so its
    inflow is known. Cut time at every nominal burst start and end: on each
    elementary interval j (length l_j) the inflow i_kj of every application
    is constant. Variables: x_kj >= 0 bytes drained from partition k during
    j (drain rate x_kj / l_j, constant on j), c_kj >= 0 the content of k at
    the start of j, g_k granules of k. Constraints: c_k,j+1 = c_kj + i_kj l_j
    - x_kj; sum_k x_kj <= B l_j; c_kj <= G g_k. Minimize sum_k g_k. A content
    that is linear on an interval and non-negative at both ends is
    non-negative inside, and the maximum is at an end, so the LP is exact for
    piecewise-constant drains, and any measurable drain schedule can be
    averaged on each interval without breaking a constraint. With integral
    g_k it is a small MILP (K integers) whose optimum is the least number of
    granules; with real g_k it is the LP of the spec, whose value
    S*_stat (bytes, `static_size_lp`) is the price-of-static numerator.
    Volumes are scaled by the largest burst for the solver (said in notes).

Fair sharing (``sharing-milp``, ``sharing-dp``, ``sharing-brute-force``)
    Under static allocation each application's dilation D_k(g, d) depends
    only on its own (g, d) and is non-increasing in both. For a target D let
    d_k(g, D) be the least drain with D_k(g, d) <= D (bisection with the
    per-application recurrence of ``simulate.py``). D is achievable iff the
    multiple-choice knapsack min sum_k d_k(g_k, D) s.t. sum_k g_k <= N has
    value <= B. Bisection on D: each step computes, for every (k, g), an
    upper bracket (achieves D) and a lower bracket (misses D) of d_k(g, D);
    the knapsack on upper brackets <= B proves D feasible (and gives a
    solution); on lower brackets > B proves D infeasible (a lower bound).
    The knapsack is solved by a MILP on PuLP/HiGHS, independently by a dynamic
    program over granules (O(K N^2)), and, for K <= 4 and N <= 8, by
    enumerating every granule vector. The bisection stops when
    upper - lower <= epsilon * upper (default epsilon = 1e-7, at least
    `MIN_EPSILON`), or when the midpoint equals an end; OPTIMAL then means
    "optimal within a relative epsilon", below the registry's 1e-6
    tolerance, with the proven lower bound as ``bound``. A MILP knapsack
    proves "D infeasible" from its dual bound less HiGHS' absolute gap (see
    `knapsack_milp`), never from the value of the vector it returns.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from ..core.deadline import Deadline
from ..core.errors import InfeasibleError, InvalidInstanceError
from ..core.fields import require_number
from ..core.result import Result, Status
from .bounds import single_application_bound
from .model import DrainSchedule, Instance, Solution
from .simulate import drain_table_brackets
from .special_cases import check_load, dynamic_backlog, nominal_bursts, sizing_dynamic_sweep

PROBLEM = "burstbuffer"

#: Least relative precision of the sharing bisection: the gap between neighbouring doubles
#: (2.2e-16 relative) is far below it, so the bisection always ends.
MIN_EPSILON = 1e-12
#: Largest drain table K x (N + 1) of the sharing bisection (about 80 MB per table of doubles).
MAX_TABLE_CELLS = 10**7


# ---------------------------------------------------------------- static sizing


def _static_sizing_model(instance: Instance, granular: bool):
    import pyomo.environ as pyo

    owners, starts, ends, _ = nominal_bursts(instance)
    times = np.unique(np.concatenate([starts, ends]))
    lengths = np.diff(times)
    unit = max(app.volume for app in instance.applications)  # solver scaling
    count, intervals = instance.num_applications, len(lengths)
    inflow = np.zeros((count, intervals))
    for k, s, e in zip(owners, starts, ends):
        first, last = np.searchsorted(times, s), np.searchsorted(times, e)
        inflow[k, first:last] = instance.applications[k].rate
    first_interval = [int(np.searchsorted(times, starts[owners == k].min())) for k in range(count)]
    drained_index = [(k, j) for k in range(count) for j in range(first_interval[k], intervals)]
    content_index = [(k, j) for k in range(count) for j in range(first_interval[k], intervals + 1)]
    model = pyo.ConcreteModel()
    model.drained = pyo.Var(drained_index, within=pyo.NonNegativeReals)
    model.content = pyo.Var(content_index, within=pyo.NonNegativeReals)
    model.granules = pyo.Var(range(count), within=pyo.NonNegativeIntegers if granular else pyo.NonNegativeReals)
    granule = instance.platform.granule / unit
    bandwidth = instance.platform.pfs_bandwidth / unit

    def start_empty(m, k):
        return m.content[k, first_interval[k]] == 0

    def balance(m, k, j):
        return m.content[k, j + 1] == m.content[k, j] + inflow[k, j] * lengths[j] / unit - m.drained[k, j]

    def partition(m, k, j):
        return m.content[k, j] <= granule * m.granules[k]

    by_interval: dict[int, list[int]] = {}
    for k, j in drained_index:
        by_interval.setdefault(j, []).append(k)

    def pfs(m, j):
        return sum(m.drained[k, j] for k in by_interval[j]) <= bandwidth * lengths[j]

    model.start_empty = pyo.Constraint(range(count), rule=start_empty)
    model.balance = pyo.Constraint(drained_index, rule=balance)
    model.partition = pyo.Constraint(content_index, rule=partition)
    model.pfs = pyo.Constraint(sorted(by_interval), rule=pfs)
    model.size = pyo.Objective(expr=sum(model.granules[k] for k in range(count)), sense=pyo.minimize)
    return model, times, lengths, unit, drained_index


def static_size_lp(instance: Instance, *, time_limit: float | None = None) -> float:
    """S*_stat in bytes: the LP with real partition sizes (the spec's price-of-static numerator)."""
    from ..solvers.pyomo import solve_pyomo

    check_load(instance)
    model, *_ = _static_sizing_model(instance, granular=False)
    outcome = solve_pyomo(model, time_limit=time_limit)
    if outcome.status is not Status.OPTIMAL:
        raise RuntimeError(f"static sizing LP not solved to optimality: {outcome.message}")
    return float(outcome.objective) * instance.platform.granule


def _schedule_solution(instance: Instance, model, outcome, times, lengths, unit, drained_index, granules) -> Solution:
    """The static allocation read from a solved sizing model, with the given granule counts."""
    count = instance.num_applications
    bandwidth = instance.platform.pfs_bandwidth
    rates = np.zeros((count, len(lengths)))
    for k, j in drained_index:
        rates[k, j] = max(0.0, outcome.value(model.drained[k, j])) * unit / lengths[j]
    totals = rates.sum(axis=0)
    over = totals > bandwidth
    rates[:, over] *= bandwidth / totals[over]  # solver tolerance must not over-reserve the PFS
    weights = [app.io_rate for app in instance.applications]
    after = [bandwidth * w / sum(weights) for w in weights]  # drains what is left after the last burst
    schedule = DrainSchedule(tuple(float(t) for t in times), tuple(tuple(float(x) for x in row) for row in rates))
    return Solution.static(granules, after, schedule)


def sizing_static_lp(instance: Instance, *, time_limit=None, seed=0, allow_overload: bool = False, **options) -> Result:
    """Least static buffer (whole granules) with no slowdown: LP/MILP over elementary intervals (Pyomo, HiGHS).

    The LP with real partition sizes is solved first: rounding each size up
    to whole granules keeps its drain schedule feasible, and ceil(LP / G) is a
    lower bound on the granule count; when both meet, that is the optimum.
    Otherwise the MILP with integer g_k settles it.
    """
    from ..solvers.pyomo import solve_pyomo

    if instance.objective != "sizing-static":
        return Result(PROBLEM, "sizing-static-lp", Status.NOT_APPLICABLE,
                      notes=(f"objective is {instance.objective!r}; set data.objective to 'sizing-static' (Instance.with_objective)",))
    if not allow_overload:
        check_load(instance)
    started = time.perf_counter()
    deadline = Deadline.after(time_limit)
    granule = instance.platform.granule
    lower_dynamic = dynamic_backlog(instance)[0]
    deadline.check("sweeping the nominal backlog")
    model, times, lengths, unit, drained_index = _static_sizing_model(instance, granular=False)
    deadline.check("building the sizing LP")
    outcome = solve_pyomo(model, time_limit=deadline.remaining(), seed=seed)
    notes = [f"volumes scaled by {unit:.6g} bytes for the solver", f"{len(lengths)} elementary intervals"]
    if outcome.status is not Status.OPTIMAL:
        return Result(PROBLEM, "sizing-static-lp", outcome.status, notes=(*notes, f"LP: {outcome.message}"),
                      solver=outcome.backend)
    count = instance.num_applications
    continuous = float(outcome.objective)
    notes.append(f"LP with real partitions: S*_stat = {continuous * granule:.6g} bytes")
    rounded = [max(0, math.ceil(outcome.value(model.granules[k]) - 1e-9)) for k in range(count)]
    lower_granules = math.ceil(continuous - 1e-9)
    if sum(rounded) <= lower_granules:
        solution = _schedule_solution(instance, model, outcome, times, lengths, unit, drained_index, rounded)
        bound = max(lower_granules * granule, lower_dynamic)
        notes.append("rounded LP partitions meet ceil(LP / G): optimal without branching")
        return Result(PROBLEM, "sizing-static-lp", Status.OPTIMAL, objective=sum(rounded) * granule, bound=bound,
                      solution=solution, notes=tuple(notes), solver=outcome.backend,
                      runtime_s=time.perf_counter() - started)
    rounded_solution = _schedule_solution(instance, model, outcome, times, lengths, unit, drained_index, rounded)
    if not deadline.expired():
        model, times, lengths, unit, drained_index = _static_sizing_model(instance, granular=True)
    if deadline.expired():
        notes.append("time limit reached before the MILP with integer granules")
        return Result(PROBLEM, "sizing-static-lp", Status.FEASIBLE, objective=sum(rounded) * granule,
                      bound=max(lower_granules * granule, lower_dynamic), solution=rounded_solution,
                      notes=tuple(notes), solver=outcome.backend, runtime_s=time.perf_counter() - started)
    milp = solve_pyomo(model, time_limit=deadline.remaining(), seed=seed)
    notes.append(f"MILP with integer granules: {milp.message}")
    if not milp.has_solution or sum(int(round(milp.value(model.granules[k]))) for k in range(count)) > sum(rounded):
        # the rounded LP partitions are a valid answer; ceil(LP / G) is a proven bound
        notes.append("answer: LP partitions rounded up (MILP did not improve them in time)")
        return Result(PROBLEM, "sizing-static-lp", Status.FEASIBLE, objective=sum(rounded) * granule,
                      bound=max(lower_granules * granule, lower_dynamic), solution=rounded_solution,
                      notes=tuple(notes), solver=milp.backend, runtime_s=time.perf_counter() - started)
    granules = [int(round(milp.value(model.granules[k]))) for k in range(count)]
    solution = _schedule_solution(instance, model, milp, times, lengths, unit, drained_index, granules)
    bound = lower_granules * granule
    if milp.bound is not None:
        bound = max(bound, math.ceil(milp.bound - 1e-6) * granule)  # sum of integers: round the dual bound up
    return Result(PROBLEM, "sizing-static-lp", milp.status, objective=sum(granules) * granule,
                  bound=max(bound, lower_dynamic), solution=solution, notes=tuple(notes), solver=milp.backend,
                  runtime_s=time.perf_counter() - started)


# ---------------------------------------------------------------- fair sharing


def drain_tables(instance: Instance, target: float, low=None, high=None) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) brackets of d_k(g, target) for k in apps, g in 0..N (shape K x (N+1))."""
    granules = instance.platform.granules
    sizes = np.arange(granules + 1) * instance.platform.granule
    return drain_table_brackets(instance.applications, sizes, target, low=low, high=high)


def knapsack_dp(costs: np.ndarray, capacity: int) -> tuple[float, list[int]]:
    """min sum_k costs[k, g_k] s.t. sum_k g_k <= capacity, by dynamic programming over granules."""
    count = costs.shape[0]
    best = np.zeros(capacity + 1)  # best[m]: least cost of the apps so far with at most m granules
    choices = []
    m = np.arange(capacity + 1)
    for k in range(count):
        # candidate[m, g] = best[m - g] + costs[k, g] for g <= m
        g = np.arange(capacity + 1)
        previous = np.where(g[None, :] <= m[:, None], best[np.clip(m[:, None] - g[None, :], 0, None)], np.inf)
        candidate = previous + costs[k][None, :]
        choice = np.argmin(candidate, axis=1)
        best = candidate[m, choice]
        choices.append(choice)
    granules = [0] * count
    left = capacity
    for k in reversed(range(count)):
        granules[k] = int(choices[k][left])
        left -= granules[k]
    return float(best[capacity]), granules


#: The knapsack MILP's largest cost, in its own units (see `knapsack_milp`).
KNAPSACK_UNITS = 1e6
#: HiGHS stops once incumbent - dual bound <= its absolute gap (mip_abs_gap, default 1e-6, which
#: `solve_pulp` does not set) and then reports the incumbent as the bound: the true optimum may lie
#: that much below both. A proof of infeasibility allows for it, with room for the LP tolerances.
KNAPSACK_ABSOLUTE_SLACK = 1e-5


def knapsack_milp(costs: np.ndarray, capacity: int, *, time_limit=None, seed=0
                  ) -> tuple[float, list[int], Status, str, float]:
    """The same knapsack as a MILP (PuLP on HiGHS), one binary per undominated (k, g).

    Returns ``(value, granules, status, backend, lower)``: the exact cost of
    the granule vector found, and ``lower``, a proven lower bound on the
    optimum (-inf when none): the solver's dual bound less its absolute gap.
    """
    import pulp

    from ..solvers.milp import solve_pulp

    count = costs.shape[0]
    problem = pulp.LpProblem("bb_knapsack", pulp.LpMinimize)
    choose = {}
    for k in range(count):
        for g in range(capacity + 1):
            # a larger partition that does not lower the drain need is dominated
            if g == 0 or costs[k, g] < costs[k, g - 1]:
                choose[k, g] = problem.add_variable(f"x_{k}_{g}", cat="Binary")
    # The largest cost becomes KNAPSACK_UNITS: HiGHS' absolute gap of 1e-6 is then 1e-12 of it,
    # where costs scaled to O(1) let an "optimal" answer sit 1e-7 of the scale above the optimum.
    scale = max(float(np.max(costs[:, 0])), 1e-300) / KNAPSACK_UNITS
    problem += pulp.lpSum(costs[k, g] / scale * x for (k, g), x in choose.items())
    for k in range(count):
        problem += pulp.lpSum(x for (kk, _), x in choose.items() if kk == k) == 1
    problem += pulp.lpSum(g * x for (_, g), x in choose.items()) <= capacity
    outcome = solve_pulp(problem, time_limit=time_limit, seed=seed)
    lower = -math.inf
    if outcome.status is Status.INFEASIBLE:
        lower = math.inf
    elif outcome.bound is not None and math.isfinite(outcome.bound):
        lower = (outcome.bound - KNAPSACK_ABSOLUTE_SLACK) * scale
    if not outcome.has_solution:
        return math.inf, [], outcome.status, outcome.backend, lower
    granules = [0] * count
    for (k, g), x in choose.items():
        if outcome.value(x) > 0.5:
            granules[k] = g
    value = float(sum(costs[k, granules[k]] for k in range(count)))
    return value, granules, outcome.status, outcome.backend, min(lower, value)


def knapsack_enumerate(costs: np.ndarray, capacity: int) -> tuple[float, list[int]]:
    """The same knapsack by enumerating every granule vector (brute force)."""
    count = costs.shape[0]
    best, best_vector = math.inf, [0] * count
    for vector in itertools.product(range(capacity + 1), repeat=count):
        if sum(vector) <= capacity:
            value = sum(costs[k, g] for k, g in enumerate(vector))
            if value < best:
                best, best_vector = value, list(vector)
    return float(best), best_vector


def _solve_knapsack(kind: str, costs, capacity, time_limit, seed):
    """(value of the vector found, the vector, a proven lower bound on the optimum, backend)."""
    if kind == "milp":
        value, granules, _, backend, lower = knapsack_milp(costs, capacity, time_limit=time_limit, seed=seed)
        return value, granules, lower, backend
    value, granules = knapsack_dp(costs, capacity) if kind == "dp" else knapsack_enumerate(costs, capacity)
    return value, granules, value, None


def _greedy_incumbent(instance: Instance) -> tuple[list[int], list[float], float]:
    """Greedy-marginal allocation with proportional drains and its max dilation (recurrence)."""
    from .heuristics import drain_rates, greedy_granules

    drains = drain_rates(instance, "proportional")
    granules, worst = greedy_granules(instance, drains)
    return granules, drains, worst


def _share_spare_bandwidth(instance: Instance, drains: list[float]) -> list[float]:
    """Give B - sum d to the applications in proportion to I/O rates (a larger drain never hurts)."""
    spare = instance.platform.pfs_bandwidth - sum(drains)
    if spare <= 0:
        return drains
    weights = [app.io_rate for app in instance.applications]
    return [d + spare * w / sum(weights) * (1 - 1e-12) for d, w in zip(drains, weights)]


def sharing_bisection(instance: Instance, knapsack: str, method: str, *, time_limit=None, seed=0,
                      epsilon: float = 1e-7) -> Result:
    """Bisection on the max dilation over the multiple-choice knapsack (see module docstring)."""
    epsilon = require_number(epsilon, "options.epsilon")
    if epsilon < MIN_EPSILON:
        raise InvalidInstanceError("options.epsilon", f"must be >= {MIN_EPSILON:g} (the bisection's relative precision), got {epsilon!r}")
    if instance.objective != "sharing":
        return Result(PROBLEM, method, Status.NOT_APPLICABLE, notes=(f"objective is {instance.objective!r}, not 'sharing'",))
    cells = instance.num_applications * (instance.platform.granules + 1)
    if cells > MAX_TABLE_CELLS:
        # every bisection step tabulates d_k(g, D) for all k and g: K (N + 1) single-application bisections
        return Result(PROBLEM, method, Status.NOT_APPLICABLE,
                      notes=(f"K (N + 1) = {cells} drain-table cells > {MAX_TABLE_CELLS}: use a coarser granule",))
    started = time.perf_counter()
    deadline = Deadline.after(time_limit)
    capacity = instance.platform.granules
    bandwidth = instance.platform.pfs_bandwidth
    proven_lower = single_application_bound(instance)
    search_lower = proven_lower
    backend = None
    ambiguous = 0

    # low_at_upper misses `upper` hence every smaller target; high_at_lower meets `search_lower`
    # hence every larger target: together they bracket d_k(g, D) for D in between.
    low_at_upper = None
    high_at_lower = None

    def remaining():
        # a MILP knapsack gets what is left of the limit; an unproven one decides nothing
        return deadline.remaining(floor=0.01)

    def feasible(target: float):
        nonlocal backend, ambiguous
        low, high = drain_tables(instance, target, low_at_upper, high_at_lower)
        value, granules, _, backend = _solve_knapsack(knapsack, high, capacity, remaining(), seed)
        if value <= bandwidth:
            return True, granules, [float(high[k, g]) for k, g in enumerate(granules)], low, high
        # infeasible only on a proof: the least cost (not the cost of a vector found) exceeds B
        _, _, lower, backend = _solve_knapsack(knapsack, low, capacity, remaining(), seed)
        if lower > bandwidth * (1 + 1e-12):
            return False, None, None, low, high
        ambiguous += 1
        return None, None, None, low, high

    upper, incumbent = None, None
    verdict, granules, drains, low, high = feasible(proven_lower)
    if verdict:
        upper, incumbent = proven_lower, (granules, drains)
    else:
        high_at_lower = high
    # Warm start: the greedy heuristic's allocation proves its max dilation achievable.
    if incumbent is None:
        greedy_granules, greedy_drains, greedy_value = _greedy_incumbent(instance)
        if math.isfinite(greedy_value):
            upper, incumbent = greedy_value * (1 + 1e-12), (greedy_granules, greedy_drains)
    probe = proven_lower
    while incumbent is None:
        deadline.check("looking for a first achievable dilation")
        probe *= 2
        verdict, granules, drains, low, high = feasible(probe)
        if verdict:
            upper, incumbent = probe, (granules, drains)
            low_at_upper = low
        else:
            search_lower, high_at_lower = probe, high
            if verdict is False:
                proven_lower = probe
        if probe > 1e12:
            raise InfeasibleError("no finite max dilation found (an application cannot finish)")
    timed_out = floats_met = False
    while upper - search_lower > epsilon * upper:
        if deadline.expired():
            timed_out = True
            break
        middle = 0.5 * (search_lower + upper)
        if middle <= search_lower or middle >= upper:
            floats_met = True  # neighbouring doubles: no target left between the two ends
            break
        verdict, granules, drains, low, high = feasible(middle)
        if verdict:
            upper, incumbent, low_at_upper = middle, (granules, drains), low
        else:
            search_lower, high_at_lower = middle, high
            if verdict is False:
                proven_lower = middle
    granules, drains = incumbent
    solution = Solution.static(granules, _share_spare_bandwidth(instance, drains))
    closed = upper - proven_lower <= epsilon * upper
    status = Status.OPTIMAL if closed and not timed_out else Status.FEASIBLE
    notes = [f"bisection on D to relative {epsilon:g}: D in [{proven_lower:.10g}, {upper:.10g}]",
             f"knapsack: {knapsack}"]
    if ambiguous:
        notes.append(f"{ambiguous} bisection steps undecided at float precision (not counted as proofs)")
    if timed_out:
        notes.append("time limit reached during the bisection")
    if floats_met:
        notes.append("bisection ends met at float precision")
    return Result(PROBLEM, method, status, objective=upper, bound=proven_lower, solution=solution,
                  notes=tuple(notes), solver=backend, runtime_s=time.perf_counter() - started)


def sharing_milp(instance: Instance, *, time_limit=None, seed=0, epsilon: float = 1e-7, **options) -> Result:
    """Fair sharing: bisection on D over a multiple-choice knapsack MILP (PuLP, HiGHS); optimal within epsilon."""
    return sharing_bisection(instance, "milp", "sharing-milp", time_limit=time_limit, seed=seed, epsilon=epsilon)


def sharing_dp(instance: Instance, *, time_limit=None, seed=0, epsilon: float = 1e-7, **options) -> Result:
    """Fair sharing: bisection on D over a knapsack solved by dynamic programming over granules (O(K N^2))."""
    return sharing_bisection(instance, "dp", "sharing-dp", time_limit=time_limit, seed=seed, epsilon=epsilon)


def sharing_brute_force(instance: Instance, *, time_limit=None, seed=0, epsilon: float = 1e-7, **options) -> Result:
    """Fair sharing: bisection on D, every granule vector enumerated (K <= 4, N <= 8)."""
    if instance.num_applications > 4 or instance.platform.granules > 8:
        return Result(PROBLEM, "sharing-brute-force", Status.NOT_APPLICABLE,
                      notes=("brute force is for K <= 4 applications and N <= 8 granules",))
    return sharing_bisection(instance, "enumerate", "sharing-brute-force", time_limit=time_limit, seed=seed, epsilon=epsilon)


#: The method ``exact`` runs for each objective.
EXACT_METHODS = {"sharing": "sharing-dp", "sizing-dynamic": "sizing-dynamic-sweep", "sizing-static": "sizing-static-lp"}


def exact(instance: Instance, *, time_limit=None, seed=0, **options) -> Result:
    """Best exact method for the instance's objective (sharing-dp, sizing-dynamic-sweep or sizing-static-lp)."""
    from ..core.registry import get_problem

    # ``exact`` is registered with forwards_options=True, so the registry has not checked the
    # options: check them against the method chosen, exactly as if it had been called by name.
    chosen = get_problem(PROBLEM).method(EXACT_METHODS[instance.objective])
    chosen.check_options(options)
    return chosen.func(instance, time_limit=time_limit, seed=seed, **options)
