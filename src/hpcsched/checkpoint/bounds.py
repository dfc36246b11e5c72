"""Lower bounds on the total time of a checkpoint sequence, each proven in its docstring."""

from __future__ import annotations

import math

import numpy as np

from ..core.deadline import Deadline
from .model import Instance, store_all_peak


def compute_time(instance: Instance) -> int:
    """Σfw + Σbw.

    Proof: every ``B i`` runs once (rule 4), and ``B i`` (i < L) reads
    xbar_{i+1}, which only ``Fall i`` produces, so every stage is forwarded
    at least once.
    """
    return instance.compute_time


def no_recomputation_bound(instance: Instance) -> int:
    """Σfw + Σbw + min fw when M is below the store-all peak, else Σfw + Σbw.

    Proof: a sequence that forwards every stage exactly once forwards it with
    ``Fall`` (``B i`` reads xbar_{i+1}); ``Fall i`` reads x_i, which no ``F``
    produced, so it is served by xbar_i and runs after ``Fall i-1`` and before
    ``B i-1``; ``B L`` reads x_L, so every Fall precedes it. The sequence is
    therefore ``Fall 0..L-1, B L..0``, whose held values are fixed by the
    definition: its peak is `store_all_peak`. Below that budget some stage is
    forwarded twice, which costs at least min_i fw_i more.
    """
    if instance.memory >= store_all_peak(instance):
        return instance.compute_time
    return instance.compute_time + min(instance.fw)


#: Stages above which the LP of `single_forward_lp` is not solved (HiGHS took 0.2 s at 2,000 stages, 1.5 s
#: at 10^4 and over 30 s at 10^5): the one-row bounds stand in (their recomputation term within 5 %, the
#: bound within 1 %, of the LP's on 40 random and transformer chains of 16 to 800 stages).
LP_MAX_STAGES = 2_000

#: Rows whose one-row (fractional knapsack) bound `single_forward_lp` evaluates when the LP is not solved.
KNAPSACK_ROWS = 16


def _single_forward_rows(instance: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The LP's rows, sparse: row j (1..L) is ``prefix_j · s − x_j s_{j-1} <= rhs_j``.

    Returns ``(weight, diagonal, rhs)``: ``weight[i] = xbar_{i+1}`` (the coefficient of s_i in every row
    j > i), ``diagonal[j-1] = x_j`` (subtracted in row j), ``rhs[j-1]``.
    """
    L = instance.length
    x = np.asarray(instance.x, dtype=float)
    weight = np.asarray(instance.xbar[1:], dtype=float)
    btmp = np.asarray(instance.btmp, dtype=float)
    j = np.arange(1, L + 1)
    constant = x[0] + 2 * x[j] + btmp[j]  # x_0, server of x_j, delta_j (delta_L for j = L)
    constant[:-1] += weight[1:] + x[2:]  # B j (j < L) reads xbar_{j+1} and delta_{j+1}
    return weight, x[1:], instance.memory - constant


def _dual_value(instance: Instance, rows, y: np.ndarray) -> float:
    """Weak duality: for any y >= 0 (one per row), Σ rhs·y + Σ_i max(0, fw_i − (Aᵀy)_i) >= the LP's maximum.

    (Aᵀy)_i = xbar_{i+1}·Σ_{j > i} y_j − x_{i+1}·y_{i+1}: a suffix sum, O(L).
    """
    weight, diagonal, rhs = rows
    y = np.maximum(y, 0.0)
    after = np.cumsum(y[::-1])[::-1]  # after[i] = Σ_{j >= i+1} y_j (rows j > i, 1-based)
    reduced = np.asarray(instance.fw, dtype=float) - (weight * after - diagonal * y)
    return float(rhs @ y + np.maximum(reduced, 0.0).sum())


def _knapsack_row_value(instance: Instance, rows, row: int) -> float:
    """min over λ >= 0 of the dual value with y = λ on one row (its fractional knapsack), O(L log L)."""
    weight, diagonal, rhs = rows
    L = instance.length
    if rhs[row] < 0:  # cannot happen for a legal instance (s = 0 is feasible); then this row proves nothing
        return math.inf
    coefficient = np.where(np.arange(L) < row, weight, 0.0)
    coefficient[row] = max(weight[row] - diagonal[row], 0.0) if row < L else 0.0
    # the coefficient of s_{row} in row j = row + 1 is xbar_{row+1} − x_{row+1} >= 0 (xbar includes x)
    fw = np.asarray(instance.fw, dtype=float)
    ratio = np.divide(fw, coefficient, out=np.full(L, np.inf), where=coefficient > 0)
    order = np.argsort(-ratio, kind="stable")
    filled = np.cumsum(coefficient[order])
    k = int(np.searchsorted(filled, rhs[row], side="right"))  # items before k fit whole: λ = the k-th ratio
    best = math.inf
    for at in {max(k - 1, 0), min(k, L - 1)}:
        lam = float(ratio[order[at]]) if math.isfinite(ratio[order[at]]) else 0.0
        y = np.zeros(L)
        y[row] = lam
        best = min(best, _dual_value(instance, rows, y))
    return best


#: The last solved LPs' certificates, by the data the LP reads: a method asks for `best` once per heuristic
#: answer it makes (dp's baselines, then its own), and the LP is the same each time.
_SOLVED: dict[tuple, float] = {}
_SOLVED_KEPT = 8


def _lp_upper_value(instance: Instance, rows, deadline: Deadline | None) -> tuple[float, str]:
    """An upper bound on the LP's maximum (a dual certificate) and how it was found."""
    weight, diagonal, rhs = rows
    L = instance.length
    key = (instance.fw, instance.x, instance.xbar, instance.btmp, instance.memory)
    if key in _SOLVED:
        return _SOLVED[key], "LP"
    remaining = None if deadline is None else deadline.remaining()
    if L <= LP_MAX_STAGES and (remaining is None or remaining > 0):
        from scipy.optimize import linprog  # imported only to be used (its first import is not cheap)
        from scipy.sparse import csr_matrix

        # Variables s_0..s_{L-1}, P_1..P_L with P_j = Σ_{i<j} xbar_{i+1} s_i: O(L) nonzeros, not L²/2.
        index = np.arange(L)
        upper = csr_matrix(
            (np.r_[np.ones(L), -diagonal], (np.r_[index, index], np.r_[L + index, index])), shape=(L, 2 * L)
        )
        running = csr_matrix(
            (
                np.concatenate([np.ones(L), -np.ones(L - 1), -weight]),
                (np.concatenate([index, index[1:], index]), np.concatenate([L + index, L + index[:-1], index])),
            ),
            shape=(L, 2 * L),
        )
        box = np.stack([np.r_[np.zeros(L), np.full(L, -np.inf)], np.r_[np.ones(L), np.full(L, np.inf)]], axis=1)
        cost = np.r_[-np.asarray(instance.fw, dtype=float), np.zeros(L)]
        options = {} if remaining is None else {"time_limit": remaining}
        result = linprog(
            cost, A_ub=upper, b_ub=rhs, A_eq=running, b_eq=np.zeros(L), bounds=box, method="highs", options=options
        )
        if result.status == 0:
            # HiGHS's duals (≤ 0 for ≤ rows in a minimization) as a certificate, re-evaluated exactly:
            # the bound does not rest on the solver's tolerances.
            value = _dual_value(instance, rows, -np.asarray(result.ineqlin.marginals))
            if len(_SOLVED) >= _SOLVED_KEPT:
                del _SOLVED[next(iter(_SOLVED))]  # the oldest
            _SOLVED[key] = value
            return value, "LP"
    # Without the LP: the best one-row bound over the last row and the rows with the least slack.
    slack = rhs / np.maximum(np.cumsum(weight), 1.0)
    candidates = {L - 1, *np.argsort(slack, kind="stable")[:KNAPSACK_ROWS].tolist()}
    return min(_knapsack_row_value(instance, rows, int(row)) for row in candidates), "knapsack rows"


def single_forward_lp(instance: Instance, deadline: Deadline | None = None) -> int:
    """Σfw + Σbw + ⌈Σfw − U⌉ where U bounds the forward time that is never repeated.

    Proof: let S be the stages forwarded exactly once. For i in S the one
    forward is a ``Fall i`` before ``B L`` (``B i`` reads xbar_{i+1}, ``B L``
    reads x_L through the chain), and xbar_{i+1} is held from it until ``B i``.
    Hence during ``B j`` every xbar_{i+1}, i in S, i < j, is held, besides
    x_0, the server of x_j (xbar_j if j-1 in S, counted in the sum, else
    >= x_j bytes), and, for j < L, xbar_{j+1}, delta_{j+1}, delta_j; for j = L,
    delta_L. With s_i = [i in S], every such footprint plus btmp_j is <= M:
    linear constraints A s <= b. The stages outside S are forwarded at least
    twice, so the recomputation time is >= Σ_{i not in S} fw_i >= Σfw − LP,
    LP the maximum of Σ fw_i s_i over the relaxation s in [0, 1]^L. Any
    y >= 0 gives U = bᵀy + Σ_i max(0, fw_i − (Aᵀy)_i) >= LP (weak duality),
    so the bound holds whatever y is: HiGHS's duals of the LP (solved with
    O(L) nonzeros, under the deadline, up to `LP_MAX_STAGES` stages), else the
    best multiple of one row (a fractional knapsack, exact for that row). A
    margin of 1e-6·(1 + Σfw) absorbs floating-point rounding before rounding
    up (the recomputation time is an integer).

    Parameters
    ----------
    instance
        A ``chain`` instance.
    deadline
        HiGHS gets what it leaves (None: no limit); past it, or when HiGHS is
        cut, the one-row bounds stand in (weaker, still proven).
    """
    if instance.memory >= store_all_peak(instance):
        return instance.compute_time
    rows = _single_forward_rows(instance)
    best_once, _ = _lp_upper_value(instance, rows, deadline)
    total = float(sum(instance.fw))
    margin = 1e-6 * (1 + total)  # float rounding of the certificate (never lifts the bound)
    recompute = max(0, math.ceil(total - best_once - margin))
    return instance.compute_time + recompute


def best(instance: Instance, deadline: Deadline | None = None) -> int:
    """The largest of the bounds above (kind ``chain-offload``: Σfw + Σbw only).

    The other two argue that stages must be recomputed because the stored
    values do not fit; with a host level they may be offloaded instead.
    ``deadline`` limits the LP of `single_forward_lp` (None: no limit).
    """
    if instance.kind == "chain-offload":
        return compute_time(instance)
    return max(compute_time(instance), no_recomputation_bound(instance), single_forward_lp(instance, deadline))
