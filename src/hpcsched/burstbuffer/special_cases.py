"""Polynomial sizing algorithms: buffer sizes with no slowdown.

* `sizing_dynamic_sweep` (exact, objective ``sizing-dynamic``).
  **Theorem** (fluid queue, Reich's formula). With no slowdown every
  application follows its nominal timeline, so the buffer is a fluid queue
  fed at A(t) = sum of r_k over the applications in a nominal burst and
  served at rate B while non-empty. Its backlog is
  Q(t) = X(t) - min_{s <= t} X(s), X(t) = int_0^t (A - B); a shared buffer of
  capacity S slows nobody iff S >= max_t Q(t) (below it, the queue reaches S
  while A > B and some writer is throttled, which delays its completion).
  X is piecewise linear, so the maximum is at a breakpoint: one sort and one
  sweep, O(M log M) for M bursts.
* `sizing_static_constant` (objective ``sizing-static``, restricted to constant
  reserved drain rates). With a constant drain d an application's peak
  content is S_k(d) = max(0, v(1 - d/r)) + (n - 1) max(0, v - d T) (its
  buffer empties during every compute phase iff d >= v/T), convex and
  decreasing. Its inverse h_k(g) = least d with S_k(d) <= g G is convex
  and non-increasing in the granule count g, so min sum_k g_k subject to
  sum_k h_k(g_k) <= B is solved exactly by adding granules greedily to the
  application whose drain need drops most (separable convex resource
  allocation: the greedy prefix is optimal for every total). This is optimal
  among constant-rate static allocations, not among all static allocations
  (the LP of ``formulations.py`` lets the drain vary over time), so it
  reports FEASIBLE with the dynamic size as a proven bound.

Both refuse an instance whose long-run I/O load sum_k v_k/T_k exceeds B: no
buffer avoids slowdown in the long run (``allow_overload=True`` sizes the
finite horizon instead).
"""

from __future__ import annotations

import heapq

import numpy as np

from ..core.errors import InfeasibleError
from ..core.result import Result, Status
from .model import Application, Instance, Solution


def check_load(instance: Instance) -> None:
    """Raise InfeasibleError when the long-run I/O load exceeds the PFS bandwidth."""
    total = sum(app.io_rate for app in instance.applications)
    bandwidth = instance.platform.pfs_bandwidth
    if total > bandwidth * (1 + 1e-12):
        heaviest = max(instance.applications, key=lambda app: app.io_rate)
        raise InfeasibleError(
            f"I/O load sum_k v_k/T_k = {total:.6g} B/s exceeds the PFS bandwidth B = {bandwidth:.6g} B/s "
            f"(load {total / bandwidth:.4f} > 1; heaviest: {heaviest.name} at {heaviest.io_rate:.6g} B/s): "
            "no buffer size avoids slowdown in the long run"
        )


def nominal_bursts(instance: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Nominal bursts as arrays ``(application, start, end, rate)``."""
    owners, starts, ends, rates = [], [], [], []
    for k, app in enumerate(instance.applications):
        j = np.arange(app.iterations)
        begin = app.release + j * app.period + app.compute
        owners.append(np.full(app.iterations, k))
        starts.append(begin)
        ends.append(begin + app.burst_time)
        rates.append(np.full(app.iterations, app.rate))
    return np.concatenate(owners), np.concatenate(starts), np.concatenate(ends), np.concatenate(rates)


def dynamic_backlog(instance: Instance) -> tuple[float, float]:
    """Maximum backlog of the nominal fluid queue and the instant it is reached (Reich's formula)."""
    _, starts, ends, rates = nominal_bursts(instance)
    times = np.concatenate([starts, ends])
    deltas = np.concatenate([rates, -rates])
    order = np.argsort(times, kind="stable")
    times, deltas = times[order], deltas[order]
    inflow = np.cumsum(deltas)  # aggregate rate on [times[i], times[i+1])
    lengths = np.diff(times)
    net = (inflow[:-1] - instance.platform.pfs_bandwidth) * lengths
    cumulative = np.concatenate([[0.0], np.cumsum(net)])
    backlog = cumulative - np.minimum.accumulate(cumulative)
    best = int(np.argmax(backlog))
    return float(max(backlog[best], 0.0)), float(times[best])


def sizing_dynamic_sweep(instance: Instance, *, time_limit=None, seed=0, allow_overload: bool = False, **options) -> Result:
    """Least shared buffer with no slowdown: max backlog of the nominal fluid queue (exact, one sweep)."""
    if instance.objective != "sizing-dynamic":
        return Result("burstbuffer", "sizing-dynamic-sweep", Status.NOT_APPLICABLE,
                      notes=(f"objective is {instance.objective!r}; set data.objective to 'sizing-dynamic' (Instance.with_objective)",))
    if not allow_overload:
        check_load(instance)
    size, when = dynamic_backlog(instance)
    notes = (f"max backlog {size:.6g} bytes at t = {when:.6g} s",)
    return Result("burstbuffer", "sizing-dynamic-sweep", Status.OPTIMAL, objective=size, bound=size,
                  solution=Solution.dynamic(size), notes=notes)


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


def constant_rate_granules(instance: Instance, *, bandwidth: float | None = None) -> tuple[list[int], list[float]]:
    """Greedy exact granule counts and least drain rates for the constant-rate static sizing."""
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
    while total > bandwidth * (1 - 1e-12) and heap:
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


def sizing_static_constant(instance: Instance, *, time_limit=None, seed=0, allow_overload: bool = False, **options) -> Result:
    """Least static buffer with constant drain rates and no slowdown (closed form + exact greedy)."""
    if instance.objective != "sizing-static":
        return Result("burstbuffer", "sizing-static-constant", Status.NOT_APPLICABLE,
                      notes=(f"objective is {instance.objective!r}; set data.objective to 'sizing-static' (Instance.with_objective)",))
    if not allow_overload:
        check_load(instance)
    granules, need = constant_rate_granules(instance)
    bandwidth = instance.platform.pfs_bandwidth
    spare = max(0.0, bandwidth - sum(need))
    # Spare bandwidth only lowers contents; give it out in proportion to the I/O rates.
    weights = [app.io_rate for app in instance.applications]
    rates = [d + spare * w / sum(weights) for d, w in zip(need, weights)]
    lower, _ = dynamic_backlog(instance)
    notes = ("optimal among constant reserved drain rates (greedy on convex h_k(g)); "
             "time-varying drain (sizing-static-lp) can need less",)
    return Result("burstbuffer", "sizing-static-constant", Status.FEASIBLE, objective=sum(granules) * instance.platform.granule,
                  bound=lower, solution=Solution.static(granules, rates), notes=notes)


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
