"""Lower bounds on the makespan (valid for preemptive and non-preemptive schedules), and the preemptive LP.

- ``trivial``: max(p_max, Σp / s) where s = max(1, max over pairs of
  r_{i|j} + r_{j|i}) is the most solo-work per time unit the GPU can do.
- ``lp``: the preemptive LP optimum, the best bound (every non-preemptive
  schedule is a preemptive one). Solved by HiGHS in well under a second for
  n <= a few hundred.
- ``streams``: the longest stream, Σ p over its kernels (they run one
  after another, each at most at solo speed). The LP ignores streams: it
  stays a valid bound (a relaxation), and ``best`` takes the larger.
- ``best``: the LP, falling back to ``trivial`` when the LP is not solved.

The preemptive LP (`solve_preemptive_lp`) lives here because it is the
bound every other module uses; the method ``lp-preemptive``
(`formulations.preemptive.lp`) orders its phases into a schedule.

Notes
-----
LP (spec): x_i >= 0 time kernel i runs alone, y_ij >= 0 time i and j run
together; minimize Σ x + Σ y subject to x_i + Σ_j r_{i|j} y_ij = p_i. Why
its value is the preemptive optimum, why pairs with r_{i|j} + r_{j|i} <= 1
are dropped, the scaling and tolerances, and what is done with a point that
a backend returns without a proof: ``docs/coschedule.md``, section
"The preemptive LP".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..core.deadline import now
from ..core.result import Status
from ..solvers.milp import solve_pulp
from .model import Instance

#: Phase lengths below this fraction of the makespan are solver noise.
NEGLIGIBLE = 1e-12
#: LP backends of `solve_preemptive_lp` (option ``backend`` of ``lp-preemptive``).
LpBackend = Literal["scipy", "pulp"]
#: linprog hands the LP to HiGHS (input checks, conversion, HiGHS's load) in up to ~4 times the
#: time its sparse matrix takes to build (10,000 kernels, 1.9 M pairs: build 0.17 s, hand-over
#: 0.73 s CPU), uninterruptibly, before HiGHS's own time limit starts: that share of the time left is
#: kept for it, and the LP is not started when the time left cannot cover it.
HANDOVER_PER_BUILD = 5.0
#: After the LP its callers still read the point back, order its phases, list-schedule them, and
#: the registry validates the schedule: O(n + pairs) Python, ~8 times the matrix build (10,000
#: kernels: build 0.17 s, that answer 1.3-1.5 s). The LP's own time limit leaves it that share.
ANSWER_PER_BUILD = 8.0
#: HiGHS options of every LP of this package (rows are scaled by 1/p_i).
LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10, "presolve": True}


@dataclass(frozen=True)
class LpSolution:
    """What `solve_preemptive_lp` returns.

    Attributes
    ----------
    status
        OPTIMAL only when the backend proved the LP optimum; FEASIBLE for an
        unproven point clipped to a feasible one; otherwise no point.
    value
        The LP optimum (OPTIMAL), the clipped point's length (FEASIBLE), or None.
    solo, pairs
        Solo time of each kernel, co-run time of each pair (a, b).
    solver
        Backend name and version.
    """

    status: Status
    value: float | None
    solo: dict[int, float] = field(default_factory=dict)
    pairs: dict[tuple[int, int], float] = field(default_factory=dict)
    solver: str = ""


def trivial(instance: Instance) -> float:
    """max(p_max, Σp / s, longest stream) with s the best pair speed-up (module doc)."""
    _, _, rate_a, rate_b = instance.pair_arrays()
    speed = max(1.0, float((rate_a + rate_b).max(initial=1.0)))
    durations = instance.durations
    return max(float(max(durations)), sum(durations) / speed, streams(instance))


def streams(instance: Instance) -> float:
    """Σ p of the longest stream (0 without streams): an exact integer sum, a proven bound."""
    return float(max((sum(instance.kernels[k].duration for k in stream) for stream in instance.streams), default=0))


def lp(instance: Instance) -> float | None:
    """The preemptive LP optimum; None unless the LP was solved to proven optimality."""
    return preemptive_optimum(instance)


def best(instance: Instance) -> float:
    """The best of `lp` and `trivial`, shaved by 1e-9 (the LP carries HiGHS' 1e-10 tolerances)."""
    value = lp(instance)
    return trivial(instance) if value is None else max(trivial(instance) * (1 - 1e-9), value * (1 - 1e-9))


def bound_reference(instance: Instance) -> float:
    """`best` without its 1e-9 shave: the figure gaps are measured against in the benchmarks."""
    value = lp(instance)
    return max(trivial(instance), value) if value is not None else trivial(instance)


def useful_pairs(instance: Instance) -> list[tuple[int, int, float, float]]:
    """Compatible pairs whose co-run beats running both alone (r_ij + r_ji > 1)."""
    return [(p.a, p.b, p.rate_a, p.rate_b) for p in instance.pairs if p.rate_a + p.rate_b > 1 + 1e-12]


def preemptive_optimum(instance: Instance) -> float | None:
    """The optimal preemptive makespan when the LP is solved to proven optimality, else None."""
    solved = solve_preemptive_lp(instance)
    return solved.value if solved.status is Status.OPTIMAL else None


def solve_preemptive_lp(
    instance: Instance, *, backend: LpBackend = "scipy", time_limit: float | None = None, seed: int = 0
) -> LpSolution:
    """Solve the preemptive LP with ``backend`` (``scipy``: linprog-HiGHS on sparse matrices; ``pulp``).

    Returns
    -------
    LpSolution
        OPTIMAL only when the backend proved the LP optimum (then ``value``
        is the optimal preemptive makespan); FEASIBLE when it stopped early
        with a point, clipped to a feasible one, whose ``value`` is that
        schedule's length (no bound); otherwise ``value`` is None. Solo
        times are recomputed from the pair times so the work is exact.
    """
    if backend == "scipy":
        raw = _solve_scipy(instance, time_limit)
    elif backend == "pulp":
        raw = _solve_pulp(instance, useful_pairs(instance), time_limit, seed)
    else:
        raise ValueError(f"unknown LP backend {backend!r} (scipy or pulp)")
    if raw.value is None:
        return raw
    value = raw.value
    scale = NEGLIGIBLE * max(1.0, abs(value))
    pair_times = {key: t for key, t in raw.pairs.items() if t > scale}
    if raw.status is not Status.OPTIMAL:
        pair_times = _clip_to_work(instance, pair_times)
    durations = np.array(instance.durations, dtype=float)
    solo = durations.copy()
    for (a, b), t in pair_times.items():
        solo[a] -= instance.listed_rate(a, b) * t
        solo[b] -= instance.listed_rate(b, a) * t
    solo_times = {i: float(v) for i, v in enumerate(solo) if v > NEGLIGIBLE * durations[i]}
    if raw.status is not Status.OPTIMAL:
        value = sum(solo_times.values()) + sum(pair_times.values())
    return LpSolution(raw.status, value, solo_times, pair_times, raw.solver)


def _solve_scipy(instance: Instance, time_limit: float | None) -> LpSolution:
    """scipy ``linprog`` (HiGHS): no point at a time limit (TIME_LIMIT_NO_SOLUTION).

    The matrix is built from `Instance.pair_arrays` at numpy speed (the useful
    pairs in `useful_pairs` order); only the pairs the LP runs (x > 0) are read back.
    """
    import scipy
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    name = f"scipy {scipy.__version__} linprog-highs"
    started = now()
    durations = np.array(instance.durations, dtype=float)
    n = instance.n
    a, b, rate_a, rate_b = instance.pair_arrays()
    useful = rate_a + rate_b > 1 + 1e-12
    a, b, rate_a, rate_b = a[useful], b[useful], rate_a[useful], rate_b[useful]
    count = len(a)
    columns = np.arange(n, n + count)
    rows = np.concatenate([np.arange(n), a, b])
    cols = np.concatenate([np.arange(n), columns, columns])
    values = np.concatenate([1.0 / durations, rate_a / durations[a], rate_b / durations[b]])
    matrix = coo_matrix((values, (rows, cols)), shape=(n, n + count)).tocsr()
    options: dict[str, Any] = dict(LP_OPTIONS)
    if time_limit is not None:
        built = now() - started
        left = time_limit - built * (1 + HANDOVER_PER_BUILD + ANSWER_PER_BUILD)
        if left <= 0:  # the hand-over and the answer would overrun the limit: HiGHS is not started
            return LpSolution(Status.TIME_LIMIT_NO_SOLUTION, None, solver=name)
        options["time_limit"] = left  # HiGHS's clock starts only once linprog has handed the LP over
    result = linprog(
        np.ones(n + count), A_eq=matrix, b_eq=np.ones(n), bounds=(0, None), method="highs", options=options
    )
    if result.status != 0:
        return LpSolution(Status.TIME_LIMIT_NO_SOLUTION if result.status == 1 else Status.ERROR, None, solver=name)
    x = result.x[n:]
    run = np.flatnonzero(x > 0)  # the pairs at 0 are dropped by the caller anyway
    pair_times = {(int(a[k]), int(b[k])): float(x[k]) for k in run.tolist()}
    return LpSolution(Status.OPTIMAL, float(result.fun), pairs=pair_times, solver=name)


def _solve_pulp(
    instance: Instance, pairs: list[tuple[int, int, float, float]], time_limit: float | None, seed: int
) -> LpSolution:
    """PuLP + HiGHS: a time-limited run hands back its last iterate, flagged FEASIBLE (not a proof)."""
    import pulp

    durations = instance.durations
    n = instance.n
    model = pulp.LpProblem("coschedule_preemptive", pulp.LpMinimize)
    x = [pulp.LpVariable(f"x_{i}", lowBound=0) for i in range(n)]
    y = {(a, b): pulp.LpVariable(f"y_{a}_{b}", lowBound=0) for a, b, _, _ in pairs}
    model += pulp.lpSum(x) + pulp.lpSum(y.values())
    terms: list[list[Any]] = [[x[i] / float(durations[i])] for i in range(n)]
    for a, b, rate_a, rate_b in pairs:
        terms[a].append(rate_a / float(durations[a]) * y[a, b])
        terms[b].append(rate_b / float(durations[b]) * y[a, b])
    for i in range(n):
        model += pulp.lpSum(terms[i]) == 1, f"work_{i}"
    outcome = solve_pulp(model, time_limit=time_limit, seed=seed)
    if not outcome.has_solution or outcome.objective is None or outcome.value is None:
        return LpSolution(outcome.status, None, solver=outcome.backend)
    pair_times = {key: float(outcome.value(var) or 0.0) for key, var in y.items()}
    # FEASIBLE here is PuLP's reading of a HiGHS time or iteration limit: not a proof.
    status = Status.OPTIMAL if outcome.status is Status.OPTIMAL else Status.FEASIBLE
    return LpSolution(status, float(outcome.objective), pairs=pair_times, solver=outcome.backend)


def _clip_to_work(instance: Instance, pair_times: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    """Pair times of an unproven LP point cut so no kernel gets more than its work (longest first)."""
    remaining = [float(p) for p in instance.durations]
    clipped = {}
    for (a, b), t in sorted(pair_times.items(), key=lambda item: (-item[1], item[0])):
        rate_a, rate_b = instance.rate(a, b), instance.rate(b, a)
        assert rate_a is not None and rate_b is not None  # useful pairs are listed pairs
        t = min(t, remaining[a] / rate_a, remaining[b] / rate_b)
        if t > NEGLIGIBLE * max(remaining[a], remaining[b], 1.0):
            remaining[a] = max(0.0, remaining[a] - rate_a * t)
            remaining[b] = max(0.0, remaining[b] - rate_b * t)
            clipped[a, b] = t
    return clipped
