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
takes O(L), so the DP runs in O(S·L³). It is exact over persistent
sequences when every size, transient and M − x_0 is a multiple of the slot
(the slot is then their gcd, and the method says so). Otherwise
`best_persistent` runs three roundings (`dp_slots.slot_sizes`): sizes
rounded up and the budget down (what it finds fits in bytes), then sizes and
budget to the nearest slot (halves up), then sizes down and the budget up;
the last two are optimistic and their sequence is kept only when it is
faster and `simulate.peak` says it fits in bytes. When every rounding loses
every sequence it retries with four times as many slots (below 4000).

The default method `dp` first computes a baseline incumbent
(`incumbent.baseline_incumbent`, under the deadline: checkpoint_sequential
gets a quarter of the limit) and returns it, FEASIBLE, when the time
limit or ``max_cells`` cuts the DP short.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution
from ..simulate import peak as simulated_peak
from .dp_slots import SlotSizes, slot_size, slot_sizes
from .incumbent import baseline_incumbent, cut_short

_INFINITY = np.iinfo(np.int64).max // 4
_BUILDING = "building the DP table"
#: Runs of equal forward needs up to which the checkpoint block is masked by slices (see `_mask_too_small`).
_MOST_RUNS = 16


@dataclass(frozen=True)
class DpParams:
    """Options of `dp`.

    Attributes
    ----------
    slots
        Most memory slots S. When the gcd of the sizes gives at most S slots
        for the budget, the gcd is the slot (exact for the persistent class);
        otherwise the slot is ⌈(M − x_0) / S⌉ bytes and sizes are rounded
        (see `best_persistent`).
    max_cells
        Most cells (stage pairs × budgets) one DP table may have; None: no
        cap. Over it the DP is not run and `dp` returns its baseline
        incumbent, as when the time limit cuts the DP.
    """

    slots: int = 500
    max_cells: int | None = None

    def __post_init__(self) -> None:
        at_least("slots", self.slots, 1)
        if self.max_cells is not None:
            at_least("max_cells", self.max_cells, 1)


class DpTableTooLarge(Exception):
    """The DP table would exceed ``max_cells`` (a deterministic work budget, unlike the time limit)."""


@dataclass(frozen=True)
class PersistentPlan:
    """The DP's answer: total time (None: no persistent sequence fits), its sequence, slot size, exactness."""

    time: int | None
    sequence: tuple[tuple[str, int], ...]
    slot: int
    slots: int
    exact: bool


class _PersistentTable:
    """The DP table P(s, t)[m] of `persistent_dp` and its choices.

    Filled by increasing t, and for each t by decreasing s: P(s, t) reads
    P(s+1, t) and P(s', t) (s' > s, same t) and P(s, s'−1) (smaller t). Each
    cell is computed in place in its table row, with work buffers allocated
    once: allocating numpy temporaries per cell cost more system time (page
    faults) than the arithmetic.

    Parameters
    ----------
    instance
        A ``chain`` instance.
    sizes
        Its sizes in slots.
    """

    def __init__(self, instance: Instance, sizes: SlotSizes, deadline: Deadline, max_cells: int | None = None) -> None:
        L, S = instance.length, sizes.budget
        cells = (L + 1) * (L + 2) // 2 * (S + 1)
        if max_cells is not None and cells > max_cells:
            raise DpTableTooLarge(f"the DP table needs {cells} cells > max_cells = {max_cells}")
        self.instance, self.sizes, self.L, self.S = instance, sizes, L, S
        self.fw_prefix = np.concatenate([[0], np.cumsum(np.array(instance.fw, dtype=np.int64))])
        self.m = np.arange(S + 1)
        self.index = -np.ones((L + 2, L + 1), dtype=np.int64)
        pairs = 0
        for s in range(L + 1):
            deadline.check(_BUILDING)
            for t in range(s, L + 1):
                self.index[s, t] = pairs
                pairs += 1
        self.table = np.full((pairs, S + 1), _INFINITY, dtype=np.int64)
        # choice: -1 Fall, s' > 0 checkpoint x_{s'}, -2 infeasible
        self.choice = np.full((pairs, S + 1), -2, dtype=np.int16 if L < 32000 else np.int32)
        self.forward_need = self._forward_needs(deadline)
        # Work buffers. Row s' of `shifted` is P(s', t) shifted right by X[s'] (the budget left
        # once x_{s'} is stored), for the t being filled: the checkpoints' right-hand rows, contiguous.
        self.shifted = np.full((L + 1, S + 1), _INFINITY, dtype=np.int64)
        self.cost = np.empty((max(L, 1), S + 1), dtype=np.int64)
        self.too_small = np.empty((max(L, 1), S + 1), dtype=bool)
        self.better = np.empty(S + 1, dtype=bool)

    def _forward_needs(self, deadline: Deadline) -> list[np.ndarray]:
        """Forward need of F s .. F s'-1 (without delta_{t+1}): running max, per s."""
        X, FT = self.sizes.x, self.sizes.ftmp
        forward_need = []
        for s in range(self.L + 1):
            deadline.check(_BUILDING)
            need, running = [], 0
            for k in range(s, self.L):
                running = max(running, (X[k] if k > s else 0) + X[k + 1] + FT[k])
                need.append(running)  # need[s' - s - 1] for s' = k + 1
            forward_need.append(np.array(need, dtype=np.int64))
        return forward_need

    def fill(self, deadline: Deadline) -> None:
        """Every cell, by increasing t and decreasing s."""
        for t in range(self.L + 1):
            for s in range(t, -1, -1):
                deadline.check("filling the DP table")
                self._fill_cell(s, t)

    def _fill_cell(self, s: int, t: int) -> None:
        """P(s, t): the better of ``Fall s`` first and every checkpoint s' in (s, t], written in its row."""
        L = self.L
        held = self.sizes.x[t + 1] if t < L else 0
        best, how = self.table[self.index[s, t]], self.choice[self.index[s, t]]  # views, still INF / -2
        if s == L:  # t == L
            fits = self.sizes.x[L] + self.sizes.btmp[L]
            best[fits:], how[fits:] = self.instance.bw[L], -1
        else:
            self._try_fall_first(s, t, held, best, how)
        if t > s and s < L:
            self._try_checkpoints(s, t, held, best, how)
        self._keep_shifted(s, best)

    def _keep_shifted(self, s: int, best: np.ndarray) -> None:
        """Row s of `shifted`: P(s, t) at the budget m − X[s] (INF below X[s])."""
        shift = min(self.sizes.x[s], self.S + 1)
        self.shifted[s, :shift] = _INFINITY
        self.shifted[s, shift:] = best[: self.S + 1 - shift]

    def _try_fall_first(self, s: int, t: int, held: int, best: np.ndarray, how: np.ndarray) -> None:
        """``Fall s``, P(s+1, t) with xbar_{s+1} held, ``B s`` (the first candidate: ``best`` is all INF)."""
        X, XB, S = self.sizes.x, self.sizes.xbar, self.S
        need = max(held + XB[s + 1] + self.sizes.ftmp[s], XB[s + 1] + X[s + 1] + X[s] + self.sizes.btmp[s], XB[s + 1])
        if need > S:
            return
        step = self.instance.fw[s] + self.instance.bw[s]
        if s == t:  # P(s+1, s) = 0
            best[need:], how[need:] = step, -1
            return
        sub = self.table[self.index[s + 1, t], need - XB[s + 1] : S + 1 - XB[s + 1]]
        np.add(sub, step, out=best[need:])
        np.minimum(best[need:], _INFINITY, out=best[need:])  # INF + step back to INF
        np.less(sub, _INFINITY, out=self.better[need:])
        np.copyto(how[need:], -1, where=self.better[need:])

    def _try_checkpoints(self, s: int, t: int, held: int, best: np.ndarray, how: np.ndarray) -> None:
        """Every checkpoint s' in (s, t] at once: P(s', t) shifted by X[s'] plus P(s, s'-1), rows s' − s − 1.

        An entry where either part is INF sums to at least INF and never
        beats ``best`` (at most INF), so only the forwards' need is masked.
        """
        count, first = t - s, self.index[s, s]
        cost = self.cost[:count]
        # P(s', t) at m − X[s'] (rows s+1 .. t of `shifted`) + P(s, s'−1) at m (rows (s, s) .. (s, t−1))
        np.add(self.shifted[s + 1 : t + 1], self.table[first : first + count], out=cost)
        np.add(cost, (self.fw_prefix[s + 1 : t + 1] - self.fw_prefix[s])[:, None], out=cost)
        self._mask_too_small(cost, self.forward_need[s][:count] + held)
        pick = np.argmin(cost, axis=0)
        value = np.take_along_axis(cost, pick[None, :], axis=0)[0]
        np.less(value, best, out=self.better)
        np.copyto(best, value, where=self.better)
        np.copyto(how, pick + (s + 1), where=self.better)

    def _mask_too_small(self, cost: np.ndarray, need: np.ndarray) -> None:
        """INF where the budget m is below row j's forward need (``need`` is non-decreasing: a running max).

        The needs come in few runs of equal values on most chains (a running
        max of sizes), and a slice per run is much cheaper than a boolean mask
        over the whole block; many runs fall back to the mask.
        """
        starts = np.flatnonzero(np.diff(need)) + 1
        if len(starts) >= _MOST_RUNS:
            too_small = self.too_small[: len(need)]
            np.less(self.m, need[:, None], out=too_small)
            np.copyto(cost, _INFINITY, where=too_small)
            return
        for first, end in pairwise([0, *starts.tolist(), len(need)]):
            cost[first:end, : need[first]] = _INFINITY

    def sequence(self) -> tuple[tuple[str, int], ...]:
        """The optimal sequence of P(0, L) at the full budget, from the choices."""
        L, X, XB = self.L, self.sizes.x, self.sizes.xbar
        sequence: list[tuple[str, int]] = []
        # explicit stack of (s, t, m) subproblems and literal operations, to avoid recursion limits
        stack: list = [(0, L, self.S)]
        while stack:
            item = stack.pop()
            if isinstance(item[0], str):
                sequence.append(item)
                continue
            s, t, budget = item
            if s == t + 1:
                continue
            how = int(self.choice[self.index[s, t], budget])
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
        return tuple(sequence)


def persistent_dp(
    instance: Instance,
    slots: int = 500,
    deadline: Deadline | None = None,
    *,
    rounding: str = "up",
    max_cells: int | None = None,
) -> PersistentPlan:
    """Run the DP; return the optimal persistent sequence under the slot rounding.

    ``rounding="up"`` (sizes up, budget down) is conservative: the sequence
    fits in bytes. ``"nearest"`` and ``"down"`` (sizes down, budget up) are
    optimistic: the sequence may not fit, and the caller must check it
    (`best_persistent` does, with the simulator); they rescue budgets where
    rounding up loses every sequence.
    """
    deadline = deadline or Deadline(None)
    slot, exact = slot_size(instance, slots)
    dp = _PersistentTable(instance, slot_sizes(instance, slot, exact, rounding), deadline, max_cells)
    dp.fill(deadline)
    S = dp.S
    total = int(dp.table[dp.index[0, instance.length], S]) if S >= 0 else _INFINITY
    if S < 0 or total >= _INFINITY:
        return PersistentPlan(None, (), slot, max(S, 0), exact)
    return PersistentPlan(total, dp.sequence(), slot, S, exact)


def best_persistent(
    instance: Instance, slots: int, deadline: Deadline, *, max_cells: int | None = None
) -> tuple[PersistentPlan, list[str]]:
    """The conservative DP, or an optimistic rounding's when it is better and fits in bytes (simulator check).

    Rounding up can lose every sequence at a tight budget (and costs time at
    any budget); rounding to the nearest slot may not fit, so its sequence is
    kept only when `simulate.peak` says it fits.
    """
    plan = persistent_dp(instance, slots, deadline, max_cells=max_cells)
    if plan.exact:
        return plan, []
    notes: list[str] = []
    for rounding in ("nearest", "down"):
        other = persistent_dp(instance, slots, deadline, rounding=rounding, max_cells=max_cells)
        if (
            other.time is not None
            and (plan.time is None or other.time < plan.time)
            and simulated_peak(instance, other.sequence) <= instance.memory
        ):
            plan, notes = (
                other,
                [
                    f"sizes rounded {'to the nearest slot' if rounding == 'nearest' else 'down'}; "
                    "the sequence was checked to fit in bytes"
                ],
            )
    if plan.time is None and slots < 4000:
        # a tight budget lost to rounding: once more with four times finer slots
        finer, finer_notes = best_persistent(instance, 4 * slots, deadline, max_cells=max_cells)
        return finer, [*finer_notes, f"{slots} slots lost every sequence; {4 * slots} slots used"]
    return plan, notes


def dp(instance: Instance, /, *, time_limit: float, seed: int, params: DpParams | None) -> Result:
    """rotor's persistent DP over memory slots, O(S·L³): optimal among persistent sequences.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused: the DP is deterministic).
    params : DpParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        The best persistent sequence found, with the instance's lower bound
        `bounds.best`: OPTIMAL when its time reaches that bound, else FEASIBLE;
        NOT_APPLICABLE when no persistent sequence fits the slot-rounded budget.
    """
    params = params or DpParams()
    deadline = Deadline.after(time_limit)
    # computed first so that a time limit (or max_cells) cutting the DP still leaves an answer
    incumbent = baseline_incumbent(instance, deadline, time_limit)
    try:
        plan, extra = best_persistent(instance, params.slots, deadline, max_cells=params.max_cells)
    except (TimeLimitReached, DpTableTooLarge) as stop:
        return cut_short(instance, incumbent, stop)
    rounding = (
        f"slot = {plan.slot} bytes, {plan.slots} slots: sizes are multiples of the slot, exact for persistent sequences"
        if plan.exact
        else f"slot = {plan.slot} bytes, {plan.slots} slots: sizes rounded to whole slots (feasible, "
        "maybe suboptimal even among persistent sequences)"
    )
    bound = bounds.best(instance)
    if plan.time is None or (incumbent is not None and incumbent.time < plan.time):
        if incumbent is None:
            # The restriction (persistent, rounded) proves nothing about the instance.
            return Result(
                status=Status.NOT_APPLICABLE,
                notes=(
                    "no persistent sequence fits the rounded budget; this does not prove the instance infeasible",
                    rounding,
                ),
            )
        why = "no persistent sequence fits the rounded budget" if plan.time is None else "faster than the DP's"
        status = Status.OPTIMAL if bound >= incumbent.time else Status.FEASIBLE
        return Result(
            status=status,
            solution=incumbent.solution,
            bound=float(bound),
            notes=(f"the {incumbent.method} baseline's sequence ({why})", rounding),
        )
    status = Status.OPTIMAL if bound >= plan.time else Status.FEASIBLE
    notes = [rounding, *extra]
    if plan.exact:
        notes.append("optimal among persistent sequences")
    return Result(status=status, solution=Solution(plan.sequence), bound=float(bound), notes=tuple(notes))


__all__ = [
    "DpParams",
    "DpTableTooLarge",
    "PersistentPlan",
    "best_persistent",
    "dp",
    "persistent_dp",
]
