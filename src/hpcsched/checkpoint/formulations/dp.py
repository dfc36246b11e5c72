"""The exact method `dp`: rotor's persistent dynamic program over memory slots (Beaumont et al., ACM TOMS 2024).

The DP itself (recurrence, slot roundings, `best_persistent`) is in `persistent`.

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
from ..persistent import DpTableTooLarge, DpTooSlow, PersistentPlan, best_persistent, persistent_dp
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
