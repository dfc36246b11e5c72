"""The multiple-choice knapsack of the sharing bisection, three ways.

min sum_k costs[k, g_k] subject to sum_k g_k <= capacity, where
``costs[k, g]`` is the least drain rate that lets application k meet the
target dilation with g granules: by dynamic programming over granules
(`knapsack_dp`, O(K N^2)), by a MILP on PuLP/HiGHS (`knapsack_milp`) and by
enumerating every granule vector (`knapsack_enumerate`, brute force).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...core.result import Status

#: How a bisection step solves its knapsacks.
KnapsackKind = Literal["dp", "milp", "enumerate"]


@dataclass(frozen=True)
class KnapsackAnswer:
    """A knapsack's answer.

    Attributes
    ----------
    value
        Exact cost of ``granules`` (inf when none was found).
    granules
        The granule vector found (empty when none).
    lower
        A proven lower bound on the optimum (-inf when none; the value itself for exact solvers).
    status, backend
        The solver's status and name (None for the DP and the enumeration).
    """

    value: float
    granules: list[int]
    lower: float
    status: Status = Status.OPTIMAL
    backend: str | None = None


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


def knapsack_milp(
    costs: np.ndarray, capacity: int, *, time_limit: float | None = None, seed: int = 0
) -> KnapsackAnswer:
    """The same knapsack as a MILP (PuLP on HiGHS), one binary per undominated (k, g).

    Returns
    -------
    KnapsackAnswer
        The exact cost of the granule vector found, and ``lower``, a proven
        lower bound on the optimum (-inf when none): the solver's dual bound
        less its absolute gap.
    """
    import pulp

    from ...solvers.milp import solve_pulp

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
    if not outcome.has_solution or outcome.value is None:
        return KnapsackAnswer(math.inf, [], lower, outcome.status, outcome.backend)
    granules = [0] * count
    for (k, g), x in choose.items():
        if outcome.value(x) > 0.5:
            granules[k] = g
    value = float(sum(costs[k, granules[k]] for k in range(count)))
    return KnapsackAnswer(value, granules, min(lower, value), outcome.status, outcome.backend)


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


def solve_knapsack(
    kind: KnapsackKind, costs: np.ndarray, capacity: int, time_limit: float | None, seed: int
) -> KnapsackAnswer:
    """The knapsack by ``kind``; the DP and the enumeration are exact, so their value is their lower bound."""
    if kind == "milp":
        return knapsack_milp(costs, capacity, time_limit=time_limit, seed=seed)
    value, granules = knapsack_dp(costs, capacity) if kind == "dp" else knapsack_enumerate(costs, capacity)
    return KnapsackAnswer(value, granules, value)
