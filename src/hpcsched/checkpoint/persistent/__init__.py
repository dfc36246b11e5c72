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
`best_persistent` runs three roundings (`slots.slot_sizes`): sizes
rounded up and the budget down (what it finds fits in bytes), then sizes and
budget to the nearest slot (halves up), then sizes down and the budget up;
the last two are optimistic and their sequence is kept only when it is
faster and `simulate.peak` says it fits in bytes. When every rounding loses
every sequence it retries with four times as many slots (below 4000).

The engine behind the exact method `formulations.dp` and the remat sequences that
`offload_candidates` (hence `offload_greedy`) and `offload_dp` start from, so it sits
below them all (it reads only the model and the simulator).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline
from ..model import Instance
from ..simulate import peak as simulated_peak
from .slots import slot_size, slot_sizes
from .table import INFINITY, DpTableTooLarge, DpTooSlow, PersistentTable


@dataclass(frozen=True)
class PersistentPlan:
    """The DP's answer: total time (None: no persistent sequence fits), its sequence, slot size, exactness."""

    time: int | None
    sequence: tuple[tuple[str, int], ...]
    slot: int
    slots: int
    exact: bool


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
    dp = PersistentTable(instance, slot_sizes(instance, slot, exact, rounding), deadline, max_cells)
    dp.fill(deadline)
    S = dp.S
    total = int(dp.table[dp.index[0, instance.length], S]) if S >= 0 else INFINITY
    if S < 0 or total >= INFINITY:
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


__all__ = [
    "DpTableTooLarge",
    "DpTooSlow",
    "PersistentPlan",
    "best_persistent",
    "persistent_dp",
]
