"""Lower bounds on the optimal makespan of a hetero instance.

Every bound ignores communication (c_uv >= 0 only delays), so each holds
with or without it. Times are integers and an optimal schedule with integer
starts exists (shift every start down to the end of a predecessor or of the
previous task on its machine), so the optimum is an integer: an LP value v
proves ``ceil(v - tolerance)``. The LPs are solved by HiGHS (``scipy``'s
``linprog(method="highs")``); the tolerance subtracted before rounding up
(`LP_TOLERANCE`, relative) is far above HiGHS' 1e-7 feasibility tolerance,
so solver noise cannot lift a bound above the optimum.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from ..core.deadline import Deadline, TimeLimitReached
from ..taskgraph import successors, topological_order
from .model import Instance, require_runnable

#: Relative amount subtracted from an LP value before it is rounded up to an integer bound.
LP_TOLERANCE = 1e-6


def _fastest(instance: Instance, j: int) -> int:
    times = [t for t in (instance.time(j, "cpu"), instance.time(j, "gpu")) if t is not None]
    return min(times)


def _integer_bound(value: float) -> int:
    return max(0, math.ceil(value - LP_TOLERANCE * max(1.0, abs(value))))


def critical_path(instance: Instance) -> int:
    """Longest path with each task at its fastest available time, min(p̄_j, p_j).

    Proof: along any path the tasks run one after the other, each for at
    least its fastest time.
    """
    require_runnable(instance)
    outgoing = successors(instance.n, instance.edges)
    head = [0] * instance.n  # longest path ending at j, j included
    for u in topological_order(instance.n, instance.edges):
        head[u] += _fastest(instance, u)
        for edge in outgoing[u]:
            head[edge.v] = max(head[edge.v], head[u])
    return max(head)


def _cpu_share_bounds(instance: Instance) -> list[tuple[float, float]]:
    """Bounds of x_j (the CPU share of task j): fixed where one type is unavailable."""
    bounds = []
    for j in range(instance.n):
        on_cpu, on_gpu = instance.time(j, "cpu") is not None, instance.time(j, "gpu") is not None
        bounds.append((0.0 if on_gpu else 1.0, 1.0 if on_cpu else 0.0))
    return bounds


def _times(instance: Instance) -> tuple[np.ndarray, np.ndarray]:
    cpu = np.array([instance.time(j, "cpu") or 0 for j in range(instance.n)], dtype=float)
    gpu = np.array([instance.time(j, "gpu") or 0 for j in range(instance.n)], dtype=float)
    return cpu, gpu


def area_lp_value(instance: Instance) -> float:
    """The area LP: min λ s.t. Σ x_j p̄_j <= m λ, Σ (1 - x_j) p_j <= k λ, 0 <= x_j <= 1.

    Proof: in any schedule, with x_j = 1 for the tasks on CPUs, the m CPUs
    do Σ x_j p̄_j work before the makespan, the k GPUs the rest.
    Variables: x_0..x_{n-1}, λ.
    """
    require_runnable(instance)
    n = instance.n
    cpu, gpu = _times(instance)
    c = np.zeros(n + 1)
    c[n] = 1.0
    rows = np.zeros((2, n + 1))
    rows[0, :n], rows[0, n] = cpu, -instance.cpus
    rows[1, :n], rows[1, n] = -gpu, -instance.gpus
    rhs = np.array([0.0, -gpu.sum()])
    result = linprog(c, A_ub=rows, b_ub=rhs, bounds=[*_cpu_share_bounds(instance), (0, None)], method="highs")
    if result.status != 0:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"area LP failed: {result.message}")
    return float(result.fun)


def area(instance: Instance) -> int:
    """The area LP's value rounded up (see the module docstring)."""
    return _integer_bound(area_lp_value(instance))


def lp_bound(value: float) -> int:
    """An LP value rounded up to the integer bound it proves (see the module docstring)."""
    return _integer_bound(value)


#: Rows of the HLP up to which HiGHS presolves it under a time limit. Its presolve does not read the
#: limit: on a 10^5-task layered graph (1.1 M rows) it ran 9.5 s of 3 s given, while the simplex
#: without it stopped 1 s after; at 10^4 tasks (317,000 rows) presolve saves ~13% (26.7 s against
#: 30.8 s to the optimum) and stays within its limit.
PRESOLVE_MAX_ROWS = 500_000


def hlp_solution(instance: Instance, deadline: Deadline | None = None) -> tuple[float, np.ndarray]:
    """HLP (Kedad-Sidhoum, Monna, Trystram 2015): ``(value, x)`` with x_j the CPU share of task j.

    min λ subject to the area rows of `area_lp_value` and completion times
    C_j: C_j >= x_j p̄_j + (1 - x_j) p_j, C_v >= C_u + x_v p̄_v + (1 - x_v) p_v
    per edge, C_j <= λ. Proof: an integral schedule with its types as x and
    its completion times as C satisfies every row with λ = its makespan.
    Variables: x (n), C (n), λ.

    With a ``deadline``, the row building is checked every 1,024 edges and
    HiGHS gets the time left; either running out raises `TimeLimitReached`
    (a 1,600-task layered graph with 120,000 edges takes about 2 s).
    """
    require_runnable(instance)
    deadline = deadline or Deadline(None)
    n = instance.n
    cpu, gpu = _times(instance)
    lam = 2 * n
    rows, cols, vals, rhs = [], [], [], []
    row = 0

    def add(entries, bound):
        nonlocal row
        for col, val in entries:
            rows.append(row)
            cols.append(col)
            vals.append(val)
        rhs.append(bound)
        row += 1

    add([(j, cpu[j]) for j in range(n)] + [(lam, -instance.cpus)], 0.0)
    add([(j, -gpu[j]) for j in range(n)] + [(lam, -instance.gpus)], -gpu.sum())
    # x_j p̄_j + (1 - x_j) p_j - C_j <= 0   <=>   (p̄_j - p_j) x_j - C_j <= -p_j
    for j in range(n):
        add([(j, cpu[j] - gpu[j]), (n + j, -1.0)], -gpu[j])
        add([(n + j, 1.0), (lam, -1.0)], 0.0)
    for k, edge in enumerate(instance.edges):
        if k % 1024 == 0:
            deadline.check("building HLP")
        v = edge.v
        add([(n + edge.u, 1.0), (v, cpu[v] - gpu[v]), (n + v, -1.0)], -gpu[v])
    matrix = coo_matrix((vals, (rows, cols)), shape=(row, 2 * n + 1)).tocsr()
    c = np.zeros(2 * n + 1)
    c[lam] = 1.0
    bounds = _cpu_share_bounds(instance) + [(0, None)] * (n + 1)
    deadline.check("solving HLP")  # HiGHS' presolve ignores its time limit: no call once the time is up
    remaining = deadline.remaining()
    options: dict[str, float | bool] = {}
    if remaining is not None:
        options = {"time_limit": remaining, "presolve": row <= PRESOLVE_MAX_ROWS}
    result = linprog(c, A_ub=matrix, b_ub=np.array(rhs), bounds=bounds, method="highs", options=options)
    if result.status == 1 and remaining is not None:
        # HiGHS stopped at the time it was given, measured on its own clock: the limit is reached
        # even where the deadline clock has not quite passed yet.
        raise TimeLimitReached("time limit reached while solving HLP")
    if result.status != 0:  # pragma: no cover
        raise RuntimeError(f"HLP failed: {result.message}")
    return float(result.fun), np.asarray(result.x[:n])


def hlp(instance: Instance, deadline: Deadline | None = None) -> int:
    """HLP's value rounded up (see the module docstring); at least `critical_path` and `area`."""
    return _integer_bound(hlp_solution(instance, deadline)[0])


def best(instance: Instance, deadline: Deadline | None = None) -> int:
    """The largest of `critical_path`, `area` and `hlp`; without `hlp` when the deadline cuts its LP."""
    cheap = max(critical_path(instance), area(instance))
    try:
        return max(cheap, hlp(instance, deadline))
    except TimeLimitReached:
        return cheap
