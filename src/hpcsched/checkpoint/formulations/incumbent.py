"""The default `dp`'s incumbent: the best cheap baseline, kept for when the DP is cut short."""

from __future__ import annotations

import math
from typing import NamedTuple

from ...core.deadline import TimeLimitReached
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution
from ..simulate import total_time


class Incumbent(NamedTuple):
    """A valid sequence from a cheap baseline, its time and the baseline's name."""

    solution: Solution
    time: int
    method: str


def baseline_incumbent(instance: Instance) -> Incumbent | None:
    """The fastest sequence among the cheap baselines that fit M and pass the validator (None: none does).

    The baselines run in O(L²) at most (no DP table): store-all, PyTorch's
    checkpoint_sequential (best segment count), Chen's √L segments and
    recompute-all.
    """
    from .. import heuristics, special_cases
    from ..model import validate

    found: list[Incumbent] = []
    candidates = {
        "store-all": special_cases.store_all,
        "checkpoint-sequential": heuristics.checkpoint_sequential,
        "chen": heuristics.chen,
        "recompute-all": heuristics.recompute_all,
    }
    for name, method in candidates.items():
        # no limit: each is at most O(L²) simulated operations, and the incumbent must exist before the DP
        result = method(instance, time_limit=math.inf, seed=0, params=None)
        if result.solution is not None and not validate(instance, result.solution):
            found.append(Incumbent(result.solution, total_time(instance, result.solution.sequence), name))
    return min(found, key=lambda incumbent: incumbent.time, default=None)


def cut_short(instance: Instance, incumbent: Incumbent | None, stop: Exception) -> Result:
    """The answer when the DP did not finish: the incumbent, FEASIBLE (the DP proved nothing)."""
    if incumbent is None:
        if isinstance(stop, TimeLimitReached):
            raise stop  # the registry reports TIME_LIMIT_NO_SOLUTION
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{stop}; no baseline sequence fits M",))
    notes = (
        f"the DP did not finish ({stop}): the {incumbent.method} baseline's sequence",
        "bound: the instance's lower bound (bounds.best), not the DP's: an unfinished DP proves none",
    )
    return Result(status=Status.FEASIBLE, solution=incumbent.solution, bound=float(bounds.best(instance)), notes=notes)


__all__ = ["Incumbent", "baseline_incumbent", "cut_short"]
