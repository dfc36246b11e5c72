"""Event-driven simulator of a two-slot GPU, used by heuristics and decoders.

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
"""

from __future__ import annotations

from typing import Callable, Sequence

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
    """
    pending = list(order)
    remaining: dict[int, float] = {}
    started: dict[int, float] = {}
    segments: list[Segment] = []
    completed: set[int] = set()
    time = 0.0
    while pending or remaining:
        while len(remaining) < 2 and pending:
            ready = pending if not instance.streams else [k for k in pending if _ready(instance, k, completed)]
            if not ready:
                break
            choice = policy(instance, tuple(remaining), time, ready)
            if choice is None:
                break
            pending.remove(choice)
            remaining[choice] = float(instance.kernels[choice].duration)
            started[choice] = time
        running = tuple(remaining)
        next_release = min(
            (releases[k] for k in pending if releases is not None and releases[k] > time), default=None
        )
        if not running:
            if next_release is None:
                raise RuntimeError(f"policy started nothing at time {time} with kernels {pending} pending")
            time = next_release
            continue
        speeds = {k: _speed(instance, k, running) for k in running}
        finishing = min(running, key=lambda k: remaining[k] / speeds[k])
        step = remaining[finishing] / speeds[finishing]
        if next_release is not None and next_release < time + step:
            for k in running:
                remaining[k] -= speeds[k] * (next_release - time)
            time = next_release
            continue
        end = time + step
        for k in running:
            if k == finishing:
                continue
            remaining[k] -= speeds[k] * step
            # A partner that finishes within rounding of the same instant ends too.
            if remaining[k] <= 1e-12 * instance.kernels[k].duration:
                remaining[k] = 0.0
        del remaining[finishing]
        segments.append(Segment(finishing, started.pop(finishing), end))
        completed.add(finishing)
        for k in [k for k, left in remaining.items() if left == 0.0]:
            del remaining[k]
            segments.append(Segment(k, started.pop(k), end))
            completed.add(k)
        time = end
    return Solution(tuple(sorted(segments, key=lambda s: (s.start, s.kernel))))


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
