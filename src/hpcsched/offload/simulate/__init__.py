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

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from ...core.deadline import Deadline
from ..model import Instance, Solution, kept_prefix_fits
from .profile import Profile

#: Steps placed between two readings of the deadline: every ~20 ms at 10^5 layers (one simulation there
#: is ~2 s of Python); a chain below this many layers (< 25 ms) is always simulated to the end, so a
#: method on it has its first schedule even when its limit passed before.
CHECK_EVERY = 1024

# The hard deadline of the method that is running: every simulation it starts reads it, however deep in
# its phases (their own deadlines are soft: they stop starting simulations, not one that is under way).
_METHOD_DEADLINE: ContextVar[Deadline | None] = ContextVar("offload_simulation_deadline", default=None)

_Method = TypeVar("_Method", bound=Callable[..., Any])


@contextmanager
def simulation_deadline(deadline: Deadline) -> Iterator[None]:
    """Within the block, every `simulate` without its own ``deadline`` stops when ``deadline`` passes."""
    token = _METHOD_DEADLINE.set(deadline)
    try:
        yield
    finally:
        _METHOD_DEADLINE.reset(token)


def bounded_simulations(method: _Method) -> _Method:
    """Run an offload method with its time limit as the hard deadline of its simulations (`simulation_deadline`).

    A simulation that the limit overtakes raises `TimeLimitReached`: a method without
    a schedule yet then ends as TIME_LIMIT_NO_SOLUTION (the registry), one with an
    incumbent catches it and returns that.
    """

    @functools.wraps(method)
    def wrapper(instance: Instance, /, *, time_limit: float, **options: Any) -> Any:
        with simulation_deadline(Deadline.after(time_limit)):
            return method(instance, time_limit=time_limit, **options)

    return wrapper  # type: ignore[return-value]


def simulate(
    instance: Instance,
    offloaded: Iterable[int],
    *,
    scale: int = 1,
    out_order: Sequence[int] | None = None,
    in_order: Sequence[int] | None = None,
    deadline: Deadline | None = None,
) -> Solution | None:
    """The ASAP schedule of offload set ``offloaded``, or None if it cannot fit.

    ``deadline`` (default: the running method's, `simulation_deadline`) is read every
    `CHECK_EVERY` steps; `TimeLimitReached` when it has passed. The schedule does not
    depend on it.

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
    if out_order is None:
        out_order = chosen
    if in_order is None:
        in_order = chosen[::-1]
    if sorted(out_order) != chosen or sorted(in_order) != chosen:
        raise ValueError("out_order and in_order must be permutations of the offloaded set")
    if not kept_prefix_fits(instance, chosen):
        return None  # the definition's row for steps of zero duration, which the sweep below cannot see
    if deadline is None:
        deadline = _METHOD_DEADLINE.get() or Deadline(None)
    return _AsapSimulator(instance, chosen, scale, list(out_order), list(in_order), deadline).run()


class _AsapSimulator:
    """One run of `simulate`: the forward phase, then the backward phase, on one memory profile."""

    def __init__(
        self,
        instance: Instance,
        chosen: list[int],
        scale: int,
        out_order: list[int],
        in_order: list[int],
        deadline: Deadline,
    ):
        n = instance.n_layers
        self.deadline = deadline
        self.instance, self.chosen, self.n, self.s = instance, chosen, n, instance.activation
        self.out_order, self.in_order = out_order, in_order
        self.f = [_up(x, scale) for x in instance.forward]
        self.b = [_up(x, scale) for x in instance.backward]
        self.offload_time = [_up(instance.offload_time(i), scale) if i < n else 0 for i in range(n + 1)]
        self.prefetch_time = [_up(instance.prefetch_time(i), scale) if i < n else 0 for i in range(n + 1)]
        self.is_offloaded = [False] * (n + 1)
        for i in chosen:
            self.is_offloaded[i] = True
        self.profile = Profile(instance.memory)
        self.half = instance.duplex == "half"
        self.out_free = 0
        self.in_free = 0
        self.offload_start: dict[int, int] = {}
        self.offload_end: dict[int, int] = {}
        self.prefetch_start: dict[int, int] = {}
        self.forward_end: dict[int, int] = {}  # a_i's release: end of F_i (a_0: 0)
        self.next_out = 0
        self.next_in = 0
        self.clock = 0

    def run(self) -> Solution | None:
        forward_start = self.forward_phase()
        if forward_start is None:
            return None
        backward_start = self.backward_phase()
        if backward_start is None:
            return None
        return Solution(
            offloaded=tuple(self.chosen),
            forward_start=tuple(forward_start),
            backward_start=tuple(backward_start),
            offload_start=self.offload_start,
            prefetch_start=self.prefetch_start,
        )

    def leave(self, i: int) -> None:
        """a_i leaves when its offload and F_{i+1} are both done (whichever is known last adds it)."""
        if i in self.offload_end and (i + 1) in self.forward_end:
            self.profile.add(max(self.offload_end[i], self.forward_end[i + 1]), -self.s[i])

    def start_offloads(self) -> None:
        """Start the offloads of ``out_order`` whose activations are released, in that order."""
        while self.next_out < len(self.out_order) and self.out_order[self.next_out] in self.forward_end:
            i = self.out_order[self.next_out]
            begin = max(self.forward_end[i], self.out_free)
            self.offload_start[i] = begin
            self.offload_end[i] = begin + self.offload_time[i]
            self.out_free = self.offload_end[i]
            if self.half:
                self.in_free = self.out_free
            self.next_out += 1
            self.leave(i)

    def forward_phase(self) -> list[int] | None:
        """F_1..F_L, each at the first time its output and workspace fit; the offloads as they are released."""
        s, wf, profile = self.s, self.instance.workspace_forward, self.profile
        profile.add(0, s[0])
        if s[0] > self.instance.memory:
            return None
        self.forward_end[0] = 0
        self.start_offloads()
        forward_start = [0] * self.n
        for k in range(1, self.n + 1):
            if k % CHECK_EVERY == 0:
                self.deadline.check("simulating the forward phase")
            start = profile.earliest_fit(self.clock, s[k], wf[k - 1], self.f[k - 1])
            if start is None:
                return None
            forward_start[k - 1] = start
            end = start + self.f[k - 1]
            profile.add(start, s[k])
            if wf[k - 1]:
                profile.add(start, wf[k - 1])
                profile.add(end, -wf[k - 1])
            self.forward_end[k] = end
            if self.is_offloaded[k - 1]:
                self.leave(k - 1)
            self.start_offloads()
            self.clock = end
        return forward_start

    def prefetch_until(self, target: int) -> bool:
        """Place the prefetches of ``in_order`` up to a_target's, each as early as it fits for good."""
        s, profile = self.s, self.profile
        while target not in self.prefetch_start:
            i = self.in_order[self.next_in]
            self.next_in += 1
            begin = profile.earliest_lasting_fit(max(self.in_free, self.offload_end[i]), s[i])
            if begin is None:
                return False
            self.prefetch_start[i] = begin
            profile.add(begin, s[i])
            self.in_free = begin + self.prefetch_time[i]
            if self.half:
                self.out_free = self.in_free
        return True

    def backward_phase(self) -> list[int] | None:
        """B_L..B_1, each after its prefetch (placed first) and when its gradient and workspace fit."""
        n, s, wb, profile = self.n, self.s, self.instance.workspace_backward, self.profile
        backward_start = [0] * n
        for k in range(n, 0, -1):
            if k % CHECK_EVERY == 0:
                self.deadline.check("simulating the backward phase")
            ready = self.clock
            if self.is_offloaded[k - 1]:
                if not self.prefetch_until(k - 1):
                    return None
                ready = max(ready, self.prefetch_start[k - 1] + self.prefetch_time[k - 1])
            start = profile.earliest_fit(ready, s[k - 1], wb[k - 1], self.b[k - 1])
            if start is None:
                return None
            backward_start[k - 1] = start
            end = start + self.b[k - 1]
            profile.add(start, s[k - 1])  # δ_{k-1}
            if wb[k - 1]:
                profile.add(start, wb[k - 1])
                profile.add(end, -wb[k - 1])
            profile.add(end, -s[k - 1])  # a_{k-1} (kept or prefetched) is read for the last time
            profile.add(end, -(s[n] if k == n else s[k]))  # a_L, or δ_k
            if k == 1:
                profile.add(end, -s[0])  # δ_0
            self.clock = end
        return backward_start


def _up(value: int, scale: int) -> int:
    """``value`` rounded up to a multiple of ``scale``."""
    return -(-value // scale) * scale


def makespan_of(instance: Instance, solution: Solution | None) -> float:
    """End of B_1, or infinity for None."""
    if solution is None:
        return float("inf")
    return solution.backward_start[0] + instance.backward[0]
