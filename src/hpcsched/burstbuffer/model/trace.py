"""What the event simulator records (`Trace`) and where each application is in its sequence (`Phase`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...core.violation import Violation
from .data import TOLERANCE, Application, Instance

#: Values within this relative distance of a boundary are snapped onto it (the checks use 1e-9).
SNAP = 1e-10
WAIT, COMPUTE, WRITE, DONE = "wait", "compute", "write", "done"


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

    @classmethod
    def empty(cls, instance: Instance) -> Trace:
        """A trace with one empty timeline and an infinite completion per application."""
        count = instance.num_applications
        return cls(instance, segments=[[] for _ in range(count)], completion=[math.inf] * count)

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

    def record(self, k: int, start: float, end: float, state: str) -> None:
        """Append ``(start, end, state)`` to application k's timeline, merged with a touching same-state part."""
        if end <= start:
            return
        parts = self.segments[k]
        if parts and parts[-1][2] == state and abs(parts[-1][1] - start) <= 1e-12 * max(1.0, start):
            parts[-1] = (parts[-1][0], end, state)
        else:
            parts.append((start, end, state))


class Phase:
    """Where one application is in its sequence wait -> (compute -> write) x n."""

    def __init__(self, app: Application) -> None:
        self.app = app
        self.iteration = 0
        if app.release > 0:
            self.phase, self.remaining = WAIT, app.release
        else:
            self.phase, self.remaining = COMPUTE, app.compute

    @property
    def waiting_or_computing(self) -> bool:
        return self.phase in (WAIT, COMPUTE)

    def advance_if_finished(self, now: float) -> bool:
        """Move to the next phase when this one is over; True if the app just completed."""
        scale_time = max(1.0, self.app.period)
        while self.phase != DONE:
            limit = SNAP * (self.app.volume if self.phase == WRITE else scale_time)
            if self.remaining > limit:
                return False
            if self.phase == WAIT:
                self.phase, self.remaining = COMPUTE, self.app.compute
            elif self.phase == COMPUTE:
                self.phase, self.remaining = WRITE, self.app.volume
            else:
                self.iteration += 1
                if self.iteration == self.app.iterations:
                    self.phase, self.remaining = DONE, 0.0
                    return True
                self.phase, self.remaining = COMPUTE, self.app.compute
        return False

    def time_to_end(self, inflow: float) -> float:
        """Seconds until the current phase ends at this inflow (inf when it cannot end)."""
        if self.waiting_or_computing:
            return self.remaining
        if self.phase == WRITE and inflow > 0:
            return self.remaining / inflow
        return math.inf

    def run(self, trace: Trace, k: int, now: float, step: float, inflow: float) -> None:
        """Spend ``step`` seconds in the current phase at ``inflow`` and record it on k's timeline."""
        if self.waiting_or_computing:
            self.remaining -= step
            if self.phase == COMPUTE:
                trace.record(k, now, now + step, "compute")
        elif self.phase == WRITE:
            self.remaining -= inflow * step
            throttled = inflow < self.app.rate * (1 - TOLERANCE)
            trace.record(k, now, now + step, "throttled" if throttled else "io")


def event_budget(instance: Instance, max_events: int | None) -> int:
    """Most events a simulation may take before it reports itself stuck."""
    if max_events is not None:
        return max_events
    bursts = sum(app.iterations for app in instance.applications)
    return 50 * (bursts + instance.num_applications) + 1000
