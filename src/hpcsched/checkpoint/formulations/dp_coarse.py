"""dp-coarse: the persistent DP with few memory slots, a fast heuristic.

It lives with the DP it runs (formulations sit above heuristics in the
package's layers; the DP's incumbent uses the heuristics' baselines).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.deadline import Deadline
from ...core.params import at_least
from ...core.result import Result, Status
from ..heuristics import _answer
from ..model import Instance
from ..persistent import DpTableTooLarge, best_persistent


@dataclass(frozen=True)
class CoarseDpParams:
    """Options of `dp_coarse`: ``slots``, the number of memory slots (few: fast, coarse)."""

    slots: int = 40

    def __post_init__(self) -> None:
        at_least("slots", self.slots, 1)


def dp_coarse(instance: Instance, /, *, time_limit: float, seed: int, params: CoarseDpParams | None) -> Result:
    """The persistent DP with few slots (`best_persistent`'s roundings, checked to fit): fast and feasible.

    Parameters
    ----------
    instance
        The chain (kind ``chain``; the registry runs remat-only methods on a
        ``chain-offload`` instance through its chain, see the package).
    time_limit
        Seconds of wall time the method may use.
    seed
        Random seed (unused).
    params : CoarseDpParams or None
        Options (None: the defaults).

    Returns
    -------
    Result
        FEASIBLE with the coarse DP's sequence (OPTIMAL when its time reaches the
        lower bound); NOT_APPLICABLE when no coarse sequence fits M.
    """
    params = params or CoarseDpParams()
    deadline = Deadline.after(time_limit)
    try:
        plan, extra = best_persistent(instance, params.slots, deadline)
    except DpTableTooLarge as refused:
        return Result(status=Status.NOT_APPLICABLE, notes=(str(refused),))
    if plan.time is None:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=(f"no persistent sequence fits {plan.slots} slots of {plan.slot} bytes",),
        )
    return _answer(instance, plan.sequence, (f"slot = {plan.slot} bytes, {plan.slots} slots", *extra), deadline)
