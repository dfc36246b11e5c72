"""Compute and transfer bounds (cheap, valid for every instance) and `best`, their maximum."""

from __future__ import annotations

import math
from bisect import bisect_left

import numpy as np

from ...core.deadline import Deadline
from ..model import Instance


def earliest(*deadlines: Deadline | None) -> Deadline:
    """The earliest of ``deadlines`` (None entries and unlimited ones ignored; unlimited if all are)."""
    points = [d.at for d in deadlines if d is not None and d.at is not None]
    return Deadline(min(points) if points else None)


#: Largest (items x units) of the whole-item estimate (each item added costs O(units) in numpy); past
#: it only the fluid estimate is used (sizes rounded up make units >= items, so the table grows as L^2).
WHOLE_ITEM_CELLS = 200_000_000


def compute_bound(instance: Instance) -> int:
    """Σ (f_i + b_i)."""
    return instance.compute_time


class _FluidChannel:
    """Earliest time a fluid channel has shipped ``need`` bytes of the items added so far.

    Items are added in release order and shipped in that order, each from the
    later of its release and the end of the one before (at ``rate`` bytes per
    unit of time; at once when ``rate`` is None). The start of each item and the
    bytes before and after it are kept, so a query is a bisection, not a walk
    over every item (which made the transfer bound quadratic in L).
    """

    def __init__(self, rate: float | None):
        self.rate = rate
        self.time = 0.0  # when the channel is free after the last item
        self.begins: list[float] = []
        self.before: list[int] = []
        self.after: list[int] = []

    def add(self, release: float, size: int) -> None:
        self.time = max(self.time, release)
        shipped = self.after[-1] if self.after else 0
        self.begins.append(self.time)
        self.before.append(shipped)
        self.after.append(shipped + size)
        if self.rate is not None:
            self.time += size / self.rate

    def earliest(self, need: int) -> float:
        if need <= 0:
            return 0.0
        item = bisect_left(self.after, need)
        if item == len(self.after):
            return float("inf")  # cannot happen on a feasible instance (need <= offloadable bytes)
        if self.rate is None:
            return self.begins[item]
        return self.begins[item] + (need - self.before[item]) / self.rate


class _NoShipping:
    """The whole-item estimate when its table would be too large: no constraint (the fluid one stays)."""

    def add(self, release: float, units: int, duration: float) -> None:
        pass

    def earliest(self, units: int) -> float:
        return 0.0


class _WholeItemShipping:
    """Earliest time a channel has shipped at least c units with whole items (incremental DP).

    Items arrive in release order; a subset is best processed in that order
    (earliest release first), so ``best[c]`` = the earliest completion of a
    subset of the items seen so far whose rounded-up sizes sum to c units
    (capped at the total).  Rounding sizes *up* keeps it a relaxation.
    """

    def __init__(self, total_units: int):
        self.best = np.full(total_units + 1, np.inf)
        self.best[0] = 0.0

    def add(self, release: float, units: int, duration: float) -> None:
        finish = np.maximum(self.best, release) + duration
        shifted = np.full_like(self.best, np.inf)
        top = len(self.best) - 1
        if units >= top:
            shifted[top] = finish.min()
        else:
            shifted[units:top] = finish[: top - units]
            shifted[top] = min(finish[top - units :].min(), np.inf)
        self.best = np.minimum(self.best, shifted)

    def earliest(self, units: int) -> float:
        if units <= 0:
            return 0.0
        if units >= len(self.best):
            return float("inf")
        return float(self.best[units:].min())


def transfer_bound(instance: Instance, *, buckets: int = 2000) -> float:
    """The transfer bound of the module docstring: `transfer_bound_parts` summed, rounded up."""
    forward_end, backward_span = transfer_bound_parts(instance, buckets=buckets)
    best = forward_end + backward_span
    return math.ceil(best - 1e-9) if math.isfinite(best) else best


def transfer_bound_parts(instance: Instance, *, buckets: int = 2000) -> tuple[float, float]:
    """(earliest end of the forward phase, shortest backward phase): the transfer bound.

    See `transfer_bound_chains` for the argument.
    """
    start, to_end = transfer_bound_chains(instance, buckets=buckets)
    n = instance.n_layers
    return start[n] + instance.forward[n - 1], to_end[n]


def transfer_bound_chains(instance: Instance, *, buckets: int = 2000) -> tuple[list[float], list[float]]:
    """(S, Z): S[k] <= start of F_k and Z[k] <= makespan - start of B_k (k = 1..L, index 0 unused).

    Forward, chained over k: ``S_k``, a lower bound on the start of F_k, is
    the larger of ``S_{k-1} + f_{k-1}`` and T_k, the earliest time the bytes
    that must be gone before F_k (``need_k``) can have left.  a_i cannot
    leave before F_i ends (>= S_i + f_i); T_k is the larger of a fluid
    estimate (bytes split at will) and a whole-item one (each activation
    leaves in one piece taking tau_out, earliest release first; sizes
    rounded up to ``Σ s / buckets``; skipped when the offloadable items times
    those units exceed `WHOLE_ITEM_CELLS`, about 10,000 items).

    Backward, chained in reversed time: ``Z_k`` bounds the time from the
    start of B_k to the end.  Nothing is allocated for B_k's own data during
    B_k, so the bytes absent just before B_k ends (``need'_k``) are
    prefetched after B_k ends, a_i before B_{i+1} starts, i.e. at least
    ``Z_{i+1}`` before the end; ``Y_k``, the time after B_k, is the larger of
    ``Z_{k-1}`` and the earliest reversed completion of those prefetches, and
    ``Z_k = Y_k + b_k``.  Steps of zero duration impose nothing (they contain
    no instant).  The forward phase ends before B_L starts, so the bound is
    ``S_L + f_L + Z_L``.
    """
    n, s = instance.n_layers, instance.activation
    f, b = instance.forward, instance.backward
    offloadable = set(instance.offloadable)
    prefix_s = [0] * (n + 2)
    for i in range(n + 1):
        prefix_s[i + 1] = prefix_s[i] + s[i]
    unit = max(1, -(-sum(s[i] for i in offloadable) // buckets))
    total_units = sum(-(-s[i] // unit) for i in offloadable)
    whole_items = len(offloadable) * (total_units + 1) <= WHOLE_ITEM_CELLS

    def shipping_channel() -> _WholeItemShipping | _NoShipping:
        return _WholeItemShipping(total_units) if whole_items else _NoShipping()

    def units(need: int) -> int:
        return -(-need // unit)

    # Forward phase.
    start = [0.0] * (n + 1)  # start[k]: lower bound on the start of F_k (1-based)
    fluid = _FluidChannel(instance.bandwidth_out)
    shipping = shipping_channel()
    for k in range(2, n + 1):
        start[k] = start[k - 1] + f[k - 2]
        i = k - 2
        if i in offloadable:
            release = 0.0 if i == 0 else start[i] + f[i - 1]
            fluid.add(release, s[i])
            shipping.add(release, units(s[i]), instance.offload_time(i))
        need = prefix_s[k - 1] + s[k - 1] + s[k] + instance.workspace_forward[k - 1] - instance.memory
        if need > 0 and f[k - 1] > 0:
            start[k] = max(start[k], fluid.earliest(need), shipping.earliest(units(need)))
    # Backward phase in reversed time.
    to_end = [0.0] * (n + 1)  # to_end[k]: lower bound on (makespan - start of B_k)
    fluid = _FluidChannel(instance.bandwidth_in)
    shipping = shipping_channel()
    for k in range(1, n + 1):
        after = to_end[k - 1] if k >= 2 else 0.0
        if k >= 2:
            i = k - 2
            if i in offloadable:
                fluid.add(to_end[k - 1], s[i])  # a_{k-2} is back before B_{k-1} starts
                shipping.add(to_end[k - 1], units(s[i]), instance.prefetch_time(i))
            gradient_in = s[n] if k == n else s[k]
            need = prefix_s[k - 1] + 2 * s[k - 1] + gradient_in + instance.workspace_backward[k - 1] - instance.memory
            if need > 0 and b[k - 1] > 0:
                after = max(after, fluid.earliest(need), shipping.earliest(units(need)))
        to_end[k] = after + b[k - 1]
    return start, to_end


def best(instance: Instance) -> float:
    """max(compute bound, transfer bound): cheap, valid for every instance."""
    return max(compute_bound(instance), transfer_bound(instance))
