"""Event-driven simulator of a two-slot GPU, and exact timing of slab sequences.

It is *not* the validator: `model.validate` re-checks everything it builds.

A run keeps, for each running kernel, its remaining solo work (time units of
running alone). Between two events the running set is fixed, so each kernel
advances at 1 (alone) or r_{i|j} (with j); the next event is the first
completion or the next release time. At each event a *policy* decides which
pending kernels start. Times are floats; a kernel's segment ends exactly at
the event time that completes it, and a kernel started at an event shares
that very float, so consecutive segments touch without gaps or overlaps.

Streams (``Instance.streams``): a kernel is *ready* once its stream
predecessor has completed; policies see only the ready pending kernels (in
submission order), so every simulated schedule honours the stream order, and
stream-mates never co-run (`Instance.compatible` is False for them).

Slab sequences: a *slab sequence* is a list of kernel sets (who runs in each
consecutive slab). Given the sets, the best timing is an LP: slab lengths
l_k >= 0, minimize Σ l_k subject to, for each kernel i,
Σ_{k: i in set_k} l_k * speed_i(set_k) = p_i (speed 1 alone, r_{i|j} with
j). A slab whose set is not allowed (three kernels, or an incompatible
pair) is fixed to length 0. The LP is solved by HiGHS (scipy's ``linprog``)
with the rows scaled by 1/p_i and feasibility tolerances of 1e-10, so that
the progress of every kernel is within the validator's tolerance. Every
exact formulation decodes its solution through this LP (the solver's own
1e-6 MIP tolerances would otherwise leak into the schedule), and the brute
force enumerates slab sequences and solves this LP for each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix

from .model import Instance, Segment, Solution

#: policy(instance, running kernels, time, pending list) -> kernel to start or None.
Policy = Callable[[Instance, tuple[int, ...], float, list[int]], "int | None"]


def simulate(
    instance: Instance,
    order: Sequence[int],
    policy: Policy,
    *,
    releases: Sequence[float] | None = None,
) -> Solution:
    """Run the kernels of ``order`` non-preemptively on two slots.

    Parameters
    ----------
    order
        Pending kernels, in submission order (a permutation of 0..n-1).
    policy
        Called at each event while a slot is free; returns a pending kernel
        to start now (released, and compatible with the running one) or None.
    releases
        Optional earliest start of each kernel.

    Returns
    -------
    Solution
        One segment per kernel, sorted by (start, kernel).
    """
    run = _TwoSlotRun(instance, order, policy, releases)
    while run.pending or run.remaining:
        run.start_ready()
        run.advance()
    return Solution(tuple(sorted(run.segments, key=lambda s: (s.start, s.kernel))))


class _TwoSlotRun:
    """The state of one simulation: pending kernels, running kernels' remaining work, segments."""

    def __init__(
        self, instance: Instance, order: Sequence[int], policy: Policy, releases: Sequence[float] | None
    ) -> None:
        self.instance = instance
        self.policy = policy
        self.releases = releases
        self.pending = list(order)
        self.remaining: dict[int, float] = {}
        self.started: dict[int, float] = {}
        self.segments: list[Segment] = []
        self.completed: set[int] = set()
        self.time = 0.0

    def start_ready(self) -> None:
        """Let the policy fill the free slots with ready pending kernels."""
        instance = self.instance
        while len(self.remaining) < 2 and self.pending:
            ready = (
                self.pending
                if not instance.streams
                else [k for k in self.pending if _ready(instance, k, self.completed)]
            )
            if not ready:
                return
            choice = self.policy(instance, tuple(self.remaining), self.time, ready)
            if choice is None:
                return
            self.pending.remove(choice)
            self.remaining[choice] = float(instance.kernels[choice].duration)
            self.started[choice] = self.time

    def advance(self) -> None:
        """Move time to the next event: the next release, or the first completion."""
        running = tuple(self.remaining)
        releases = self.releases
        next_release = (
            None  # without releases, no walk over the pending kernels at every event (O(n^2) in all)
            if releases is None
            else min((releases[k] for k in self.pending if releases[k] > self.time), default=None)
        )
        if not running:
            if next_release is None:
                raise RuntimeError(f"policy started nothing at time {self.time} with kernels {self.pending} pending")
            self.time = next_release
            return
        speeds = {k: _speed(self.instance, k, running) for k in running}
        finishing = min(running, key=lambda k: self.remaining[k] / speeds[k])
        step = self.remaining[finishing] / speeds[finishing]
        if next_release is not None and next_release < self.time + step:
            for k in running:
                self.remaining[k] -= speeds[k] * (next_release - self.time)
            self.time = next_release
            return
        self._complete(running, speeds, finishing, step)

    def _complete(self, running: tuple[int, ...], speeds: dict[int, float], finishing: int, step: float) -> None:
        end = self.time + step
        for k in running:
            if k == finishing:
                continue
            self.remaining[k] -= speeds[k] * step
            # A partner that finishes within rounding of the same instant ends too.
            if self.remaining[k] <= 1e-12 * self.instance.kernels[k].duration:
                self.remaining[k] = 0.0
        del self.remaining[finishing]
        self.segments.append(Segment(finishing, self.started.pop(finishing), end))
        self.completed.add(finishing)
        for k in [k for k, left in self.remaining.items() if left == 0.0]:
            del self.remaining[k]
            self.segments.append(Segment(k, self.started.pop(k), end))
            self.completed.add(k)
        self.time = end


def _ready(instance: Instance, kernel: int, completed: set[int]) -> bool:
    before = instance.predecessor(kernel)
    return before is None or before in completed


def _speed(instance: Instance, kernel: int, running: tuple[int, ...]) -> float:
    if len(running) == 1:
        return 1.0
    partner = running[0] if running[1] == kernel else running[1]
    rate = instance.rate(kernel, partner)
    if rate is None:  # policies never start an incompatible kernel
        raise RuntimeError(f"kernels {kernel} and {partner} are incompatible")
    return rate


def _released(releases: Sequence[float] | None, kernel: int, time: float) -> bool:
    return releases is None or releases[kernel] <= time


def fifo_policy(releases: Sequence[float] | None = None) -> Policy:
    """Hardware FIFO: only the head of the queue may start (head-of-line blocking)."""

    def policy(instance, running, time, pending):
        head = pending[0]
        if not _released(releases, head, time):
            return None
        if running and not instance.compatible(head, running[0]):
            return None
        return head

    return policy


def list_policy(releases: Sequence[float] | None = None, *, beneficial_only: bool = False) -> Policy:
    """List scheduling: the first released pending kernel compatible with the running one.

    With ``beneficial_only`` a kernel joins a running one only when the pair
    saves time (r_{i|j} + r_{j|i} > 1); otherwise it waits for a free GPU.
    """

    def policy(instance, running, time, pending):
        for kernel in pending:
            if not _released(releases, kernel, time):
                continue
            if not running:
                return kernel
            partner = running[0]
            if instance.compatible(kernel, partner) and (
                not beneficial_only or instance.rate(kernel, partner) + instance.rate(partner, kernel) > 1 + 1e-12
            ):
                return kernel
        return None

    return policy


def simulate_fixed_starts(instance: Instance, starts: Sequence[float]) -> Solution:
    """Start each kernel at its given time, or as soon after as the GPU allows.

    Used to turn a MILP or CP-SAT solution (start times) into an exactly timed
    schedule: kernels are taken in order of their start (stream order kept:
    a kernel waits for its stream predecessor), each starts at
    max(its start, the first event where a slot is free and the running kernel
    is compatible). Completion times are recomputed with the true rates.
    """
    order = sorted(range(instance.n), key=lambda k: (starts[k], k))
    return simulate(instance, order, fifo_policy(releases=list(starts)), releases=list(starts))


# -- slab sequences ----------------------------------------------------------------

LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10, "presolve": True}


def time_slab_sequence(instance: Instance, sets: Sequence[Sequence[int]]) -> list[float] | None:
    """Optimal slab lengths for the sequence ``sets``, or None if none exists."""
    rows, cols, values = [], [], []
    upper = []
    for column, kernels in enumerate(sets):
        allowed = 1 <= len(kernels) <= 2 and (len(kernels) == 1 or instance.compatible(kernels[0], kernels[1]))
        upper.append(None if allowed else 0.0)
        if not allowed:
            continue
        for kernel in kernels:
            rows.append(kernel)
            cols.append(column)
            speed = (
                1.0
                if len(kernels) == 1
                else instance.listed_rate(kernel, kernels[0] if kernels[1] == kernel else kernels[1])
            )
            values.append(speed / instance.kernels[kernel].duration)
    if not sets:
        return None
    matrix = coo_matrix((values, (rows, cols)), shape=(instance.n, len(sets))).tocsr()
    result = linprog(
        np.ones(len(sets)),
        A_eq=matrix,
        b_eq=np.ones(instance.n),
        bounds=[(0.0, u) for u in upper],
        method="highs",
        options=LP_OPTIONS,
    )
    if result.status != 0:
        return None
    return [max(0.0, float(v)) for v in result.x]


def solution_from_slabs(sets: Sequence[Sequence[int]], lengths: Sequence[float]) -> Solution:
    """Segments of a slab sequence; a kernel in consecutive slabs gets one segment."""
    open_runs: dict[int, float] = {}
    segments: list[Segment] = []
    time = 0.0
    for kernels, length in zip(sets, lengths, strict=True):
        if length <= 0:
            continue
        end = time + length
        for kernel in list(open_runs):
            if kernel not in kernels:
                segments.append(Segment(kernel, open_runs.pop(kernel), time))
        for kernel in kernels:
            open_runs.setdefault(kernel, time)
        time = end
    for kernel, start in open_runs.items():
        segments.append(Segment(kernel, start, time))
    return Solution(tuple(sorted(segments, key=lambda s: (s.start, s.kernel))))


def slabs_of_intervals(starts: Sequence[float], ends: Sequence[float], *, snap: float = 0.0) -> list[tuple[int, ...]]:
    """The slab sequence (running sets) of one interval per kernel.

    Event times closer than ``snap`` are treated as equal (solver round-off);
    at equal times ends come before starts, so touching kernels do not overlap.
    """
    events = []
    for kernel, (start, end) in enumerate(zip(starts, ends, strict=True)):
        events.append((start, 1, kernel))
        events.append((end, 0, kernel))
    events.sort()
    # Snap near-equal times so that the order "end before start" applies to them.
    snapped, last = [], None
    for time, kind, kernel in events:
        if last is not None and time - last <= snap:
            time = last
        snapped.append((time, kind, kernel))
        last = time
    snapped.sort()
    sets, active = [], []
    for position, (_, kind, kernel) in enumerate(snapped):
        if kind == 1:
            active.append(kernel)
        else:
            active.remove(kernel)
        if active and position + 1 < len(snapped):
            sets.append(tuple(sorted(active)))
    return sets
