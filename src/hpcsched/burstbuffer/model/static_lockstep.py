"""The partitions of a static allocation simulated side by side, one numpy step per event.

Under a static allocation each application is alone in its partition, so its
events depend on itself only. `static_events.PartitionSimulation` follows one
partition at a time in Python (and records its timeline); here every
partition takes its next event at once: step i moves each application from
its i-th event to its (i+1)-th, whatever instants those are. The rules are
the same, line for line (release wait, compute, burst; the partition full,
empty, a drain-schedule breakpoint; the snaps and the checks), so the events,
contents and completions are those of the one-by-one simulation (a property
test compares them). The cost is one pass of array operations per event of
the busiest partition instead of Python per event of every partition: it is
what validates 100,000 partitions in about a second.
"""

from __future__ import annotations

import numpy as np

from ...core.violation import Violation
from .data import TOLERANCE, Instance
from .solution import Solution
from .trace import SNAP, Trace

WAIT, COMPUTE, WRITE, DONE = 0, 1, 2, 3


class _Partitions:
    """The state of every partition still running (arrays indexed alike; ``app`` names the application)."""

    def __init__(self, instance: Instance, solution: Solution, sizes: np.ndarray) -> None:
        apps = instance.applications

        def column(values) -> np.ndarray:
            return np.array(values, dtype=float)

        self.app = np.arange(len(apps))
        self.rate = column([a.rate for a in apps])
        self.volume = column([a.volume for a in apps])
        self.compute = column([a.compute for a in apps])
        self.iterations = np.array([a.iterations for a in apps])
        self.time_scale = column([max(1.0, a.period) for a in apps])
        self.size = sizes.astype(float)
        self.drain = column(solution.drain_rates)
        release = column([a.release for a in apps])
        self.phase = np.where(release > 0, WAIT, COMPUTE)
        self.remaining = np.where(release > 0, release, self.compute)
        self.iteration = np.zeros(len(apps), dtype=int)
        self.content = np.zeros(len(apps))
        self.now = np.zeros(len(apps))
        self.events = np.zeros(len(apps), dtype=int)
        self.limit = SNAP * np.maximum(self.size, self.volume)

    def keep(self, mask: np.ndarray) -> None:
        if mask.all():
            return
        for name, value in vars(self).items():
            if isinstance(value, np.ndarray):
                setattr(self, name, value[mask])


def _advance(state: _Partitions, completion: np.ndarray) -> None:
    """Every phase that is over moves on (several at one instant when a phase has length 0)."""
    while True:
        limit = SNAP * np.where(state.phase == WRITE, state.volume, state.time_scale)
        ended = (state.phase != DONE) & (state.remaining <= limit)
        if not ended.any():
            return
        phase = state.phase
        to_compute = ended & ((phase == WAIT) | (phase == WRITE))
        to_write = ended & (phase == COMPUTE)
        state.iteration = state.iteration + (ended & (phase == WRITE))
        done = ended & (phase == WRITE) & (state.iteration == state.iterations)
        to_compute &= ~done
        state.phase = np.where(done, DONE, np.where(to_write, WRITE, np.where(to_compute, COMPUTE, phase)))
        state.remaining = np.where(
            done, 0.0, np.where(to_write, state.volume, np.where(to_compute, state.compute, state.remaining))
        )
        completion[state.app[done]] = state.now[done]


def _caps(state: _Partitions, solution: Solution, times: np.ndarray, rates: np.ndarray | None) -> np.ndarray:
    """Each partition's reserved drain at its current instant (the schedule on [t_0, t_m), else d_k)."""
    if rates is None:
        return state.drain
    inside = (state.now >= times[0]) & (state.now < times[-1])
    j = np.clip(np.searchsorted(times, state.now, side="right") - 1, 0, times.size - 2)
    return np.where(inside, rates[state.app, j], state.drain)


def _step(state: _Partitions, inflow: np.ndarray, net: np.ndarray, breakpoints: np.ndarray) -> np.ndarray:
    """Seconds to each partition's next event: phase end, partition full or empty, drain breakpoint."""
    with np.errstate(divide="ignore", invalid="ignore"):
        timed = (state.phase == WAIT) | (state.phase == COMPUTE)
        writing = (state.phase == WRITE) & (inflow > 0)
        step = np.where(timed, state.remaining, np.where(writing, state.remaining / inflow, np.inf))
        filling = (net > 0) & (state.content < state.size)
        emptying = (net < 0) & (state.content > 0)
        step = np.where(filling, np.minimum(step, (state.size - state.content) / net), step)
        step = np.where(emptying, np.minimum(step, state.content / -net), step)
    if breakpoints.size:
        j = np.searchsorted(breakpoints, state.now, side="right")
        ahead = j < breakpoints.size
        gap = breakpoints[np.minimum(j, breakpoints.size - 1)] - state.now
        step = np.where(ahead, np.minimum(step, gap), step)
    return step


def simulate_lockstep(
    instance: Instance, solution: Solution, sizes: np.ndarray, budget: int, trace: Trace
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every partition's events as one table ``(application, instant, content)`` (each starts at (0, 0)).

    Completions and violations go to ``trace``; no timelines are recorded.
    """
    schedule = solution.drain_schedule
    times = np.array(schedule.times, dtype=float) if schedule is not None else np.array([])
    rates = np.array(schedule.rates, dtype=float) if schedule is not None else None
    completion = np.full(instance.num_applications, np.inf)
    state = _Partitions(instance, solution, sizes)
    columns = [(state.app, state.now, state.content)]
    names = [app.name for app in instance.applications]
    while state.app.size:
        _advance(state, completion)
        state.keep(~((state.phase == DONE) & (state.content <= 0)))  # finished and drained
        over = state.events >= budget
        for k in state.app[over].tolist():
            trace.violations.append(Violation("simulation", f"event budget exhausted before {names[k]} finished"))
        state.keep(~over)
        if not state.app.size:
            break
        cap = _caps(state, solution, times, rates)
        full = state.content >= state.size - state.limit
        inflow = np.where(state.phase == WRITE, np.where(full, np.minimum(state.rate, cap), state.rate), 0.0)
        empty = state.content <= SNAP * state.volume
        net = inflow - np.where(empty, np.minimum(cap, inflow), cap)
        step = _step(state, inflow, net, times)
        stuck = ~np.isfinite(step)
        for where in np.flatnonzero(stuck & (state.phase != DONE)).tolist():
            trace.violations.append(
                Violation(
                    "starvation",
                    f"{names[state.app[where]]} can never finish its burst {state.iteration[where]} "
                    "(no room, no drain)",
                )
            )
        state.keep(~stuck)
        step, inflow, net = np.maximum(step[~stuck], 0.0), inflow[~stuck], net[~stuck]
        timed = (state.phase == WAIT) | (state.phase == COMPUTE)
        state.remaining = np.where(timed, state.remaining - step, state.remaining - inflow * step)
        for where in np.flatnonzero(inflow > state.rate * (1 + TOLERANCE)).tolist():
            trace.violations.append(
                Violation(
                    "write-rate",
                    f"{names[state.app[where]]} writes at {inflow[where]:.6g} > r = {state.rate[where]:.6g}",
                )
            )
        content = state.content + net * step
        content = np.where(np.abs(content - state.size) <= state.limit, state.size, content)
        state.content = np.where(content <= SNAP * state.volume, 0.0, content)
        state.now = state.now + step
        state.events += 1
        for where in np.flatnonzero(state.content > state.size * (1 + TOLERANCE) + 1e-300).tolist():
            trace.violations.append(
                Violation(
                    "occupancy",
                    f"{names[state.app[where]]} holds {state.content[where]:.6g} > its partition "
                    f"{state.size[where]:.6g} at t = {state.now[where]:.6g}",
                )
            )
        columns.append((state.app, state.now, state.content))
    trace.completion = completion.tolist()
    return tuple(np.concatenate(parts) for parts in zip(*columns, strict=True))  # type: ignore[return-value]
