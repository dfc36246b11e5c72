"""The event-driven fluid simulator: the validator of the burstbuffer problem.

Written from the definition in the module docstring of ``model.py``, sharing
no code with the formulations and heuristics. Between two events every rate
is constant, so the aggregate buffer content is piecewise linear and its
extremes are at events; at every event the simulator checks

* occupancy <= capacity (each partition, the whole buffer),
* total drain <= B (and reserved drain <= B),
* write rate <= r_k for every application,

and it records each application's timeline (compute / io / throttled), the
per-application buffer content at each event, and the completion times.

Events: end of a release wait, of a compute phase, of a burst; a buffer
becoming full or empty; a breakpoint of a drain schedule. Values within a
relative 1e-10 of a boundary are snapped onto it so that float noise cannot
create spurious throttling (the checks use 1e-9).

Static allocations do not couple the applications, so each partition is
simulated on its own events and the whole-buffer quantities (total
occupancy, its peak, the check against S) are evaluated on the union of all
event instants, where the piecewise-linear total reaches its extremes. The
reserved drain is piecewise constant, so its sum is checked once per
drain-schedule interval. The dynamic buffer couples everybody and is
simulated jointly.
"""

from __future__ import annotations

import bisect
import math
from collections import deque

import numpy as np
from dataclasses import dataclass, field

from ..core.violation import Violation
from .model import TOLERANCE, Instance, Solution

_SNAP = 1e-10
_WAIT, _COMPUTE, _WRITE, _DONE = "wait", "compute", "write", "done"


@dataclass
class Trace:
    """What the simulation saw.

    Attributes
    ----------
    times
        Event instants (the first is 0).
    contents
        ``contents[i][k]``: bytes of application k in the buffer at ``times[i]``.
    segments
        Per application, ``(start, end, state)`` with state in
        ``compute``, ``io``, ``throttled`` (merged when consecutive).
    completion
        Per application, the instant its last burst was accepted (inf if never).
    total
        Total occupancy at ``times`` (always filled; ``contents`` may be left
        empty for a static trace too large to tabulate per application).
    """

    instance: Instance
    times: list[float] = field(default_factory=list)
    contents: list[list[float]] = field(default_factory=list)
    segments: list[list[tuple[float, float, str]]] = field(default_factory=list)
    completion: list[float] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    peak_occupancy: float = 0.0
    total: list[float] = field(default_factory=list)

    def dilation(self, k: int) -> float:
        app = self.instance.applications[k]
        return (self.completion[k] - app.release) / app.nominal_time

    def efficiency(self) -> float:
        total_nodes = sum(app.nodes for app in self.instance.applications)
        useful = 0.0
        for k, app in enumerate(self.instance.applications):
            elapsed = self.completion[k] - app.release
            if math.isfinite(elapsed) and elapsed > 0:
                useful += app.nodes * app.iterations * app.compute / elapsed
        return useful / total_nodes


class _Phase:
    """Where one application is in its sequence wait -> (compute -> write) x n."""

    def __init__(self, app) -> None:
        self.app = app
        self.iteration = 0
        if app.release > 0:
            self.phase, self.remaining = _WAIT, app.release
        else:
            self.phase, self.remaining = _COMPUTE, app.compute

    def advance_if_finished(self, now: float) -> bool:
        """Move to the next phase when this one is over; True if the app just completed."""
        scale_time = max(1.0, self.app.period)
        while self.phase != _DONE:
            limit = _SNAP * (self.app.volume if self.phase == _WRITE else scale_time)
            if self.remaining > limit:
                return False
            if self.phase == _WAIT:
                self.phase, self.remaining = _COMPUTE, self.app.compute
            elif self.phase == _COMPUTE:
                self.phase, self.remaining = _WRITE, self.app.volume
            else:
                self.iteration += 1
                if self.iteration == self.app.iterations:
                    self.phase, self.remaining = _DONE, 0.0
                    return True
                self.phase, self.remaining = _COMPUTE, self.app.compute
        return False


def _record(trace: Trace, k: int, start: float, end: float, state: str) -> None:
    if end <= start:
        return
    parts = trace.segments[k]
    if parts and parts[-1][2] == state and abs(parts[-1][1] - start) <= 1e-12 * max(1.0, start):
        parts[-1] = (parts[-1][0], end, state)
    else:
        parts.append((start, end, state))


def simulate(instance: Instance, solution: Solution, *, max_events: int | None = None) -> Trace:
    """Simulate ``solution`` on ``instance`` and return the `Trace`."""
    if solution.allocation == "dynamic":
        return _simulate_dynamic(instance, solution, max_events)
    return _simulate_static(instance, solution, max_events)


def _event_budget(instance: Instance, max_events: int | None) -> int:
    if max_events is not None:
        return max_events
    bursts = sum(app.iterations for app in instance.applications)
    return 50 * (bursts + instance.num_applications) + 1000


def _simulate_partition(app, k: int, size: float, cap_at, breakpoints, budget: int, trace: Trace):
    """Simulate application ``k`` alone in its partition; returns its event times and contents.

    Under static allocation the applications do not interact, so each one is
    simulated on its own events (release, phase ends, partition full/empty,
    drain-schedule breakpoints); the whole-buffer checks are made afterwards on
    the union of the event instants (contents are linear in between).
    """
    phase = _Phase(app)
    content, now = 0.0, 0.0
    times, contents = [0.0], [0.0]
    limit = _SNAP * max(size, app.volume)
    for _ in range(budget):
        if phase.advance_if_finished(now):
            trace.completion[k] = now
        if phase.phase == _DONE and content <= 0:
            return times, contents  # finished and drained (after completion the partition only drains)
        cap = cap_at(now)
        full = content >= size - limit
        inflow = (min(app.rate, cap) if full else app.rate) if phase.phase == _WRITE else 0.0
        empty = content <= _SNAP * app.volume
        outflow = min(cap, inflow) if empty else cap
        step = math.inf
        if phase.phase in (_WAIT, _COMPUTE):
            step = phase.remaining
        elif inflow > 0:
            step = phase.remaining / inflow
        net = inflow - outflow
        if net > 0 and content < size:
            step = min(step, (size - content) / net)
        elif net < 0 and content > 0:
            step = min(step, content / -net)
        j = bisect.bisect_right(breakpoints, now)
        if j < len(breakpoints):
            step = min(step, breakpoints[j] - now)
        if not math.isfinite(step):
            if phase.phase != _DONE:
                trace.violations.append(
                    Violation("starvation", f"{app.name} can never finish its burst {phase.iteration} (no room, no drain)")
                )
            return times, contents
        step = max(step, 0.0)
        if phase.phase in (_WAIT, _COMPUTE):
            phase.remaining -= step
            if phase.phase == _COMPUTE:
                _record(trace, k, now, now + step, "compute")
        elif phase.phase == _WRITE:
            phase.remaining -= inflow * step
            _record(trace, k, now, now + step, "throttled" if inflow < app.rate * (1 - TOLERANCE) else "io")
        if inflow > app.rate * (1 + TOLERANCE):
            trace.violations.append(Violation("write-rate", f"{app.name} writes at {inflow:.6g} > r = {app.rate:.6g}"))
        content += net * step
        if abs(content - size) <= limit:
            content = size
        if content <= _SNAP * app.volume:
            content = 0.0
        now += step
        if content > size * (1 + TOLERANCE) + 1e-300:
            trace.violations.append(Violation("occupancy", f"{app.name} holds {content:.6g} > its partition {size:.6g} at t = {now:.6g}"))
        times.append(now)
        contents.append(content)
    trace.violations.append(Violation("simulation", f"event budget exhausted before {app.name} finished"))
    return times, contents


#: Above this many (application x event) cells the per-application contents of a
#: static trace are not tabulated (only the total occupancy is kept).
_CONTENT_CELLS = 2_000_000


def _simulate_static(instance: Instance, solution: Solution, max_events: int | None) -> Trace:
    apps = instance.applications
    count = len(apps)
    bandwidth = instance.platform.pfs_bandwidth
    sizes = [g * instance.platform.granule for g in solution.granules]
    schedule = solution.drain_schedule
    platform_limit = instance.platform.capacity if instance.objective == "sharing" else math.inf
    trace = Trace(instance, segments=[[] for _ in apps], completion=[math.inf] * count)
    # Reserved drain at every instant: constant rates, or the schedule on its intervals.
    reserved = [sum(solution.drain_rates)]
    if schedule is not None:
        reserved += [sum(row[j] for row in schedule.rates) for j in range(len(schedule.times) - 1)]
    if max(reserved) > bandwidth * (1 + TOLERANCE):
        trace.violations.append(Violation("drain", f"reserved drain {max(reserved):.6g} > B = {bandwidth:.6g}"))
        return trace
    breakpoints = list(schedule.times) if schedule is not None else []
    budget = _event_budget(instance, max_events)
    series = []
    for k, app in enumerate(apps):
        def cap_at(t, k=k):
            if schedule is not None:
                rate = schedule.rate(k, t)
                if rate is not None:
                    return rate
            return solution.drain_rates[k]

        series.append(_simulate_partition(app, k, sizes[k], cap_at, breakpoints, budget, trace))
    union = np.unique(np.concatenate([np.asarray(times) for times, _ in series]))
    total = np.zeros(union.size)
    for times, contents in series:
        # after its last event a partition keeps draining, but nothing more is asked of it
        total += np.interp(union, times, contents, right=contents[-1])
    over = np.flatnonzero(total > platform_limit * (1 + TOLERANCE))
    if over.size:
        first = over[0]
        trace.violations.append(
            Violation("occupancy", f"buffer holds {total[first]:.6g} > S = {platform_limit:.6g} at t = {union[first]:.6g}")
        )
    trace.peak_occupancy = float(total.max()) if total.size else 0.0
    trace.times = union.tolist()
    if count * union.size <= _CONTENT_CELLS:
        table = np.array([np.interp(union, times, contents, right=contents[-1]) for times, contents in series])
        trace.contents = table.T.tolist()
    trace.total = total.tolist()
    return trace


def _proportional_contents(before, inflow, q0, q1, step, bandwidth, total_drain):
    """Per-application contents after a step when B is shared in proportion to backlog.

    Closed form of b_k' = a_k - B b_k / Q with Q linear (see docs/burstbuffer.md).
    """
    count = len(before)
    total_in = sum(inflow)
    if q1 <= 0:
        return [0.0] * count
    if q0 <= 0:
        # Filling from empty: every unit that stays is a mixture in proportion to the inflows.
        return [a * q1 / total_in for a in inflow] if total_in > 0 else [0.0] * count
    growth = total_in - total_drain
    if total_drain <= 0:
        return [b + a * step for b, a in zip(before, inflow)]
    if abs(growth) <= 1e-12 * max(total_in, total_drain):
        decay = math.exp(-total_drain * step / q0)
        return [a * q0 / total_drain + (b - a * q0 / total_drain) * decay for b, a in zip(before, inflow)]
    ratio = (q1 / q0) ** (-total_drain / growth)
    if total_in <= 0:
        return [b * q1 / q0 for b in before]
    return [a * q1 / total_in + (b - a * q0 / total_in) * ratio for b, a in zip(before, inflow)]


def _equal_share_contents(before, inflow, step, total_drain):
    """Per-application contents after a step when the drain is split equally among non-empty buffers.

    An empty buffer cannot drain faster than its inflow, so the split is a
    water-filling with caps a_k on empty buffers; it changes whenever a buffer
    empties, hence the sub-steps.
    """
    contents = list(before)
    left = step
    scale = max(max(before), max(inflow) * step, 1e-300)
    for _ in range(4 * len(contents) + 4):
        if left <= 0:
            break
        active = [k for k in range(len(contents)) if contents[k] > 1e-12 * scale or inflow[k] > 0]
        if not active:
            break
        caps = {k: (math.inf if contents[k] > 1e-12 * scale else inflow[k]) for k in active}
        shares = {k: 0.0 for k in active}
        budget, open_ = total_drain, sorted(active, key=lambda k: caps[k])
        while open_:
            equal = budget / len(open_)
            if caps[open_[0]] <= equal:
                k = open_.pop(0)
                shares[k] = caps[k]
                budget -= caps[k]
            else:
                for k in open_:
                    shares[k] = equal
                break
        sub = left
        for k in active:
            net = inflow[k] - shares[k]
            if net < 0 and contents[k] > 0:
                sub = min(sub, contents[k] / -net)
        for k in active:
            contents[k] = max(0.0, contents[k] + (inflow[k] - shares[k]) * sub)
        left -= sub
    return contents


def _simulate_dynamic(instance: Instance, solution: Solution, max_events: int | None) -> Trace:
    apps = instance.applications
    count = len(apps)
    bandwidth = instance.platform.pfs_bandwidth
    capacity = float(solution.capacity)
    limit = instance.platform.capacity if instance.objective == "sharing" else capacity
    volume_scale = max(capacity, max(app.volume for app in apps))
    trace = Trace(instance, segments=[[] for _ in apps], completion=[math.inf] * count)
    phases = [_Phase(app) for app in apps]
    level = 0.0
    content = [0.0] * count
    fifo: deque[list] = deque()  # [amount, composition] segments, oldest first
    now = 0.0
    trace.times.append(now)
    trace.contents.append(list(content))
    trace.total.append(0.0)
    for _ in range(_event_budget(instance, max_events)):
        for k, phase in enumerate(phases):
            if phase.advance_if_finished(now):
                trace.completion[k] = now
        if all(p.phase == _DONE for p in phases):
            break
        writers = [k for k in range(count) if phases[k].phase == _WRITE]
        demand = sum(apps[k].rate for k in writers)
        full = level >= capacity - _SNAP * volume_scale
        factor = bandwidth / demand if full and demand > bandwidth else 1.0
        inflow = [0.0] * count
        for k in writers:
            inflow[k] = apps[k].rate * factor
        total_in = sum(inflow)
        empty = level <= _SNAP * volume_scale
        total_drain = min(bandwidth, total_in) if empty else bandwidth
        if total_drain > bandwidth * (1 + TOLERANCE):
            trace.violations.append(Violation("drain", f"total drain {total_drain:.6g} > B at t = {now:.6g}"))
        net = total_in - total_drain
        step = math.inf
        for k in range(count):
            phase = phases[k]
            if phase.phase in (_WAIT, _COMPUTE):
                step = min(step, phase.remaining)
            elif phase.phase == _WRITE and inflow[k] > 0:
                step = min(step, phase.remaining / inflow[k])
        if net > 0 and level < capacity:
            step = min(step, (capacity - level) / net)
        elif net < 0 and level > 0:
            step = min(step, level / -net)
        if not math.isfinite(step):
            for k, phase in enumerate(phases):
                if phase.phase != _DONE:
                    trace.violations.append(Violation("starvation", f"{apps[k].name} can never finish"))
            return trace
        step = max(step, 0.0)
        for k in range(count):
            phase = phases[k]
            if phase.phase in (_WAIT, _COMPUTE):
                phase.remaining -= step
                if phase.phase == _COMPUTE:
                    _record(trace, k, now, now + step, "compute")
            elif phase.phase == _WRITE:
                phase.remaining -= inflow[k] * step
                throttled = inflow[k] < apps[k].rate * (1 - TOLERANCE)
                _record(trace, k, now, now + step, "throttled" if throttled else "io")
                if inflow[k] > apps[k].rate * (1 + TOLERANCE):
                    trace.violations.append(Violation("write-rate", f"{apps[k].name} writes above r"))
        new_level = level + net * step
        if abs(new_level - capacity) <= _SNAP * volume_scale:
            new_level = capacity
        if new_level <= _SNAP * volume_scale:
            new_level = 0.0
        # Per-application contents: only the policy's bookkeeping, it does not change any event.
        if solution.drain_policy == "fifo":
            drained = max(0.0, level + total_in * step - new_level)
            if total_in > 0 and step > 0:
                fifo.append([total_in * step, [a / total_in for a in inflow]])
            while drained > 0 and fifo:
                head = fifo[0]
                taken = min(head[0], drained)
                head[0] -= taken
                drained -= taken
                if head[0] <= _SNAP * volume_scale:
                    fifo.popleft()
            if new_level == 0.0:
                fifo.clear()
            content = [sum(seg[0] * seg[1][k] for seg in fifo) for k in range(count)]
        elif solution.drain_policy == "equal":
            content = _equal_share_contents(content, inflow, step, total_drain) if new_level > 0 else [0.0] * count
        else:
            content = _proportional_contents(content, inflow, level, new_level, step, bandwidth, total_drain)
        if any(c < -_SNAP * volume_scale for c in content):
            trace.violations.append(Violation("occupancy", f"negative per-application content at t = {now + step:.6g}"))
        level = new_level
        now += step
        if level > limit * (1 + TOLERANCE) + 1e-300:
            trace.violations.append(Violation("occupancy", f"buffer holds {level:.6g} > capacity {limit:.6g} at t = {now:.6g}"))
        trace.peak_occupancy = max(trace.peak_occupancy, level)
        trace.times.append(now)
        trace.contents.append([max(c, 0.0) for c in content])
        trace.total.append(level)
    else:
        trace.violations.append(Violation("simulation", "event budget exhausted before every application finished"))
    return trace
