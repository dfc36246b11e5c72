"""Event simulation of a dynamic allocation: one shared buffer couples every application.

The PFS is work-conserving (drains at B while the buffer holds data) and,
when the buffer is full, throttled writers share the freed room in
proportion to r_k; admission depends only on the total occupancy, so the
drain policy only decides whose data leaves first (the per-application
contents, closed forms in ``docs/burstbuffer.md``).
"""

from __future__ import annotations

import math
from collections import deque

from ...core.violation import Violation
from .data import TOLERANCE, Instance
from .solution import Solution
from .trace import DONE, SNAP, WRITE, Phase, Trace, event_budget


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
        return [b + a * step for b, a in zip(before, inflow, strict=True)]
    if abs(growth) <= 1e-12 * max(total_in, total_drain):
        decay = math.exp(-total_drain * step / q0)
        return [a * q0 / total_drain + (b - a * q0 / total_drain) * decay for b, a in zip(before, inflow, strict=True)]
    ratio = (q1 / q0) ** (-total_drain / growth)
    if total_in <= 0:
        return [b * q1 / q0 for b in before]
    return [a * q1 / total_in + (b - a * q0 / total_in) * ratio for b, a in zip(before, inflow, strict=True)]


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


class DynamicSimulation:
    """The shared buffer of ``solution.capacity`` bytes, every application at once."""

    def __init__(self, instance: Instance, solution: Solution) -> None:
        self.apps = instance.applications
        self.count = len(self.apps)
        self.bandwidth = instance.platform.pfs_bandwidth
        self.capacity = float(solution.capacity or 0.0)
        self.policy = solution.drain_policy
        self.limit = instance.platform.capacity if instance.objective == "sharing" else self.capacity
        self.volume_scale = max(self.capacity, max(app.volume for app in self.apps))
        self.trace = Trace.empty(instance)
        self.phases = [Phase(app) for app in self.apps]
        self.level = 0.0
        self.content = [0.0] * self.count
        self.fifo: deque[list] = deque()  # [amount, composition] segments, oldest first
        self.now = 0.0
        self.trace.times.append(self.now)
        self.trace.contents.append(list(self.content))
        self.trace.total.append(0.0)

    def run(self, budget: int) -> Trace:
        for _ in range(budget):
            for k, phase in enumerate(self.phases):
                if phase.advance_if_finished(self.now):
                    self.trace.completion[k] = self.now
            if all(p.phase == DONE for p in self.phases):
                return self.trace
            if not self._event():
                return self.trace
        self.trace.violations.append(
            Violation("simulation", "event budget exhausted before every application finished")
        )
        return self.trace

    def _inflows(self) -> list[float]:
        """Write rates: r_k for every writer, scaled to share B when the buffer is full and demand exceeds B."""
        writers = [k for k in range(self.count) if self.phases[k].phase == WRITE]
        demand = sum(self.apps[k].rate for k in writers)
        full = self.level >= self.capacity - SNAP * self.volume_scale
        factor = self.bandwidth / demand if full and demand > self.bandwidth else 1.0
        inflow = [0.0] * self.count
        for k in writers:
            inflow[k] = self.apps[k].rate * factor
        return inflow

    def _step(self, inflow: list[float], net: float) -> float:
        """Seconds to the next event: a phase end, the buffer full or empty."""
        step = min([math.inf] + [phase.time_to_end(inflow[k]) for k, phase in enumerate(self.phases)])
        if net > 0 and self.level < self.capacity:
            step = min(step, (self.capacity - self.level) / net)
        elif net < 0 and self.level > 0:
            step = min(step, self.level / -net)
        return step

    def _event(self) -> bool:
        """Advance to the next event; False when some application can never finish."""
        inflow = self._inflows()
        total_in = sum(inflow)
        empty = self.level <= SNAP * self.volume_scale
        total_drain = min(self.bandwidth, total_in) if empty else self.bandwidth
        if total_drain > self.bandwidth * (1 + TOLERANCE):
            self.trace.violations.append(Violation("drain", f"total drain {total_drain:.6g} > B at t = {self.now:.6g}"))
        net = total_in - total_drain
        step = self._step(inflow, net)
        if not math.isfinite(step):
            for k, phase in enumerate(self.phases):
                if phase.phase != DONE:
                    self.trace.violations.append(Violation("starvation", f"{self.apps[k].name} can never finish"))
            return False
        step = max(step, 0.0)
        for k, phase in enumerate(self.phases):
            writing = phase.phase == WRITE
            phase.run(self.trace, k, self.now, step, inflow[k])
            if writing and inflow[k] > self.apps[k].rate * (1 + TOLERANCE):
                self.trace.violations.append(Violation("write-rate", f"{self.apps[k].name} writes above r"))
        new_level = self._snap(self.level + net * step)
        # Per-application contents: only the policy's bookkeeping, it does not change any event.
        self.content = self._contents(inflow, step, total_in, total_drain, new_level)
        if any(c < -SNAP * self.volume_scale for c in self.content):
            self.trace.violations.append(
                Violation("occupancy", f"negative per-application content at t = {self.now + step:.6g}")
            )
        self.level = new_level
        self.now += step
        self._record_event()
        return True

    def _snap(self, level: float) -> float:
        if abs(level - self.capacity) <= SNAP * self.volume_scale:
            level = self.capacity
        if level <= SNAP * self.volume_scale:
            level = 0.0
        return level

    def _contents(
        self, inflow: list[float], step: float, total_in: float, total_drain: float, new_level: float
    ) -> list[float]:
        if self.policy == "fifo":
            return self._fifo_contents(inflow, step, total_in, new_level)
        if self.policy == "equal":
            return (
                _equal_share_contents(self.content, inflow, step, total_drain) if new_level > 0 else [0.0] * self.count
            )
        return _proportional_contents(self.content, inflow, self.level, new_level, step, self.bandwidth, total_drain)

    def _fifo_contents(self, inflow: list[float], step: float, total_in: float, new_level: float) -> list[float]:
        """First in, first out: the drain takes the oldest segments of the mixture first."""
        drained = max(0.0, self.level + total_in * step - new_level)
        if total_in > 0 and step > 0:
            self.fifo.append([total_in * step, [a / total_in for a in inflow]])
        while drained > 0 and self.fifo:
            head = self.fifo[0]
            taken = min(head[0], drained)
            head[0] -= taken
            drained -= taken
            if head[0] <= SNAP * self.volume_scale:
                self.fifo.popleft()
        if new_level == 0.0:
            self.fifo.clear()
        return [sum(seg[0] * seg[1][k] for seg in self.fifo) for k in range(self.count)]

    def _record_event(self) -> None:
        if self.level > self.limit * (1 + TOLERANCE) + 1e-300:
            self.trace.violations.append(
                Violation(
                    "occupancy", f"buffer holds {self.level:.6g} > capacity {self.limit:.6g} at t = {self.now:.6g}"
                )
            )
        self.trace.peak_occupancy = max(self.trace.peak_occupancy, self.level)
        self.trace.times.append(self.now)
        self.trace.contents.append([max(c, 0.0) for c in self.content])
        self.trace.total.append(self.level)


def simulate_dynamic(instance: Instance, solution: Solution, max_events: int | None) -> Trace:
    """The `Trace` of a dynamic allocation (joint simulation of the shared buffer)."""
    return DynamicSimulation(instance, solution).run(event_budget(instance, max_events))
