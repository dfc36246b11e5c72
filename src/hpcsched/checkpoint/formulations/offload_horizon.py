"""The horizon cpsat-offload models: a proven one (a known valid schedule's makespan) or the user's.

The cheap refusals come first: every schedule takes at least Σfw + Σbw
(`bounds.best`), so when that exceeds ``max_horizon`` no proven horizon can
fit and the method answers NOT_APPLICABLE at once (before, it ran rotor's DP
without a deadline to learn a horizon of 51,912 on a 300-stage chain:
4-5 s at -t 0.5). The searches for a known schedule (rotor's DP, then
`offload_greedy`) run under the method's deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from ..model import Instance, Solution, store_all_peak

if TYPE_CHECKING:
    from .cpsat_offload import CpsatOffloadParams


def known_horizon(instance: Instance, deadline: Deadline | None = None) -> int | None:
    """The makespan of a valid remat-only schedule (store-all, else the persistent DP), None if none fits.

    The DP runs under ``deadline`` (None: no limit); `TimeLimitReached` when it passes.
    """
    from ..persistent import persistent_dp

    chain = instance.as_chain() if instance.kind == "chain-offload" else instance
    if chain.memory >= store_all_peak(chain):
        return chain.compute_time
    from .. import model as chain_model

    try:
        plan = persistent_dp(chain, deadline=deadline)
    except TimeLimitReached:
        raise
    except Exception:
        plan = None
    if plan is not None and plan.time is not None and not chain_model.validate(chain, Solution(plan.sequence)):
        return int(plan.time)
    return None


def offload_horizon(instance: Instance, time_limit: float) -> int | None:
    """The makespan of the `offload_greedy` schedule when it is valid by the definition (None otherwise).

    Used when no remat-only schedule fits M (below the chain's memory floor):
    any valid two-level schedule proves that the optimum is within its makespan.
    """
    from ..model.two_levels import evaluate_two_levels, validate_two_levels
    from ..offload_greedy import offload_greedy

    try:
        result = offload_greedy(instance, time_limit=time_limit, seed=0, params=None)
    except Exception:
        return None
    if result.solution is None or validate_two_levels(instance, result.solution):
        return None
    return int(evaluate_two_levels(instance, result.solution)["makespan"])


@dataclass(frozen=True)
class Horizon:
    """The modelled horizon and whether a known valid schedule proves it long enough.

    Attributes
    ----------
    length
        Time units modelled (H).
    proven
        Makespan of a known valid schedule (None: none known).
    """

    length: int
    proven: int | None


def choose_horizon(instance: Instance, params: CpsatOffloadParams, deadline: Deadline) -> Horizon | Result:
    """The horizon to model, or the NOT_APPLICABLE result saying why there is none (cheap refusals first).

    `TimeLimitReached` when the deadline passes while a known schedule is sought.
    """
    refused = _too_long(instance, params)
    if refused is not None:
        return refused
    try:
        proven_horizon = known_horizon(instance, deadline)
    except TimeLimitReached:
        raise
    except Exception:
        proven_horizon = None
    if proven_horizon is None and params.horizon is None:
        left = deadline.remaining()
        proven_horizon = offload_horizon(instance, 60.0 if left is None else left / 4)
    horizon = params.horizon if params.horizon is not None else proven_horizon
    if horizon is None:
        return Result(
            status=Status.NOT_APPLICABLE,
            notes=("no remat-only schedule fits M, so no horizon is known: give option horizon",),
        )
    if horizon > params.max_horizon:
        return Result(status=Status.NOT_APPLICABLE, notes=(f"horizon {horizon} > max_horizon {params.max_horizon}",))
    return Horizon(horizon, proven_horizon)


def _too_long(instance: Instance, params: CpsatOffloadParams) -> Result | None:
    """NOT_APPLICABLE when no horizon within ``max_horizon`` can be used, known without any search: the option's
    horizon exceeds it, or (no option) every schedule, hence every known one, takes longer (`bounds.best`)."""
    from .. import bounds

    if params.horizon is not None:
        if params.horizon > params.max_horizon:
            return Result(
                status=Status.NOT_APPLICABLE, notes=(f"horizon {params.horizon} > max_horizon {params.max_horizon}",)
            )
        return None
    least = bounds.best(instance)
    if least > params.max_horizon:
        note = f"every schedule takes at least Σfw + Σbw = {least} > max_horizon {params.max_horizon}"
        return Result(status=Status.NOT_APPLICABLE, notes=(note,))
    return None
