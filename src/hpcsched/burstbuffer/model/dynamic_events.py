"""Event simulation of a dynamic allocation: one shared buffer couples every application.

The PFS is work-conserving (drains at B while the buffer holds data) and,
when the buffer is full, throttled writers share the freed room in
proportion to r_k: every writer then writes at r_k · f with one common
factor f = B / D (D = Σ r_k over the writers). Admission depends only on the
total occupancy, so the drain policy only decides whose data leaves first
(the per-application contents, ``dynamic_contents``).

Each event costs O(log K), not O(K): compute and wait phases end at known
instants (a heap), and a burst ends when the writers' common *write clock*
(∫ f dt, seconds of unthrottled writing) has advanced by v_k / r_k since it
began (a second heap); the demand D is kept as a running compensated sum.
While the buffer is not full nobody is throttled and the future is the
nominal one, which ``nominal.fast_forward`` computes for every application
at once (numpy) up to the first instant the buffer would fill; the events
between are not simulated one by one.

Per-application contents and timelines are recorded only for small
instances (`DETAIL_CELLS`): they cost O(K) per event.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

from ...core.violation import Violation
from .data import TOLERANCE, Instance
from .dynamic_contents import FifoContents, _equal_share_contents, _proportional_contents
from .nominal import fast_forward
from .solution import Solution
from .trace import SNAP, Trace, event_budget

#: Applications x events above which contents and timelines are not recorded (each event would
#: update every application's content: O(K) per event instead of O(log K)).
DETAIL_CELLS = 200_000

WAIT, COMPUTE, WRITE, DONE = 0, 1, 2, 3
_STATE = {COMPUTE: "compute"}


class DynamicSimulation:
    """The shared buffer of ``solution.capacity`` bytes, every application at once.

    Attributes
    ----------
    now, level, clock
        The current instant, the total occupancy and the write clock (∫ f dt).
    phase, iteration, ends
        Per application: its phase (`WAIT`, `COMPUTE`, `WRITE`, `DONE`), bursts
        done, and when its phase ends (an instant; on the write clock for `WRITE`).
    """

    def __init__(self, instance: Instance, solution: Solution, detail: bool | None = None) -> None:
        apps = instance.applications
        self.count = len(apps)
        self.bandwidth = instance.platform.pfs_bandwidth
        self.capacity = float(solution.capacity or 0.0)
        self.policy = solution.drain_policy
        self.limit = instance.platform.capacity if instance.objective == "sharing" else self.capacity
        self.volume_scale = max(self.capacity, max(app.volume for app in apps))
        self.rate = [app.rate for app in apps]
        self.compute = [app.compute for app in apps]
        self.release = [app.release for app in apps]
        self.iterations = [app.iterations for app in apps]
        self.burst = [app.burst_time for app in apps]
        self.time_scale = [max(1.0, app.period) for app in apps]
        self.names = [app.name for app in apps]
        self.widest_time, self.widest_burst = SNAP * max(self.time_scale), SNAP * max(self.burst)
        bursts = sum(self.iterations)
        self.detail = self.count * (2 * bursts + self.count) <= DETAIL_CELLS if detail is None else detail
        self.trace = Trace.empty(instance)
        self.now = self.level = self.clock = 0.0
        self.phase = [WAIT] * self.count
        self.iteration = [0] * self.count
        self.ends = [0.0] * self.count
        self.started = [0.0] * self.count  # when the current phase began (timelines)
        self.timed: list[tuple[float, int]] = []
        self.writes: list[tuple[float, int]] = []
        self.demand = self.compensation = 0.0
        self.writers = 0
        self.unfinished = self.count
        self.throttled: list[list[float]] = []  # [start, end] of throttled intervals (timelines)
        self.content = [0.0] * self.count
        self.fifo = FifoContents(self.count, self.volume_scale)
        self.columns: Any = None  # the applications' data as arrays, made by `nominal.fast_forward`
        for k in range(self.count):
            self._begin(k, WAIT)
        self._record_event()

    # -- phases ---------------------------------------------------------------------------
    def _add_demand(self, rate: float) -> None:
        """D += rate, compensated (Neumaier): thousands of writers come and go."""
        total = self.demand + rate
        if abs(self.demand) >= abs(rate):
            self.compensation += (self.demand - total) + rate
        else:
            self.compensation += (rate - total) + self.demand
        self.demand = total

    def current_demand(self) -> float:
        return self.demand + self.compensation

    def _begin(self, k: int, phase: int) -> None:
        """Application k starts ``phase`` now; phases that end at once are skipped (as their lengths are 0)."""
        self.started[k] = self.now
        while phase != WRITE:
            length = self.release[k] if phase == WAIT else self.compute[k]
            if length > SNAP * self.time_scale[k]:
                self.phase[k], self.ends[k] = phase, self.now + length
                heapq.heappush(self.timed, (self.ends[k], k))
                return
            phase = COMPUTE if phase == WAIT else WRITE
        self.phase[k], self.ends[k] = WRITE, self.clock + self.burst[k]
        heapq.heappush(self.writes, (self.ends[k], k))
        self._add_demand(self.rate[k])
        self.writers += 1

    def _end(self, k: int) -> None:
        """The current phase of application k ended now."""
        phase = self.phase[k]
        if self.detail:
            self._record_timeline(k, phase)
        if phase != WRITE:
            self._begin(k, COMPUTE if phase == WAIT else WRITE)
            return
        self.writers -= 1
        if self.writers:
            self._add_demand(-self.rate[k])
        else:
            self.demand = self.compensation = 0.0  # exactly: no writer left
        self.iteration[k] += 1
        if self.iteration[k] < self.iterations[k]:
            self._begin(k, COMPUTE)
            return
        self.phase[k] = DONE
        self.trace.completion[k] = self.now
        self.unfinished -= 1

    def _finish_phases(self) -> None:
        """End every phase whose end is within its snap tolerance of now (of the write clock for bursts)."""
        self._pop_finished(self.timed, self.now, self.time_scale, self.widest_time)
        self._pop_finished(self.writes, self.clock, self.burst, self.widest_burst)

    def _pop_finished(self, heap: list[tuple[float, int]], reference: float, scale: list[float], widest: float) -> None:
        later: list[tuple[float, int]] = []
        while heap and heap[0][0] - reference <= widest:
            end, k = heapq.heappop(heap)
            if end - reference <= SNAP * scale[k]:
                self._end(k)
            else:
                later.append((end, k))
        for entry in later:
            heapq.heappush(heap, entry)

    # -- events ---------------------------------------------------------------------------
    def run(self, budget: int) -> Trace:
        events = 0
        cooldown = 0
        while events < budget:
            self._finish_phases()
            if self.unfinished == 0:
                return self.trace
            if not self.detail and cooldown <= 0 and not self._throttled():
                consumed, cooldown = fast_forward(self)
                events += consumed
                continue
            cooldown -= 1
            if not self._event():
                return self.trace
            events += 1
        self.trace.violations.append(
            Violation("simulation", "event budget exhausted before every application finished")
        )
        return self.trace

    def _throttled(self) -> bool:
        """True while the buffer is full and the writers ask for more than B."""
        return self.level >= self._full_level() and self.current_demand() > self.bandwidth

    def _full_level(self) -> float:
        return self.capacity - SNAP * self.volume_scale

    def _event(self) -> bool:
        """Advance to the next event; False when some application can never finish."""
        demand = self.current_demand()
        full = self.level >= self._full_level()
        factor = self.bandwidth / demand if full and demand > self.bandwidth else 1.0
        total_in = demand * factor
        empty = self.level <= SNAP * self.volume_scale
        total_drain = min(self.bandwidth, total_in) if empty else self.bandwidth
        if total_drain > self.bandwidth * (1 + TOLERANCE):
            self.trace.violations.append(Violation("drain", f"total drain {total_drain:.6g} > B at t = {self.now:.6g}"))
        if self.writers and factor > 1 + TOLERANCE:
            self.trace.violations.append(
                Violation("write-rate", f"writers write at {factor:.9g} x r at {self.now:.6g}")
            )
        net = total_in - total_drain
        step = self._step(factor, net)
        if not math.isfinite(step):
            for k in range(self.count):
                if self.phase[k] != DONE:
                    self.trace.violations.append(Violation("starvation", f"{self.names[k]} can never finish"))
            return False
        step = max(step, 0.0)
        new_level = self._snap(self.level + net * step)
        if self.detail:
            self._contents(factor, step, total_in, total_drain, new_level)
            if factor < 1 - TOLERANCE and step > 0:
                self._note_throttled(self.now, self.now + step)
        self.level = new_level
        self.now += step
        self.clock += factor * step
        self._record_event()
        return True

    def _step(self, factor: float, net: float) -> float:
        """Seconds to the next event: a phase end, the buffer full or empty."""
        step = self.timed[0][0] - self.now if self.timed else math.inf
        if self.writes:
            step = min(step, (self.writes[0][0] - self.clock) / factor)
        if net > 0 and self.level < self.capacity:
            step = min(step, (self.capacity - self.level) / net)
        elif net < 0 and self.level > 0:
            step = min(step, self.level / -net)
        return step

    def _snap(self, level: float) -> float:
        if abs(level - self.capacity) <= SNAP * self.volume_scale:
            level = self.capacity
        if level <= SNAP * self.volume_scale:
            level = 0.0
        return level

    def _record_event(self) -> None:
        if self.level > self.limit * (1 + TOLERANCE) + 1e-300:
            self.trace.violations.append(
                Violation(
                    "occupancy", f"buffer holds {self.level:.6g} > capacity {self.limit:.6g} at t = {self.now:.6g}"
                )
            )
        self.trace.peak_occupancy = max(self.trace.peak_occupancy, self.level)
        self.trace.times.append(self.now)
        self.trace.total.append(self.level)
        if self.detail:
            self.trace.contents.append([max(c, 0.0) for c in self.content])

    # -- details: per-application contents and timelines (small instances) ------------------
    def _contents(self, factor: float, step: float, total_in: float, total_drain: float, new_level: float) -> None:
        inflow = [self.rate[k] * factor if self.phase[k] == WRITE else 0.0 for k in range(self.count)]
        if self.policy == "fifo":
            self.content = self.fifo.step(self.level, inflow, step, total_in, new_level)
        elif self.policy == "equal":
            self.content = (
                _equal_share_contents(self.content, inflow, step, total_drain) if new_level > 0 else [0.0] * self.count
            )
        else:
            self.content = _proportional_contents(
                self.content, inflow, self.level, new_level, step, self.bandwidth, total_drain
            )
        if any(c < -SNAP * self.volume_scale for c in self.content):
            self.trace.violations.append(
                Violation("occupancy", f"negative per-application content at t = {self.now + step:.6g}")
            )

    def _note_throttled(self, start: float, end: float) -> None:
        if self.throttled and abs(self.throttled[-1][1] - start) <= 1e-12 * max(1.0, start):
            self.throttled[-1][1] = end
        else:
            self.throttled.append([start, end])

    def _record_timeline(self, k: int, phase: int) -> None:
        """Application k's phase that ends now, on its timeline (a burst split where it was throttled)."""
        start, end = self.started[k], self.now
        if phase == COMPUTE:
            self.trace.record(k, start, end, "compute")
        elif phase == WRITE:
            for low, high in self.throttled:  # few: small instances only
                if high <= start or low >= end:
                    continue
                self.trace.record(k, start, max(start, low), "io")
                self.trace.record(k, max(start, low), min(end, high), "throttled")
                start = min(end, high)
            self.trace.record(k, start, end, "io")


def simulate_dynamic(instance: Instance, solution: Solution, max_events: int | None) -> Trace:
    """The `Trace` of a dynamic allocation (joint simulation of the shared buffer)."""
    return DynamicSimulation(instance, solution).run(event_budget(instance, max_events))
