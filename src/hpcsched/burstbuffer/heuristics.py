"""Heuristics and baselines for fair sharing (objective ``sharing``).

Granule splits (N = floor(S/G) granules):

* ``equal-split``: N/K granules each (remainder to the first applications);
* ``proportional-volume``: in proportion to v_k (largest remainders);
* ``proportional-rate``: in proportion to the nominal I/O rate v_k / T_k;
* ``greedy-marginal``: one granule at a time to the currently most dilated
  application (dilations from the per-application recurrence).

Each takes the drain policy as option ``drain_policy``:

* ``"proportional"`` (default): d_k = B (v_k/T_k) / sum_j (v_j/T_j), the PFS
  reserved in proportion to the nominal I/O rates;
* ``"even"``: drain evenly over the compute phase (Tang et al., MASCOTS
  2017 style): d_k = min(r_k, v_k / w_k), the rate that empties one burst
  during the next compute phase, scaled down to fit B when the sum exceeds
  it (spare bandwidth stays unreserved).

Baselines:

* ``no-burst-buffer``: no granules; each application's writes go straight to
  the PFS at a reserved rate, B shared max-min fairly (water-filling capped at
  r_k). This is a static allocation, so it is comparable with the optimum.
* ``dynamic-reference``: the whole buffer shared dynamically (capacity S,
  drain policy option ``drain_policy``), the reference point of the spec. It
  lies OUTSIDE the static solution space of the sharing problem and may beat
  the static optimum; its notes say so and the tests do not compare it with
  the optimum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..core.params import at_least
from ..core.result import Result, Status
from . import bounds
from .model import Instance, Solution
from .simulate import dilations, dilations_alone

#: Drain policies of the static heuristics (reserved rates), see the module docstring.
StaticDrainPolicy = Literal["proportional", "even"]
#: Drain policies of a dynamic (shared) buffer, see ``docs/burstbuffer.md``.
DynamicDrainPolicy = Literal["proportional", "fifo", "equal"]


@dataclass(frozen=True)
class SplitParams:
    """Options of the static sharing heuristics.

    Attributes
    ----------
    drain_policy
        ``"proportional"`` (B in proportion to the nominal I/O rates) or
        ``"even"`` (drain one burst over the next compute phase).
    """

    drain_policy: StaticDrainPolicy = "proportional"


@dataclass(frozen=True)
class DynamicReferenceParams:
    """Options of ``dynamic-reference``.

    Attributes
    ----------
    drain_policy
        Whose data leaves the shared buffer first (changes contents, not completions).
    capacity
        Bytes of the shared buffer (default: the platform's S).
    """

    drain_policy: DynamicDrainPolicy = "proportional"
    capacity: float | None = None

    def __post_init__(self) -> None:
        at_least("capacity", self.capacity, 0.0)


def _not_sharing(instance: Instance) -> Result | None:
    if instance.objective != "sharing":
        return Result(status=Status.NOT_APPLICABLE, notes=(f"objective is {instance.objective!r}, not 'sharing'",))
    return None


def water_fill(total: float, caps: list[float]) -> list[float]:
    """Max-min fair split of ``total`` with per-entry caps."""
    shares = [0.0] * len(caps)
    order = sorted(range(len(caps)), key=lambda k: caps[k])
    left = total
    for position, k in enumerate(order):  # the entries from `position` on are still open
        equal = left / (len(order) - position)
        if caps[k] > equal:
            for j in order[position:]:
                shares[j] = equal
            break
        shares[k] = caps[k]
        left -= caps[k]
    return shares


def drain_rates(instance: Instance, drain_policy: StaticDrainPolicy = "proportional") -> list[float]:
    """Reserved drain rates of a drain policy (see module docstring)."""
    bandwidth = instance.platform.pfs_bandwidth
    apps = instance.applications
    if drain_policy == "proportional":
        weights = [app.io_rate for app in apps]
        weight = sum(weights)
        return [bandwidth * w / weight for w in weights]
    wanted = [app.rate if app.compute <= 0 else min(app.rate, app.volume / app.compute) for app in apps]
    scale = min(1.0, bandwidth / sum(wanted))
    return [d * scale for d in wanted]


def largest_remainder(weights: list[float], total: int) -> list[int]:
    """Integers proportional to ``weights`` summing to ``total`` (Hamilton's method)."""
    weight = sum(weights)
    quotas = [total * w / weight for w in weights]
    counts = [math.floor(q) for q in quotas]
    order = sorted(range(len(weights)), key=lambda k: (-(quotas[k] - counts[k]), k))
    for k in order[: total - sum(counts)]:
        counts[k] += 1
    return counts


def _result(instance: Instance, granules: list[int], drains: list[float], note: str) -> Result:
    return Result(
        status=Status.FEASIBLE, solution=Solution.static(granules, drains), bound=bounds.best(instance), notes=(note,)
    )


def _split(instance: Instance, weights: list[float], params: SplitParams | None) -> Result:
    policy = (params or SplitParams()).drain_policy
    refused = _not_sharing(instance)
    if refused:
        return refused
    granules = largest_remainder(weights, instance.platform.granules)
    return _result(instance, granules, drain_rates(instance, policy), f"drain policy: {policy}")


def equal_split(instance: Instance, /, *, time_limit: float, seed: int, params: SplitParams | None) -> Result:
    """Equal granule split, drain rates by policy.

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one pass).
    params
        `SplitParams` (``drain_policy``).

    Returns
    -------
    Result
        FEASIBLE static allocation, bound `bounds.best`.
    """
    return _split(instance, [1.0] * instance.num_applications, params)


def proportional_volume(instance: Instance, /, *, time_limit: float, seed: int, params: SplitParams | None) -> Result:
    """Granules in proportion to the burst volume v_k.

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one pass).
    params
        `SplitParams` (``drain_policy``).

    Returns
    -------
    Result
        FEASIBLE static allocation, bound `bounds.best`.
    """
    return _split(instance, [app.volume for app in instance.applications], params)


def proportional_rate(instance: Instance, /, *, time_limit: float, seed: int, params: SplitParams | None) -> Result:
    """Granules in proportion to the nominal I/O rate v_k / T_k.

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one pass).
    params
        `SplitParams` (``drain_policy``).

    Returns
    -------
    Result
        FEASIBLE static allocation, bound `bounds.best`.
    """
    return _split(instance, [app.io_rate for app in instance.applications], params)


def greedy_marginal(instance: Instance, /, *, time_limit: float, seed: int, params: SplitParams | None) -> Result:
    """Next granule to the currently most dilated application.

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused (one pass).
    params
        `SplitParams` (``drain_policy``).

    Returns
    -------
    Result
        FEASIBLE static allocation, bound `bounds.best`.
    """
    policy = (params or SplitParams()).drain_policy
    refused = _not_sharing(instance)
    if refused:
        return refused
    drains = drain_rates(instance, policy)
    granules, _ = greedy_granules(instance, drains)
    return _result(instance, granules, drains, f"drain policy: {policy}")


def greedy_granules(instance: Instance, drains: list[float]) -> tuple[list[int], float]:
    """Give each granule in turn to the most dilated application; the granules and the max dilation."""
    granule = instance.platform.granule
    granules = [0] * instance.num_applications
    current = dilations_alone(instance.applications, 0.0, drains).tolist()
    for _ in range(instance.platform.granules):
        k = int(np.argmax(current))
        granules[k] += 1
        current[k] = float(dilations(instance.applications[k], granules[k] * granule, drains[k]))
    return granules, max(current)


def no_burst_buffer(instance: Instance, /, *, time_limit: float, seed: int, params: None) -> Result:
    """No buffer: writes go to the PFS at max-min fair reserved rates.

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit, seed, params
        Unused (no options).

    Returns
    -------
    Result
        FEASIBLE static allocation with no granule, bound `bounds.best`.
    """
    refused = _not_sharing(instance)
    if refused:
        return refused
    drains = water_fill(instance.platform.pfs_bandwidth, [app.rate for app in instance.applications])
    return _result(instance, [0] * instance.num_applications, drains, "B shared max-min fairly")


def dynamic_reference(
    instance: Instance, /, *, time_limit: float, seed: int, params: DynamicReferenceParams | None
) -> Result:
    """Dynamic sharing of the whole buffer (reference, outside the static solution space).

    Parameters
    ----------
    instance
        An instance with objective ``sharing`` (else NOT_APPLICABLE).
    time_limit, seed
        Unused.
    params
        `DynamicReferenceParams` (``drain_policy``, ``capacity``).

    Returns
    -------
    Result
        FEASIBLE dynamic allocation; its bound is that of dynamic sharing of
        that capacity (`bounds.dynamic_bound`), not of the static problem.
    """
    params = params or DynamicReferenceParams()
    refused = _not_sharing(instance)
    if refused:
        return refused
    size = instance.platform.capacity if params.capacity is None else float(params.capacity)
    # the bound of what this method solves: dynamic sharing of `size` bytes, not the static problem
    # (whose bound uses N G <= S of room and which a dynamic buffer may legitimately beat)
    return Result(
        status=Status.FEASIBLE,
        solution=Solution.dynamic(size, params.drain_policy),
        bound=bounds.dynamic_bound(instance, size),
        notes=(
            "dynamic allocation: outside the static solution space of 'sharing'; "
            "a reference that may beat the static optimum",
        ),
    )
