"""Lower bounds on the total time of a checkpoint sequence, each proven in its docstring."""

from __future__ import annotations

import math

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


def single_forward_lp(instance: Instance) -> int:
    """Σfw + Σbw + ⌈Σfw − LP⌉ where LP bounds the forward time that is never repeated.

    Proof: let S be the stages forwarded exactly once. For i in S the one
    forward is a ``Fall i`` before ``B L`` (``B i`` reads xbar_{i+1}, ``B L``
    reads x_L through the chain), and xbar_{i+1} is held from it until ``B i``.
    Hence during ``B j`` every xbar_{i+1}, i in S, i < j, is held, besides
    x_0, the server of x_j (xbar_j if j-1 in S, counted in the sum, else
    >= x_j bytes), and, for j < L, xbar_{j+1}, delta_{j+1}, delta_j; for j = L,
    delta_L. With s_i = [i in S], every such footprint plus btmp_j is <= M:
    linear constraints on s. The stages outside S are forwarded at least
    twice, so the recomputation time is >= Σ_{i not in S} fw_i >= Σfw − LP,
    LP the maximum of Σ fw_i s_i over the relaxation s in [0, 1]^L (HiGHS;
    a margin of 1e-6·(1 + Σfw) absorbs its tolerance before rounding up: the
    recomputation time is an integer).
    """
    from scipy.optimize import linprog

    L, x, xb, M = instance.length, instance.x, instance.xbar, instance.memory
    if instance.memory >= store_all_peak(instance):
        return instance.compute_time
    rows, rhs = [], []
    for j in range(1, L + 1):
        row = [0.0] * L
        for i in range(j):  # xbar_{i+1}, i in S, i < j, is held during B j
            row[i] += xb[i + 1]
        row[j - 1] -= x[j]  # the server of x_j: xbar_j (in the sum) when j-1 in S, else x_j bytes
        constant = x[0] + x[j] + x[j] + instance.btmp[j]  # x_0, server of x_j, delta_j (delta_L for j = L)
        if j < L:
            constant += xb[j + 1] + x[j + 1]  # B j reads xbar_{j+1} and delta_{j+1}
        rows.append(row)
        rhs.append(M - constant)
    result = linprog(c=[-f for f in instance.fw], A_ub=rows, b_ub=rhs, bounds=[(0, 1)] * L, method="highs")
    if result.status != 0:
        # Infeasible relaxation cannot happen for a legal instance (s = 0 reduces the rows to
        # footprints `memory_lower_bound` checks); fall back to the other bound rather than guess.
        return no_recomputation_bound(instance)
    best_once = -result.fun
    # Margin for the LP tolerance, relative to the magnitudes involved (never lifts the bound).
    margin = 1e-6 * (1 + sum(instance.fw))
    recompute = max(0, math.ceil(sum(instance.fw) - best_once - margin))
    return instance.compute_time + recompute


def best(instance: Instance) -> int:
    """The largest of the bounds above (kind ``chain-offload``: Σfw + Σbw only).

    The other two argue that stages must be recomputed because the stored
    values do not fit; with a host level they may be offloaded instead.
    """
    if instance.kind == "chain-offload":
        return compute_time(instance)
    return max(compute_time(instance), no_recomputation_bound(instance), single_forward_lp(instance))
