"""Polynomial sizing algorithms: buffer sizes with no slowdown.

* `sizing_dynamic_sweep` (exact, objective ``sizing-dynamic``): the max
  backlog of the nominal fluid queue (Reich's formula, `bounds.dynamic_backlog`),
  one sort and one sweep, O(M log M) for M bursts.
* `sizing_static_constant` (objective ``sizing-static``, restricted to
  constant reserved drain rates): closed form of the peak content and an
  exact greedy on the convex drain needs h_k(g). Optimal among constant-rate
  static allocations only (the LP of ``formulations`` lets the drain vary
  over time), so it reports FEASIBLE with the dynamic size as a proven bound.

Both refuse an instance whose long-run I/O load sum_k v_k/T_k exceeds B: no
buffer avoids slowdown in the long run (``allow_overload=True`` sizes the
finite horizon instead).

Notes
-----
The proofs (fluid queue; separable convex resource allocation) are in
``docs/burstbuffer.md``, section "Why the sizing methods are exact".
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from ..core.deadline import Deadline, TimeLimitReached
from ..core.result import Result, Status
from .bounds import check_load, dynamic_backlog
from .model import Application, Instance, Solution


@dataclass(frozen=True)
class SizingParams:
    """Options of the sizing methods.

    Attributes
    ----------
    allow_overload
        Size the finite horizon even when the long-run I/O load exceeds B
        (by default such an instance is INFEASIBLE: no buffer avoids slowdown
        in the long run).
    """

    allow_overload: bool = False


def _not_sizing(instance: Instance, objective: str) -> Result | None:
    if instance.objective == objective:
        return None
    return Result(
        status=Status.NOT_APPLICABLE,
        notes=(f"objective is {instance.objective!r}; set data.objective to {objective!r} (Instance.with_objective)",),
    )


def sizing_dynamic_sweep(instance: Instance, /, *, time_limit: float, seed: int, params: SizingParams | None) -> Result:
    """Least shared buffer with no slowdown: max backlog of the nominal fluid queue (exact, one sweep).

    Parameters
    ----------
    instance
        An instance with objective ``sizing-dynamic`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused: one sort and one sweep.
    params
        `SizingParams` (``allow_overload``).

    Returns
    -------
    Result
        OPTIMAL, the dynamic allocation of S*_dyn bytes.
    """
    params = params or SizingParams()
    refused = _not_sizing(instance, "sizing-dynamic")
    if refused:
        return refused
    if not params.allow_overload:
        check_load(instance)
    size, when = dynamic_backlog(instance)
    notes = (f"max backlog {size:.6g} bytes at t = {when:.6g} s",)
    return Result(status=Status.OPTIMAL, objective=size, bound=size, solution=Solution.dynamic(size), notes=notes)


def peak_content(app: Application, drain: float) -> float:
    """Peak partition content of ``app`` with nominal timeline and constant drain ``drain``."""
    first = max(0.0, app.volume * (1 - drain / app.rate))
    return first + (app.iterations - 1) * max(0.0, app.volume - drain * app.period)


def least_drain(app: Application, room: float) -> float:
    """Least constant drain rate whose peak content fits in ``room`` bytes (inverse of `peak_content`)."""
    total = app.iterations * app.volume
    if room >= total:
        return 0.0
    knee = app.volume * (1 - app.io_rate / app.rate)  # peak content at d = v/T
    if room >= knee and app.iterations > 1:
        slope = app.volume / app.rate + (app.iterations - 1) * app.period
        return max(0.0, (total - room) / slope)
    return max(0.0, app.rate * (1 - room / app.volume))


#: Granules the constant-rate greedy hands out between two looks at the deadline (~4 us each).
GRANULES_PER_CHECK = 4096


def constant_rate_granules(
    instance: Instance, *, bandwidth: float | None = None, deadline: Deadline | None = None
) -> tuple[list[int], list[float]]:
    """Greedy exact granule counts and least drain rates for the constant-rate static sizing.

    Raises
    ------
    TimeLimitReached
        When ``deadline`` passes before the greedy ends (read every `GRANULES_PER_CHECK`
        granules: 10^5 periodic applications take ~450,000 granules, seconds).
    """
    deadline = deadline or Deadline(None)
    granule = instance.platform.granule
    bandwidth = instance.platform.pfs_bandwidth if bandwidth is None else bandwidth
    apps = instance.applications
    granules = [0] * len(apps)
    need = [least_drain(app, 0.0) for app in apps]
    total = sum(need)
    heap = []
    for k, app in enumerate(apps):
        gain = need[k] - least_drain(app, granule)
        heap.append((-gain, k))
    heapq.heapify(heap)
    handed = 0
    while total > bandwidth * (1 - 1e-12) and heap:
        if handed % GRANULES_PER_CHECK == 0:
            deadline.check("handing out granules (constant drain rates)")
        handed += 1
        negative_gain, k = heapq.heappop(heap)
        if -negative_gain <= 0:
            break
        granules[k] += 1
        new_need = least_drain(apps[k], granules[k] * granule)
        total += new_need - need[k]
        need[k] = new_need
        if new_need > 0:
            heapq.heappush(heap, (-(new_need - least_drain(apps[k], (granules[k] + 1) * granule)), k))
    return granules, need


def sizing_static_constant(
    instance: Instance, /, *, time_limit: float, seed: int, params: SizingParams | None
) -> Result:
    """Least static buffer with constant drain rates and no slowdown (closed form + exact greedy).

    Parameters
    ----------
    instance
        An instance with objective ``sizing-static`` (else NOT_APPLICABLE).
    time_limit
        Seconds for the greedy; when they pass, each partition gets its
        application's whole output (no drain needed): FEASIBLE, with a note.
    seed
        Unused.
    params
        `SizingParams` (``allow_overload``).

    Returns
    -------
    Result
        FEASIBLE (optimal among constant drain rates only), bound S*_dyn.
    """
    params = params or SizingParams()
    refused = _not_sizing(instance, "sizing-static")
    if refused:
        return refused
    if not params.allow_overload:
        check_load(instance)
    notes = [
        "optimal among constant reserved drain rates (greedy on convex h_k(g)); "
        "time-varying drain (sizing-static-lp) can need less"
    ]
    try:
        granules, need = constant_rate_granules(instance, deadline=Deadline.after(time_limit))
    except TimeLimitReached:
        # each application holds all its output: no drain needed, a valid (large) answer at once
        granule = instance.platform.granule
        granules = [math.ceil(app.iterations * app.volume / granule) for app in instance.applications]
        need = [0.0] * len(granules)
        notes = ["time limit reached in the greedy: each partition holds its application's whole output"]
    bandwidth = instance.platform.pfs_bandwidth
    spare = max(0.0, bandwidth - sum(need))
    # Spare bandwidth only lowers contents; give it out in proportion to the I/O rates.
    weights = [app.io_rate for app in instance.applications]
    total = sum(weights)  # summed once: inside the comprehension it made this O(K^2)
    rates = [d + spare * w / total for d, w in zip(need, weights, strict=True)]
    lower, _ = dynamic_backlog(instance)
    return Result(
        status=Status.FEASIBLE,
        objective=sum(granules) * instance.platform.granule,
        bound=lower,
        solution=Solution.static(granules, rates),
        notes=tuple(notes),
    )


def constant_rate_size_continuous(instance: Instance) -> float:
    """min sum_k S_k(d_k) s.t. sum_k d_k <= B over real sizes (fractional knapsack on convex pieces)."""
    pieces = []  # (size saved per unit of drain, drain width)
    for app in instance.applications:
        knee = app.io_rate
        first_slope = app.volume / app.rate + (app.iterations - 1) * app.period
        pieces.append((first_slope, knee))
        pieces.append((app.volume / app.rate, app.rate - knee))
    pieces.sort(reverse=True)
    size = sum(app.iterations * app.volume for app in instance.applications)
    budget = instance.platform.pfs_bandwidth
    for slope, width in pieces:
        used = min(width, budget)
        size -= slope * used
        budget -= used
        if budget <= 0:
            break
    return max(size, 0.0)
