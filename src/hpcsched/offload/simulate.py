"""As-early-as-possible simulator for a given offload set O.

Used by the heuristics to turn a set O into a schedule (the validator in
``model.py`` does not use it).  Decisions are taken in this fixed priority
order, each as early as possible given the ones already taken:

1. F_1..F_L: F_k starts at the first time >= end F_{k-1} at which a_k and
   wf_k fit; the offload of a_i (i in O) starts when F_i ends and the channel
   is free (offloads in production order).  In the forward phase memory is
   only allocated by F steps, so waiting for offloads to finish is the only
   reason to idle.
2. For k = L..1: first the prefetch of a_{k-1} (if offloaded) at the first
   time >= max(channel free, end of its offload) from which s_{k-1} fits for
   good (prefetches in order of use), then B_k as soon as B_{k+1} and that
   prefetch are done.

Memory is tracked as a sorted list of (time, delta) events; an interval whose
end is not decided yet counts until infinity, which is exact for the checks
made here because every such interval ends at the end of a step not yet
placed.  The simulator returns None when O does not fit (a step can never
start); it never returns an invalid schedule (the tests check this through
the validator).  ASAP timing is not optimal for a fixed O in general: the
test ``test_asap_timing_is_not_optimal_for_a_fixed_set`` holds a 4-layer
counterexample (half duplex) where the exact timing of the same set, by
`formulations.exact_timing`, is shorter.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable, Sequence

from .model import Instance, Solution, kept_prefix_fits


class _Profile:
    """Memory in use as a sorted event list; open intervals count forever."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.times: list[int] = []
        self.deltas: list[int] = []

    def add(self, time: int, delta: int) -> None:
        index = bisect_right(self.times, time)
        self.times.insert(index, time)
        self.deltas.insert(index, delta)

    def earliest_fit(self, t0: int, lasting: int, extra: int = 0, duration: int = 0) -> int | None:
        """First t >= t0 with usage + lasting <= M on [t, inf) and usage + lasting + extra <= M on [t, t+duration)."""
        times, deltas = self.times, self.deltas
        start = bisect_right(times, t0)
        usage = sum(deltas[:start])
        points_t = [t0]
        points_u = [usage]
        index = start
        while index < len(times):
            time = times[index]
            while index < len(times) and times[index] == time:
                usage += deltas[index]
                index += 1
            points_t.append(time)
            points_u.append(usage)
        room = self.capacity - lasting
        # Condition "fits for good" is monotone: find the first point after the last violation.
        first = 0
        for position in range(len(points_u) - 1, -1, -1):
            if points_u[position] > room:
                first = position + 1
                break
        if first >= len(points_t):
            return None
        if extra == 0 or duration == 0:
            return points_t[first]
        room_extra = room - extra
        for position in range(first, len(points_t)):
            t = points_t[position]
            end = t + duration
            ok = True
            for other in range(position, len(points_t)):
                if points_t[other] >= end:
                    break
                if points_u[other] > room_extra:
                    ok = False
                    break
            if ok:
                return t
        return None


def simulate(instance: Instance, offloaded: Iterable[int], *, scale: int = 1,
             out_order: Sequence[int] | None = None, in_order: Sequence[int] | None = None) -> Solution | None:
    """The ASAP schedule of offload set ``offloaded``, or None if it cannot fit.

    ``scale`` > 1 rounds every duration up to a multiple of ``scale`` (all times are then
    multiples of it): the schedule of the time-scaled CP-SAT model, still valid here.

    ``out_order`` / ``in_order`` (permutations of the set) replace the default channel
    orders (offloads in production order, prefetches in order of use).  An offload
    starts when it is released and the ones before it in ``out_order`` have started;
    the prefetches before a_{k-1}'s in ``in_order`` are placed (each as early as it
    fits for good) before B_k.  An order that would make a step wait for memory
    that only a later transfer frees gives None (no deadlock resolution).
    """
    chosen = sorted(set(offloaded))
    n, s = instance.n_layers, instance.activation
    if out_order is None:
        out_order = chosen
    if in_order is None:
        in_order = chosen[::-1]
    if sorted(out_order) != chosen or sorted(in_order) != chosen:
        raise ValueError("out_order and in_order must be permutations of the offloaded set")

    def up(value: int) -> int:
        return -(-value // scale) * scale

    f = [up(x) for x in instance.forward]
    b = [up(x) for x in instance.backward]
    if not kept_prefix_fits(instance, chosen):
        return None  # the definition's row for steps of zero duration, which the sweep below cannot see
    offload_time = [up(instance.offload_time(i)) if i < n else 0 for i in range(n + 1)]
    prefetch_time = [up(instance.prefetch_time(i)) if i < n else 0 for i in range(n + 1)]
    wf, wb = instance.workspace_forward, instance.workspace_backward
    is_offloaded = [False] * (n + 1)
    for i in chosen:
        is_offloaded[i] = True
    profile = _Profile(instance.memory)
    half = instance.duplex == "half"
    out_free = 0
    in_free = 0
    offload_start: dict[int, int] = {}
    offload_end: dict[int, int] = {}
    prefetch_start: dict[int, int] = {}
    forward_end: dict[int, int] = {}  # a_i's release: end of F_i (a_0: 0)
    next_out = 0

    def leave(i: int) -> None:
        # a_i leaves when its offload and F_{i+1} are both done (whichever is known last adds it).
        if i in offload_end and (i + 1) in forward_end:
            profile.add(max(offload_end[i], forward_end[i + 1]), -s[i])

    def start_offloads() -> None:
        nonlocal out_free, in_free, next_out
        while next_out < len(out_order) and out_order[next_out] in forward_end:
            i = out_order[next_out]
            begin = max(forward_end[i], out_free)
            offload_start[i] = begin
            offload_end[i] = begin + offload_time[i]
            out_free = offload_end[i]
            if half:
                in_free = out_free
            next_out += 1
            leave(i)

    profile.add(0, s[0])
    if s[0] > instance.memory:
        return None
    forward_end[0] = 0
    start_offloads()
    forward_start = [0] * n
    clock = 0
    for k in range(1, n + 1):
        start = profile.earliest_fit(clock, s[k], wf[k - 1], f[k - 1])
        if start is None:
            return None
        forward_start[k - 1] = start
        end = start + f[k - 1]
        profile.add(start, s[k])
        if wf[k - 1]:
            profile.add(start, wf[k - 1])
            profile.add(end, -wf[k - 1])
        forward_end[k] = end
        if is_offloaded[k - 1]:
            leave(k - 1)
        start_offloads()
        clock = end
    backward_start = [0] * n
    next_in = 0
    for k in range(n, 0, -1):
        ready = clock
        if is_offloaded[k - 1]:
            while (k - 1) not in prefetch_start:
                i = in_order[next_in]
                next_in += 1
                begin = profile.earliest_fit(max(in_free, offload_end[i]), s[i])
                if begin is None:
                    return None
                prefetch_start[i] = begin
                profile.add(begin, s[i])
                in_free = begin + prefetch_time[i]
                if half:
                    out_free = in_free
            ready = max(ready, prefetch_start[k - 1] + prefetch_time[k - 1])
        start = profile.earliest_fit(ready, s[k - 1], wb[k - 1], b[k - 1])
        if start is None:
            return None
        backward_start[k - 1] = start
        end = start + b[k - 1]
        profile.add(start, s[k - 1])  # δ_{k-1}
        if wb[k - 1]:
            profile.add(start, wb[k - 1])
            profile.add(end, -wb[k - 1])
        profile.add(end, -s[k - 1])  # a_{k-1} (kept or prefetched) is read for the last time
        profile.add(end, -(s[n] if k == n else s[k]))  # a_L, or δ_k
        if k == 1:
            profile.add(end, -s[0])  # δ_0
        clock = end
    return Solution(
        offloaded=tuple(chosen),
        forward_start=tuple(forward_start),
        backward_start=tuple(backward_start),
        offload_start=offload_start,
        prefetch_start=prefetch_start,
    )


def makespan_of(instance: Instance, solution: Solution | None) -> float:
    """End of B_1, or infinity for None."""
    if solution is None:
        return float("inf")
    return solution.backward_start[0] + instance.backward[0]
