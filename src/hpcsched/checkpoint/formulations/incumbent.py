"""The cheap remat baselines, run under the deadline: the incumbent of `dp`, `cpsat` and `offload_dp`.

They are kept for when a longer search (a DP table, a CP-SAT model) is cut
short, so they run first, cheapest first: store-all (O(L)), Chen's √L
segments and recompute-all (L(L−1)/2 + 3L + 1 operations: each returns
only a sequence that can be checked in the time left,
`model.too_long_to_check`), then PyTorch's checkpoint_sequential, which
simulates segment counts in turn (O(L) each) and so gets only
`SEQUENTIAL_SHARE` of the time limit (its best count so far when cut). The
deadline is checked before each, except that the cheap ones run until one
fits M even past it: a method given no time still answers when one of them
fits and is short enough to check.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Result, Status
from .. import bounds
from ..model import Instance, Solution
from ..simulate import total_time

#: Share of the time limit checkpoint_sequential may take (beyond it, cut, it adds nothing).
SEQUENTIAL_SHARE = 0.25


class Incumbent(NamedTuple):
    """A valid sequence from a cheap baseline, its time and the baseline's name."""

    solution: Solution
    time: int
    method: str


def _cheap_baselines() -> tuple:
    """(name, method) of the O(L²) baselines, cheapest first."""
    from .. import heuristics, special_cases

    return (
        ("store-all", special_cases.store_all),
        ("chen", heuristics.chen),
        ("recompute-all", heuristics.recompute_all),
    )


def _valid(instance: Instance, result: Result, name: str) -> list[Incumbent]:
    """[the baseline's incumbent] when it has a sequence (simulated to fit M), else [].

    Not validated here: the registry validates whatever the method returns (twice would cost as much).
    """
    if result.solution is None:
        return []
    return [Incumbent(result.solution, total_time(instance, result.solution.sequence), name)]


def _time_left(deadline: Deadline) -> float:
    """The time limit a baseline gets: what the deadline leaves (a baseline given none still answers when its
    sequence is short enough to check, `model.too_long_to_check`)."""
    left = deadline.remaining()
    return math.inf if left is None else max(left, 1e-9)


def _sequential_limit(deadline: Deadline, time_limit: float | None) -> float:
    """Seconds for checkpoint_sequential: `SEQUENTIAL_SHARE` of the limit, at most what the deadline leaves."""
    share = math.inf if time_limit is None else SEQUENTIAL_SHARE * time_limit
    left = deadline.remaining()
    return share if left is None else min(share, left)


def baselines(instance: Instance, deadline: Deadline, time_limit: float | None) -> list[Incumbent]:
    """The baselines' sequences that fit M and pass the validator, each run only while the deadline allows.

    Parameters
    ----------
    instance
        A ``chain`` instance.
    deadline
        The method's deadline, checked before each baseline once one fits M.
    time_limit
        The method's time limit (None: none), of which checkpoint_sequential gets `SEQUENTIAL_SHARE`.

    Returns
    -------
    list of Incumbent
        In the order run: what ran before the deadline passed, and the first cheap one that fits M.
    """
    from ..heuristics import checkpoint_sequential

    found: list[Incumbent] = []
    for name, method in _cheap_baselines():
        if found and deadline.expired():
            return found
        found += _valid(instance, method(instance, time_limit=_time_left(deadline), seed=0, params=None), name)
    limit = _sequential_limit(deadline, time_limit)
    if limit <= 0:
        return found
    try:
        result = checkpoint_sequential(instance, time_limit=limit, seed=0, params=None)
    except TimeLimitReached:
        return found  # cut: it adds nothing
    return found + _valid(instance, result, "checkpoint-sequential")


def baseline_incumbent(
    instance: Instance, deadline: Deadline | None = None, time_limit: float | None = None
) -> Incumbent | None:
    """The fastest of `baselines` (None: none fits M); no deadline and no time limit by default."""
    found = baselines(instance, deadline or Deadline(None), time_limit)
    return min(found, key=lambda incumbent: incumbent.time, default=None)


def cut_short(
    instance: Instance,
    incumbent: Incumbent | None,
    stop: Exception,
    search: str = "the DP",
    deadline: Deadline | None = None,
) -> Result:
    """The answer when ``search`` did not finish: the incumbent, FEASIBLE (the search proved nothing);
    its bound `bounds.best` under ``deadline``."""
    if incumbent is None:
        if isinstance(stop, TimeLimitReached):
            raise stop  # the registry reports TIME_LIMIT_NO_SOLUTION
        return Result(status=Status.NOT_APPLICABLE, notes=(f"{stop}; no baseline sequence fits M",))
    notes = (
        f"{search} did not finish ({stop}): the {incumbent.method} baseline's sequence",
        f"bound: the instance's lower bound (bounds.best), not {search}'s: an unfinished search proves none",
    )
    bound = float(bounds.best(instance, deadline))
    return Result(status=Status.FEASIBLE, solution=incumbent.solution, bound=bound, notes=notes)


__all__ = ["SEQUENTIAL_SHARE", "Incumbent", "baseline_incumbent", "baselines", "cut_short"]
