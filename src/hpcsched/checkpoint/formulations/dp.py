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

from ...core.deadline import Deadline, TimeLimitReached
from ...core.params import at_least
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution, too_long_to_check
from ..simulate import peak as simulated_peak
from .dp_slots import slot_size, slot_sizes
from .dp_table import INFINITY, DpTableTooLarge, DpTooSlow, PersistentTable
from .incumbent import baseline_incumbent, cut_short


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
        return cut_short(instance, incumbent, stop, deadline=deadline)
    rounding = (
        f"slot = {plan.slot} bytes, {plan.slots} slots: sizes are multiples of the slot, exact for persistent sequences"
        if plan.exact
        else f"slot = {plan.slot} bytes, {plan.slots} slots: sizes rounded to whole slots (feasible, "
        "maybe suboptimal even among persistent sequences)"
    )
    bound = bounds.best(instance, deadline)
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
    too_long = too_long_to_check(instance.kind, len(plan.sequence), deadline)
    if too_long is not None:
        return cut_short(instance, incumbent, TimeLimitReached(too_long), deadline=deadline)
    status = Status.OPTIMAL if bound >= plan.time else Status.FEASIBLE
    notes = [rounding, *extra]
    if plan.exact:
        notes.append("optimal among persistent sequences")
    return Result(status=status, solution=Solution(plan.sequence), bound=float(bound), notes=tuple(notes))


__all__ = [
    "DpParams",
    "DpTableTooLarge",
    "DpTooSlow",
    "PersistentPlan",
    "best_persistent",
    "dp",
    "persistent_dp",
]
