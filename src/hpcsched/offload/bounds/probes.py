"""Lower bounds from the instant relaxation: one solve, or destructive lower bounding by probes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...core.deadline import Deadline, TimeLimitReached
from ...core.result import Status
from ..model import Instance, Solution
from .instant import RelaxationVars, instant_relaxation, relaxation_outcome_bound
from .transfer import earliest


def instant_relaxation_bound(
    instance: Instance,
    *,
    upper: int,
    time_limit: float | None = 30.0,
    seed: int = 0,
    workers: int = 2,
    hint: Solution | None = None,
    start_rows: bool = False,
    prefetch_rows: Iterable[tuple[int, int]] = (),
) -> float:
    """Proven lower bound from `instant_relaxation` (at least `best`).

    ``upper`` must be the makespan of a schedule (e.g. a heuristic's); then
    the result is at most ``upper``.
    """
    outcome, _ = instant_relaxation(
        instance,
        upper=upper,
        time_limit=time_limit,
        seed=seed,
        workers=workers,
        hint=hint,
        start_rows=start_rows,
        prefetch_rows=prefetch_rows,
    )
    return relaxation_outcome_bound(instance, outcome, upper)


def instant_relaxation_search(
    instance: Instance,
    *,
    lower: float,
    upper: int,
    time_limit: float = 30.0,
    seed: int = 0,
    workers: int = 2,
    hint: Solution | None = None,
    first_fraction: float = 0.15,
    probe_fraction: float = 0.75,
    exchange: bool = True,
    deadline: Deadline | None = None,
) -> tuple[float, Any, RelaxationVars]:
    """Destructive lower bounding with `instant_relaxation`: (bound, first outcome, its variables).

    ``lower`` must be a proven bound and ``upper`` the makespan of a
    schedule (``hint``, if given).  First the relaxation is minimized for
    ``first_fraction`` of the time (its best solution, returned for repair,
    caps what the relaxation can prove); then the relaxation with the
    makespan capped at X is solved for X a third of the way from the best
    proven bound to that cap (small steps: infeasibility far below the
    relaxed optimum is proven much faster): INFEASIBLE proves X + 1
    (`relaxation_outcome_bound`), a solution of value w shows the relaxation
    cannot prove more than w, a time-out makes X - 1 the new cap (later
    probes are closer to the bound).  Each probe gets ``probe_fraction`` of
    the time left (on the earlier 36-layer VGG16 / PCIe 3, 60 s: 0.75 reached 1,060,762 at 60 %
    and nothing at 40 %; 0.5 reached 1,059,785 and 1,667,352).  The bound
    is valid whatever the probes' outcomes.  ``exchange``: as in
    `instant_relaxation`.  ``deadline`` (the caller's) stops the first
    model's build (`TimeLimitReached`) and the probes.
    """
    deadline = earliest(Deadline.after(time_limit), deadline)
    outcome, handles = instant_relaxation(
        instance,
        upper=upper,
        time_limit=first_fraction * time_limit,
        seed=seed,
        workers=workers,
        hint=hint,
        exchange=exchange,
        deadline=deadline,
    )
    bound = max(lower, relaxation_outcome_bound(instance, outcome, upper))
    cap = upper if outcome.objective is None else min(upper, round(outcome.objective))
    if outcome.status is Status.OPTIMAL:
        return bound, outcome, handles
    cap -= 1  # the largest value still worth testing: a relaxed solution of value w proves nothing above w
    while bound <= cap:
        left = deadline.remaining()
        assert left is not None, "the deadline of a time limit"
        if left < 0.5:
            break
        probe = bound + (cap - bound) // 3
        try:
            result, _ = instant_relaxation(
                instance,
                upper=probe,
                time_limit=probe_fraction * left,
                seed=seed,
                workers=workers,
                exchange=exchange,
                deadline=deadline,
            )
        except TimeLimitReached:
            break
        if result.status is Status.INFEASIBLE:
            bound = max(bound, relaxation_outcome_bound(instance, result, probe))
        elif result.has_solution:
            cap = min(cap, round(result.objective) - 1)
            bound = max(bound, relaxation_outcome_bound(instance, result, probe))
        else:
            cap = probe - 1
    return bound, outcome, handles
