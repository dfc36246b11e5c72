"""rotor's persistent dynamic program over memory slots (Beaumont et al., ACM TOMS 2024).

The subproblem P(s, t, m), s <= t <= L: the input of stage s is held (its
bytes are counted by the caller), and so is delta_{t+1} when t < L (counted
in m); run ``B t .. B s`` and end holding delta_s, within m free slots.
Two ways to start (rotor's recurrence, in this package's operations):

* ``Fall s`` (s < L): keep xbar_{s+1}, solve P(s+1, t, m − xbar_{s+1}) with
  xbar_{s+1} as the input of s+1, then ``B s``.
  Memory: Fall holds delta_{t+1} + xbar_{s+1} + ftmp_s; B s holds xbar_{s+1}
  + delta_{s+1} + delta_s + btmp_s.
* checkpoint x_{s'} (s < s' <= t): ``F s .. F s'-1`` (each F k holds
  delta_{t+1}, x_k for k > s, x_{k+1}, ftmp_k), solve P(s', t, m − x_{s'}),
  then P(s, s'−1, m) with delta_{s'} held.
* P(L, L, m) = ``B L`` (holds delta_L + btmp_L); P(t+1, t, m) = 0.

A sequence built this way is *persistent*: once stored, a value is kept
until the backward that consumes it. The table has O(L²·S) entries and each
takes O(L), so the DP runs in O(S·L³). Sizes are divided by the slot and
rounded up, the budget rounded down: whatever the DP finds fits in bytes.
It is exact over persistent sequences when every size, transient and
M − x_0 is a multiple of the slot (the method then says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce

import numpy as np

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution
from ..simulate import peak as simulated_peak

_INFINITY = np.iinfo(np.int64).max // 4


@dataclass(frozen=True)
class DpParams:
    """Options of `dp`.

    Attributes
    ----------
    slots
        Most memory slots S. When the gcd of the sizes gives at most S slots
        for the budget, the gcd is the slot (exact for the persistent class);
        otherwise the slot is ⌈(M − x_0) / S⌉ bytes and sizes are rounded up.
    """

    slots: int = 500

    def __post_init__(self) -> None:
        at_least("slots", self.slots, 1)


@dataclass(frozen=True)
class PersistentPlan:
    """The DP's answer: total time (None: no persistent sequence fits), its sequence, slot size, exactness."""

    time: int | None
    sequence: tuple[tuple[str, int], ...]
    slot: int
    slots: int
    exact: bool


def _slot_size(instance: Instance, slots: int) -> tuple[int, bool]:
    """The gcd of the sizes when it gives at most ``slots`` slots (exact), else ⌈(M − x_0)/slots⌉."""
    budget = instance.memory - instance.x[0]
    values = [v for v in (*instance.x, *instance.xbar[1:], *instance.ftmp, *instance.btmp, budget) if v > 0]
    divisor = reduce(math.gcd, values, 0) or 1
    if budget // divisor <= slots:
        return divisor, True
    return max(1, math.ceil(budget / slots)), False


def persistent_dp(instance: Instance, slots: int = 500, deadline: Deadline | None = None, *,
                  rounding: str = "up") -> PersistentPlan:
    """Run the DP; return the optimal persistent sequence under the slot rounding.

    ``rounding="up"`` (sizes up, budget down) is conservative: the sequence
    fits in bytes. ``"nearest"`` and ``"down"`` (sizes down, budget up) are
    optimistic: the sequence may not fit, and the caller must check it
    (`best_persistent` does, with the simulator); they rescue budgets where
    rounding up loses every sequence.
    """
    deadline = deadline or Deadline(None)
    L = instance.length
    slot, exact = _slot_size(instance, slots)
    if rounding == "nearest" and not exact:
        def up(value: int) -> int:
            return (2 * value + slot) // (2 * slot)

        S = up(instance.memory - instance.x[0])
    elif rounding == "down" and not exact:
        def up(value: int) -> int:
            return value // slot

        S = -(-(instance.memory - instance.x[0]) // slot)
    else:
        def up(value: int) -> int:
            return -(-value // slot)

        S = (instance.memory - instance.x[0]) // slot
    X = [up(v) for v in instance.x]
    XB = [0] + [up(v) for v in instance.xbar[1:]]
    FT = [up(v) for v in instance.ftmp]
    BT = [up(v) for v in instance.btmp]
    fw = np.array(instance.fw, dtype=np.int64)
    fw_prefix = np.concatenate([[0], np.cumsum(fw)])
    m = np.arange(S + 1)
    index = -np.ones((L + 2, L + 1), dtype=np.int64)
    pairs = 0
    for s in range(L + 1):
        for t in range(s, L + 1):
            index[s, t] = pairs
            pairs += 1
    table = np.full((pairs, S + 1), _INFINITY, dtype=np.int64)
    # choice: -1 Fall, s' > 0 checkpoint x_{s'}, -2 infeasible
    choice = np.full((pairs, S + 1), -2, dtype=np.int16 if L < 32000 else np.int32)
    # forward need of F s .. F s'-1 (without delta_{t+1}): running max, per s
    forward_need = []
    for s in range(L + 1):
        need, running = [], 0
        for k in range(s, L):
            running = max(running, (X[k] if k > s else 0) + X[k + 1] + FT[k])
            need.append(running)  # need[s' - s - 1] for s' = k + 1
        forward_need.append(np.array(need, dtype=np.int64))

    def row(s: int, t: int) -> np.ndarray:
        if s == t + 1:
            return np.zeros(S + 1, dtype=np.int64)
        return table[index[s, t]]

    for d in range(L + 1):
        deadline.check("filling the DP table")
        for s in range(L - d + 1):
            t = s + d
            held = X[t + 1] if t < L else 0
            best = np.full(S + 1, _INFINITY, dtype=np.int64)
            how = np.full(S + 1, -2, dtype=choice.dtype)
            if s == L:  # t == L
                best[m >= X[L] + BT[L]] = instance.bw[L]
                how[m >= X[L] + BT[L]] = -1
            else:
                need = max(held + XB[s + 1] + FT[s], XB[s + 1] + X[s + 1] + X[s] + BT[s], XB[s + 1])
                if need <= S:
                    sub = row(s + 1, t)
                    shifted = np.full(S + 1, _INFINITY, dtype=np.int64)
                    shifted[XB[s + 1]:] = sub[: S + 1 - XB[s + 1]]
                    candidate = np.where((m >= need) & (shifted < _INFINITY),
                                         shifted + instance.fw[s] + instance.bw[s], _INFINITY)
                    better = candidate < best
                    best[better], how[better] = candidate[better], -1
            if d >= 1 and s < L:
                # every checkpoint s' in (s, t] at once: rows of P(s', t) shifted by X[s'], plus P(s, s'-1)
                targets = np.arange(s + 1, t + 1)
                right = table[index[targets, t]]
                left = np.stack([row(s, sp - 1) for sp in targets])
                shift = np.array([X[sp] for sp in targets])
                source = m[None, :] - shift[:, None]
                gathered = np.take_along_axis(right, np.clip(source, 0, S), axis=1)
                need = forward_need[s][: len(targets)] + held
                valid = (source >= 0) & (m[None, :] >= need[:, None]) & (gathered < _INFINITY) & (left < _INFINITY)
                cost = np.where(valid, gathered + left + (fw_prefix[targets] - fw_prefix[s])[:, None], _INFINITY)
                pick = np.argmin(cost, axis=0)
                value = cost[pick, m]
                better = value < best
                best[better] = value[better]
                how[better] = targets[pick[better]]
            table[index[s, t]] = best
            choice[index[s, t]] = how
    total = int(table[index[0, L], S]) if S >= 0 else _INFINITY
    if S < 0 or total >= _INFINITY:
        return PersistentPlan(None, (), slot, max(S, 0), exact)
    sequence: list[tuple[str, int]] = []
    # explicit stack of (s, t, m) subproblems and literal operations, to avoid recursion limits
    stack: list = [(0, L, S)]
    while stack:
        item = stack.pop()
        if isinstance(item[0], str):
            sequence.append(item)
            continue
        s, t, budget = item
        if s == t + 1:
            continue
        how = int(choice[index[s, t], budget])
        if s == L:
            sequence.append(("B", L))
        elif how == -1:
            # Fall s, P(s+1, t), B s  (pushed in reverse)
            stack.append(("B", s))
            stack.append((s + 1, t, budget - XB[s + 1]))
            sequence.append(("Fall", s))
        else:
            sp = how
            stack.append((s, sp - 1, budget))
            stack.append((sp, t, budget - X[sp]))
            sequence.extend(("F", k) for k in range(s, sp))
    return PersistentPlan(total, tuple(sequence), slot, S, exact)


def best_persistent(instance: Instance, slots: int, deadline: Deadline) -> tuple[PersistentPlan, list[str]]:
    """The conservative DP, or an optimistic rounding's when it is better and fits in bytes (simulator check).

    Rounding up can lose every sequence at a tight budget (and costs time at
    any budget); rounding to the nearest slot may not fit, so its sequence is
    kept only when `simulate.peak` says it fits.
    """
    plan = persistent_dp(instance, slots, deadline)
    if plan.exact:
        return plan, []
    notes: list[str] = []
    for rounding in ("nearest", "down"):
        other = persistent_dp(instance, slots, deadline, rounding=rounding)
        if other.time is not None and (plan.time is None or other.time < plan.time) \
                and simulated_peak(instance, other.sequence) <= instance.memory:
            plan, notes = other, [f"sizes rounded {'to the nearest slot' if rounding == 'nearest' else 'down'}; "
                                  "the sequence was checked to fit in bytes"]
    if plan.time is None and slots < 4000:
        # a tight budget lost to rounding: once more with four times finer slots
        finer, finer_notes = best_persistent(instance, 4 * slots, deadline)
        return finer, [*finer_notes, f"{slots} slots lost every sequence; {4 * slots} slots used"]
    return plan, notes

def dp(instance: Instance, /, *, time_limit: float, seed: int, params: DpParams | None) -> Result:
    """rotor's persistent DP over memory slots, O(S·L³): optimal among persistent sequences."""
    params = params or DpParams()
    deadline = Deadline.after(time_limit)
    plan, extra = best_persistent(instance, params.slots, deadline)
    rounding = (f"slot = {plan.slot} bytes, {plan.slots} slots: sizes are multiples of the slot, exact for "
                "persistent sequences" if plan.exact else
                f"slot = {plan.slot} bytes, {plan.slots} slots: sizes rounded to whole slots (feasible, "
                "maybe suboptimal even among persistent sequences)")
    if plan.time is None:
        # The restriction (persistent, rounded) proves nothing about the instance.
        return Result(status=Status.NOT_APPLICABLE,
                      notes=("no persistent sequence fits the rounded budget; this does not prove the instance "
                             "infeasible", rounding))
    bound = bounds.best(instance)
    status = Status.OPTIMAL if bound >= plan.time else Status.FEASIBLE
    notes = [rounding, *extra]
    if plan.exact:
        notes.append("optimal among persistent sequences")
    return Result(status=status, solution=Solution(plan.sequence), bound=float(bound), notes=tuple(notes))


__all__ = ["DpParams", "PersistentPlan", "best_persistent", "dp", "persistent_dp"]
