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

from ...core.deadline import Deadline
from ...core.errors import HpcschedError
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


#: Applications the knapsack DP adds between two looks at the deadline (one numpy step each).
APPS_PER_CHECK = 256


def knapsack_dp(costs: np.ndarray, capacity: int, deadline: Deadline | None = None) -> tuple[float, list[int]]:
    """min sum_k costs[k, g_k] s.t. sum_k g_k <= capacity, by dynamic programming over granules.

    Raises
    ------
    TimeLimitReached
        When ``deadline`` passes before the last application is added (it is
        read every `APPS_PER_CHECK` applications: 10^5 applications take seconds).
    """
    deadline = deadline or Deadline(None)
    count = costs.shape[0]
    best = np.zeros(capacity + 1)  # best[m]: least cost of the apps so far with at most m granules
    choices = []
    m = np.arange(capacity + 1)
    g = np.arange(capacity + 1)
    # candidate[m, g] = best[m - g] + costs[k, g] for g <= m, inf above: the index and the mask
    # (0 or inf, added: x + 0 is x exactly) are the same for every application, so made once
    previous_index = np.clip(m[:, None] - g[None, :], 0, None)
    too_many = np.where(g[None, :] <= m[:, None], 0.0, np.inf)
    for k in range(count):
        if k % APPS_PER_CHECK == 0:
            deadline.check("solving the knapsack by dynamic programming")
        candidate = (best[previous_index] + too_many) + costs[k][None, :]
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
#: Largest knapsack MILP (binaries + rows): PuLP passes a model to HiGHS one column and one row
#: at a time, with no look at the deadline (~35 us each); 50,000 take about 2 s.
MAX_KNAPSACK_SIZE = 50_000


class KnapsackTooLarge(HpcschedError):
    """The knapsack MILP has more than `MAX_KNAPSACK_SIZE` binaries and rows; the message gives the size."""


def _undominated(costs: np.ndarray) -> np.ndarray:
    """The (k, g) pairs worth a binary, row by row: a larger partition that does not lower the need is dominated."""
    keep = np.ones(costs.shape, dtype=bool)
    keep[:, 1:] = costs[:, 1:] < costs[:, :-1]
    return np.argwhere(keep)


def knapsack_milp(
    costs: np.ndarray,
    capacity: int,
    *,
    time_limit: float | None = None,
    seed: int = 0,
    deadline: Deadline | None = None,
) -> KnapsackAnswer:
    """The same knapsack as a MILP (PuLP on HiGHS), one binary per undominated (k, g).

    Parameters
    ----------
    costs, capacity
        The knapsack (see the module docstring).
    time_limit
        Seconds for HiGHS; with a ``deadline``, what is left of it once the model is built.
    seed
        Passed to HiGHS.
    deadline
        Read every `APPS_PER_CHECK` applications while the model is built.

    Returns
    -------
    KnapsackAnswer
        The exact cost of the granule vector found, and ``lower``, a proven
        lower bound on the optimum (-inf when none): the solver's dual bound
        less its absolute gap.

    Raises
    ------
    KnapsackTooLarge
        Before any model is built, when binaries + rows exceed `MAX_KNAPSACK_SIZE`.
    TimeLimitReached
        When ``deadline`` passes while the model is built.
    """
    import pulp

    from ...solvers.milp import solve_pulp

    count = costs.shape[0]
    pairs = _undominated(costs)
    if len(pairs) + count + 1 > MAX_KNAPSACK_SIZE:
        raise KnapsackTooLarge(
            f"the knapsack MILP would have {len(pairs)} binaries and {count + 1} rows, more than "
            f"{MAX_KNAPSACK_SIZE} in all (PuLP hands them to HiGHS one by one, unchecked): use sharing-dp"
        )
    deadline = deadline or Deadline(None)
    problem = pulp.LpProblem("bb_knapsack", pulp.LpMinimize)
    choose = {}
    per_app: list[list] = [[] for _ in range(count)]  # row k's variables (a scan of all per row was O(K^2 N))
    for k, g in pairs.tolist():
        if g == 0 and k % APPS_PER_CHECK == 0:
            deadline.check("building the knapsack MILP")
        choose[k, g] = problem.add_variable(f"x_{k}_{g}", cat="Binary")
        per_app[k].append(choose[k, g])
    # The largest cost becomes KNAPSACK_UNITS: HiGHS' absolute gap of 1e-6 is then 1e-12 of it,
    # where costs scaled to O(1) let an "optimal" answer sit 1e-7 of the scale above the optimum.
    scale = max(float(np.max(costs[:, 0])), 1e-300) / KNAPSACK_UNITS
    problem += pulp.lpSum(costs[k, g] / scale * x for (k, g), x in choose.items())
    for k in range(count):
        if k % APPS_PER_CHECK == 0:
            deadline.check("building the knapsack MILP")
        problem += pulp.lpSum(per_app[k]) == 1
    problem += pulp.lpSum(g * x for (_, g), x in choose.items()) <= capacity
    deadline.check("building the knapsack MILP")
    if deadline.at is not None:
        time_limit = deadline.remaining(floor=0.01)  # what the build left (HiGHS decides nothing without time)
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
    kind: KnapsackKind,
    costs: np.ndarray,
    capacity: int,
    time_limit: float | None,
    seed: int,
    deadline: Deadline | None = None,
) -> KnapsackAnswer:
    """The knapsack by ``kind``; the DP and the enumeration are exact, so their value is their lower bound.

    ``deadline`` is read while the DP adds applications and while the MILP is built (HiGHS then
    gets what is left of it); the enumeration is for tiny knapsacks only.
    """
    if kind == "milp":
        return knapsack_milp(costs, capacity, time_limit=time_limit, seed=seed, deadline=deadline)
    if kind == "dp":
        value, granules = knapsack_dp(costs, capacity, deadline)
    else:
        value, granules = knapsack_enumerate(costs, capacity)
    return KnapsackAnswer(value, granules, value)
