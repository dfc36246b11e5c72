"""The shared buffer between two throttled periods, every application at once (numpy).

While the buffer is not full nobody is throttled, so from any instant on every
application follows its nominal timeline: its current phase ends when it was
going to, then compute w_k, burst v_k / r_k, and so on. The total inflow A(t)
is then a step function of the bursts' starts and ends, and between two of
those instants the occupancy moves at A − B, stopping at 0 when it empties
(the PFS drains at most what comes in). The occupancy at every instant is
therefore Lindley's recursion Q_{i+1} = max(0, Q_i + (A_i − B) Δ_i), which
has the closed form Q_i = S_i + max(Q_0, −min_{j ≤ i} S_j) with S the
running sum of (A − B) Δ: one pass of cumulative sums. This holds up to the
first interval on which the buffer would fill while the inflow exceeds B;
`fast_forward` moves the event simulation there (or to the end) and leaves
the rest to it. The result is the event simulation's, not an approximation:
the same fluid model, with the events of a whole stretch computed together.
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

import numpy as np

from ...core.violation import Violation
from .data import TOLERANCE
from .trace import SNAP

if TYPE_CHECKING:
    from .dynamic_events import DynamicSimulation

WAIT, COMPUTE, WRITE, DONE = 0, 1, 2, 3

#: An attempt that covers fewer than 1/`PRODUCTIVE` of the instants it computed is followed by at
#: least that many events simulated one by one before the next attempt (its cost, in events).
PRODUCTIVE = 64
SHORTEST_COOLDOWN = 256


class _Columns:
    """The applications' data as arrays (made once per simulation)."""

    def __init__(self, sim: DynamicSimulation) -> None:
        self.rate = np.array(sim.rate)
        self.burst = np.array(sim.burst)
        self.iterations = np.array(sim.iterations)
        compute = np.array(sim.compute)
        # a compute phase within its snap tolerance is skipped, as `DynamicSimulation._begin` does
        self.compute = np.where(compute > SNAP * np.array(sim.time_scale), compute, 0.0)


def _nominal_bursts(sim: DynamicSimulation, columns: _Columns, active: np.ndarray, phase: np.ndarray):
    """Every remaining burst of the ``active`` applications on their nominal timelines.

    Returns the owner (position in ``active``), start and end of each, and
    each application's first burst index and count.
    """
    ends = np.array(sim.ends)[active]
    burst, compute = columns.burst[active], columns.compute[active]
    writing = phase == WRITE
    first_start = np.where(writing, sim.now, np.where(phase == WAIT, ends + compute, ends))
    first_end = np.where(writing, sim.now + (ends - sim.clock), first_start + burst)
    count = columns.iterations[active] - np.array(sim.iteration)[active]
    offsets = np.concatenate(([0], np.cumsum(count)[:-1]))
    owner = np.repeat(np.arange(active.size), count)
    index = np.arange(owner.size) - offsets[owner]
    later = first_end[owner] + compute[owner] + (index - 1) * (compute[owner] + burst[owner])
    starts = np.where(index == 0, first_start[owner], later)
    stops = np.where(index == 0, first_end[owner], later + burst[owner])
    return owner, starts, stops, offsets, count


def fast_forward(sim: DynamicSimulation) -> tuple[int, int]:
    """Move ``sim`` (not full, nobody throttled) to the first instant the buffer would throttle.

    Returns the number of event instants it covered and how many events the
    caller should simulate one by one before the next attempt.
    """
    if sim.columns is None:
        sim.columns = _Columns(sim)
    columns: _Columns = sim.columns
    all_phases = np.array(sim.phase)
    active = np.flatnonzero(all_phases != DONE)
    phase = all_phases[active]
    owner, starts, stops, offsets, count = _nominal_bursts(sim, columns, active, phase)
    rates = columns.rate[active][owner]
    times = np.concatenate((stops, starts))  # ends first: at one instant they leave before others join
    order = np.argsort(times, kind="stable")
    instants = np.concatenate(([sim.now], times[order]))
    inflow = np.cumsum(np.concatenate(([0.0], np.concatenate((-rates, rates))[order])))
    net = inflow[:-1] - sim.bandwidth
    rise = net * np.diff(instants)
    running = np.concatenate(([0.0], np.cumsum(rise)))
    level = running + np.maximum(sim.level, -np.minimum.accumulate(running))
    fills = (net > 0) & (level[:-1] + rise >= sim.capacity - SNAP * sim.volume_scale)
    stop = int(np.argmax(fills)) if fills.any() else instants.size - 1
    if instants[stop] <= sim.now:  # it fills at once (the bursts in progress start at `now`)
        return 0, max(SHORTEST_COOLDOWN, instants.size // PRODUCTIVE)
    _record(sim, instants[1 : stop + 1], level[1 : stop + 1])
    _apply(
        sim, columns, active, phase, float(instants[stop]), float(level[stop]), (owner, starts, stops, offsets, count)
    )
    cooldown = 0 if stop * PRODUCTIVE >= instants.size else max(SHORTEST_COOLDOWN, instants.size // PRODUCTIVE)
    return stop, cooldown


def _record(sim: DynamicSimulation, instants: np.ndarray, levels: np.ndarray) -> None:
    """The covered instants on the trace, with the occupancy check of every event."""
    trace = sim.trace
    for where in np.flatnonzero(levels > sim.limit * (1 + TOLERANCE) + 1e-300):
        trace.violations.append(
            Violation(
                "occupancy",
                f"buffer holds {levels[where]:.6g} > capacity {sim.limit:.6g} at t = {instants[where]:.6g}",
            )
        )
    trace.peak_occupancy = max(trace.peak_occupancy, float(levels.max()))
    trace.times.extend(instants.tolist())
    trace.total.extend(levels.tolist())


def _apply(sim: DynamicSimulation, columns: _Columns, active, phase, until: float, level: float, bursts) -> None:
    """Every application's state at ``until`` on its nominal timeline; the heaps rebuilt."""
    owner, starts, stops, offsets, count = bursts
    done = np.bincount(owner, weights=stops <= until, minlength=active.size).astype(int)
    finished = done == count
    following = offsets + np.minimum(done, count - 1)
    writing = ~finished & (starts[following] <= until)
    clock = sim.clock + (until - sim.now)
    ends = np.array(sim.ends)[active]
    waiting = ~finished & ~writing & (done == 0) & (phase == WAIT) & (until < ends)
    new_phase = np.where(finished, DONE, np.where(writing, WRITE, np.where(waiting, WAIT, COMPUTE)))
    new_end = np.where(writing, clock + (stops[following] - until), np.where(waiting, ends, starts[following]))
    last = stops[offsets + count - 1]
    for name, values in (("phase", new_phase), ("ends", new_end)):
        column = np.array(getattr(sim, name))
        column[active] = values
        setattr(sim, name, column.tolist())
    iteration = np.array(sim.iteration)
    iteration[active] += done
    sim.iteration = iteration.tolist()
    for position in np.flatnonzero(finished).tolist():
        sim.trace.completion[int(active[position])] = float(last[position])
    sim.now, sim.clock, sim.level = until, clock, level
    sim.unfinished = int((~finished).sum())
    live = active[~finished]
    timed = ~writing[~finished]
    sim.timed = list(zip(new_end[~finished][timed].tolist(), live[timed].tolist(), strict=True))
    sim.writes = list(zip(new_end[~finished][~timed].tolist(), live[~timed].tolist(), strict=True))
    heapq.heapify(sim.timed)
    heapq.heapify(sim.writes)
    sim.writers = len(sim.writes)
    sim.demand, sim.compensation = math.fsum(columns.rate[live[~timed]].tolist()), 0.0
