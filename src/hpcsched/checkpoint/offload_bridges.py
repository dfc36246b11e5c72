"""Offload-greedy's building blocks: the copies a remat sequence makes, bridges over their gaps, timing.

A *copy* is one production of a value (``F``/``Fall`` output, or x_0) with the
sequence positions that read it; a *bridge* offloads a copy after one use and
prefetches it before the next read. `timed_schedule` turns a sequence and
its bridges into a `Solution` with start times (prefetches planned as late
as possible; see its docstring); `timing` also takes *waits* (a compute
operation starts no earlier than the end of a given offload, which frees
the memory it needs), `wait_for_offload` picks one at an excess, and
`timing_with_waits` adds them until the schedule fits or none helps.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

from ..core.deadline import Deadline
from .model import Instance, Solution
from .model.two_levels import memory_over_time


@dataclass(frozen=True)
class Copy:
    """A GPU copy in a remat sequence: its value, creator position (-1: x_0) and read positions."""

    value: tuple[str, int]
    created: int
    reads: tuple[int, ...]


Made = list[tuple[tuple[str, int], int]]  # (value, creator position; -1: x_0) per copy, in list order


def _created_copies(sequence: tuple[tuple[str, int], ...]) -> Made:
    """The copies a remat sequence creates: x_0 at -1, then one per ``F`` / ``Fall``."""
    made: Made = [(("x", 0), -1)]
    for k, (name, stage) in enumerate(sequence):
        if name == "F":
            made.append((("x", stage + 1), k))
        elif name == "Fall":
            made.append((("xbar", stage + 1), k))
    return made


def _xbar_span_ends(made: Made, sequence: tuple[tuple[str, int], ...]) -> dict[int, int]:
    """The explicit end of each xbar copy: the first ``B i-1`` after its creation (its creator if none)."""
    backwards: dict[int, list[int]] = {}  # stage -> the positions of its B, ascending
    for k, (name, stage) in enumerate(sequence):
        if name == "B":
            backwards.setdefault(stage, []).append(k)
    span_end: dict[int, int] = {}
    for c, ((kind, i), p) in enumerate(made):
        if kind == "xbar":
            after = backwards.get(i - 1, [])
            j = bisect_right(after, p)
            span_end[c] = after[j] if j < len(after) else p
    return span_end


class _CopiesOf:
    """The copies of each value in creation order, to find the one a read uses by bisection (O(log n))."""

    def __init__(self, made: Made, span_end: dict[int, int]) -> None:
        self.copies: dict[tuple[str, int], list[int]] = {}  # value -> its copies, by creator position
        self.created: dict[tuple[str, int], list[int]] = {}  # value -> their creator positions
        for c, (value, p) in enumerate(made):
            self.copies.setdefault(value, []).append(c)
            self.created.setdefault(value, []).append(p)
        self.span_end = span_end

    def latest(self, value: tuple[str, int], k: int) -> int:
        """The latest copy of ``value`` created before position k."""
        j = bisect_left(self.created.get(value, []), k)
        if j == 0:
            raise ValueError(f"no copy of {value} before position {k}")
        return self.copies[value][j - 1]

    def server_of_x(self, i: int, k: int) -> int:
        """The copy serving a read of x_i at position k: the latest xbar_i copy whose span covers k, else
        x_i's latest."""
        if i:
            value = ("xbar", i)
            copies = self.copies.get(value, [])
            # the copies created before k, latest first; the first whose span reaches k serves
            for j in range(bisect_left(self.created.get(value, []), k) - 1, -1, -1):
                if k <= self.span_end[copies[j]]:
                    return copies[j]
        return self.latest(("x", i), k)


def value_copies(length: int, sequence: tuple[tuple[str, int], ...]) -> list[Copy]:
    """The copies of a remat sequence and which positions read each (the chain's least-fixpoint rule).

    O(n log n) in the sequence length, plus the xbar copies of one value created before a read whose
    span ended before it (a value forwarded with ``Fall`` again and again)."""
    made = _created_copies(sequence)
    reads: dict[int, list[int]] = {c: [] for c in range(len(made))}
    of = _CopiesOf(made, _xbar_span_ends(made, sequence))
    for k, (name, stage) in enumerate(sequence):
        if name == "B" and stage < length:
            reads[of.latest(("xbar", stage + 1), k)].append(k)
        if name in ("F", "Fall", "B"):
            read = reads[of.server_of_x(stage, k)]
            if not read or read[-1] != k:  # positions come in increasing order: k is last if already there
                read.append(k)
    return [Copy(v, p, tuple(reads[c])) for c, (v, p) in enumerate(made)]


@dataclass(frozen=True)
class Bridge:
    """Copy ``copy`` is absent from the GPU between use ``opens`` and read ``closes`` (list positions)."""

    copy: int
    opens: int  # position of the creation or read after which it is offloaded (-1: x_0 at time 0)
    closes: int  # position of the read it is prefetched for
    offload: bool  # the first bridge of its copy writes the host copy
    serial: bool = False  # the prefetch waits for the compute operation before ``closes`` to end


def durations(instance: Instance, sequence) -> list[int]:
    return [instance.bw[s] if n == "B" else instance.fw[s] for n, s in sequence]


def link_time(instance: Instance, value: tuple[str, int], direction: str) -> int:
    size = instance.x[value[1]] if value[0] == "x" else instance.xbar[value[1]]
    return instance.transfer_time(size, direction)


#: A wait: the compute operation at list position ``[0]`` starts no earlier than the end of the offload of
#: the bridge of copy ``[1]`` that opens at ``[2]`` (its ``(copy, opens)``).
Wait = tuple[int, int, int]


class Timed(NamedTuple):
    """A timing of `timed_schedule`: the schedule, each prefetch's and each offload's (start, end) by bridge,
    and the start of each compute position."""

    solution: Solution
    prefetches: dict[Bridge, tuple[int, int]]
    offloads: dict[tuple[int, int], tuple[int, int]]
    compute_start: list[int]


def timed_schedule(
    instance: Instance,
    sequence,
    copies: list[Copy],
    bridges: list[Bridge],
    early: bool = True,
    waits: tuple[Wait, ...] = (),
    deadline: Deadline | None = None,
) -> tuple[Solution, dict[Bridge, tuple[int, int]]]:
    """The explicit schedule of ``sequence`` with ``bridges`` and the prefetch windows (see `timing`)."""
    timed = timing(instance, sequence, copies, bridges, early, waits, deadline)
    return timed.solution, timed.prefetches


def timing(
    instance: Instance,
    sequence,
    copies: list[Copy],
    bridges: list[Bridge],
    early: bool = True,
    waits: tuple[Wait, ...] = (),
    deadline: Deadline | None = None,
) -> Timed:
    """The explicit schedule of ``sequence`` with ``bridges`` (`offload_greedy` docstring, step 2).

    The prefetches are planned as late as possible against compute start
    times that are first back to back, then those of the previous timing
    (a late prefetch delays the compute, so earlier plans would prefetch too
    early and hold memory for nothing); a few rounds, the lowest peak kept.
    The compute waits for a late prefetch and, for each of ``waits``, for the
    end of that bridge's offload (see `wait_for_offload`); without waits it
    never waits for an offload. ``deadline`` (None: none) is checked before each round.
    """
    planned, now = [], 0
    for d in durations(instance, sequence):
        planned.append(now)
        now += d
    best: tuple[tuple[int, int], Timed] | None = None
    for _ in range(4):
        if deadline is not None:
            deadline.check("timing transfers")
        timed = _timed_once(instance, sequence, copies, bridges, planned, early, waits)
        peak = max((held for _, held in memory_over_time(instance, timed.solution)), default=0)
        key = (max(0, peak - instance.memory), max(t for t in (timed.solution.start or (0,))))
        if best is None or key < best[0]:
            best = (key, timed)
        if timed.compute_start == planned:
            break
        planned = timed.compute_start
    assert best is not None  # the loop runs at least once
    return best[1]


def first_excess(instance: Instance, solution: Solution) -> tuple[int, int] | None:
    """The first (instant, bytes held) over M of a timed schedule (the definition's profile); None: it fits."""
    return next(((t, held) for t, held in memory_over_time(instance, solution) if held > instance.memory), None)


def wait_for_offload(timed: Timed, bridges: list[Bridge], instant: int, tried: set[Wait] | None = None) -> Wait | None:
    """A wait that may clear an excess at ``instant``: the compute operation starting then waits for the earliest
    offload still running (or queued) at that instant whose end frees its copy; None when there is none.

    Only offloads placed before that operation are candidates (bridges opening at an earlier position), so the
    wait never moves its own offload; the copy's last reader before its gap is the operation that opens it,
    ended by ``instant``, so the offload's end is where the copy's bytes are released (rule 5).
    """
    k = next((p for p, start in enumerate(timed.compute_start) if start == instant), None)
    if k is None:
        return None
    tried = tried or set()
    found = [
        (timed.offloads[(b.copy, b.opens)][1], (k, b.copy, b.opens))
        for b in bridges
        if b.offload
        and b.opens < k
        and (b.copy, b.opens) in timed.offloads
        and timed.offloads[(b.copy, b.opens)][1] > instant
        and (k, b.copy, b.opens) not in tried
    ]
    return min(found)[1] if found else None


def timing_with_waits(
    instance: Instance,
    sequence,
    copies: list[Copy],
    bridges: list[Bridge],
    early: bool = True,
    deadline: Deadline | None = None,
) -> Timed:
    """`timing`, then, while the schedule exceeds M and the compute operation starting at the first excess can
    wait for an offload that frees memory (`wait_for_offload`), add that wait and time again.

    A schedule that fits M gets no wait, so this is `timing` wherever that fits; the waits only trade time
    for memory where the back-to-back compute would exceed M. ``deadline`` (None: none) is checked before each
    wait and each timing round (`TimeLimitReached`).
    """
    waits: list[Wait] = []
    tried: set[Wait] = set()
    timed = timing(instance, sequence, copies, bridges, early, deadline=deadline)
    for _ in range(4 * (len(sequence) + len(bridges))):
        excess = first_excess(instance, timed.solution)
        if excess is None:
            break
        if deadline is not None:
            deadline.check("waiting for offloads")
        wait = wait_for_offload(timed, bridges, excess[0], tried)
        if wait is None:
            break
        tried.add(wait)
        waits.append(wait)
        timed = timing(instance, sequence, copies, bridges, early, tuple(waits), deadline)
    return timed


def _timed_once(
    instance: Instance,
    sequence,
    copies: list[Copy],
    bridges: list[Bridge],
    planned: list[int],
    early: bool,
    waits: tuple[Wait, ...] = (),
) -> Timed:
    """One timing of `timing` against ``planned`` compute starts."""
    dur = durations(instance, sequence)
    half = instance.duplex == "half"
    by_close: dict[int, list[Bridge]] = {}
    by_open: dict[int, list[Bridge]] = {}
    for b in bridges:
        by_close.setdefault(b.closes, []).append(b)
        by_open.setdefault(b.opens, []).append(b)
    waits_at: dict[int, list[tuple[int, int]]] = {}
    for k, c, a in waits:
        waits_at.setdefault(k, []).append((c, a))
    names = {"x": ("Off", "Pre"), "xbar": ("Offall", "Preall")}
    # Prefetches as late as possible on the in channel against the planned compute starts.
    order = sorted(bridges, key=lambda b: b.closes, reverse=True)
    pre_plan: dict[Bridge, int] = {}
    channel_start = None
    for b in order:
        t = link_time(instance, copies[b.copy].value, "in")
        finish = planned[b.closes] if channel_start is None else min(planned[b.closes], channel_start)
        pre_plan[b] = finish - t
        channel_start = finish - t
    events: list[tuple[int, int, str, int]] = []  # (start, tie, name, stage)
    free = {"out": 0, "in": 0}
    off_end: dict[int, int] = {}
    offloads: dict[tuple[int, int], tuple[int, int]] = {}
    op_end: dict[int, int] = {}
    windows: dict[Bridge, tuple[int, int]] = {}
    segment_ready: dict[int, int] = {}  # copy -> ready time of its current GPU segment

    def channel(direction: str) -> str:
        return "out" if half else direction

    def place_offloads(position: int, ready: int) -> None:
        for b in by_open.get(position, ()):
            if not b.offload:
                continue
            value = copies[b.copy].value
            d = link_time(instance, value, "out")
            # as early as the copy is ready, overlapping the reads before the gap, but ending no earlier
            # than they do (an xbar copy serves reads of x only up to its last explicit read, this one)
            s = max(segment_ready.get(b.copy, 0) if early else ready, ready - d, free[channel("out")])
            free[channel("out")] = s + d
            off_end[b.copy] = s + d
            offloads[(b.copy, b.opens)] = (s, s + d)
            events.append((s, 1, names[value[0]][0], value[1]))

    created_by = {copy.created: c for c, copy in enumerate(copies) if copy.created >= 0}
    place_offloads(-1, 0)
    clock, actual = 0, []
    for k, (name, stage) in enumerate(sequence):
        begin = clock
        for b in sorted(by_close.get(k, ()), key=lambda b: pre_plan[b]):
            value = copies[b.copy].value
            d = link_time(instance, value, "in")
            # after the host copy is written and after the previous GPU copy's segment ends
            s = max(pre_plan[b], free[channel("in")], off_end.get(b.copy, 0), op_end.get(b.opens, 0))
            if b.serial:
                s = max(s, clock)
            free[channel("in")] = s + d
            windows[b] = (s, s + d)
            segment_ready[b.copy] = s + d
            events.append((s, 1, names[value[0]][1], value[1]))
            begin = max(begin, s + d)
        for key in waits_at.get(k, ()):
            begin = max(begin, offloads.get(key, (0, 0))[1])
        events.append((begin, 0, name, stage))
        actual.append(begin)
        clock = begin + dur[k]
        op_end[k] = clock
        if name in ("F", "Fall"):
            segment_ready[created_by[k]] = clock
        place_offloads(k, clock)
    events.sort(key=lambda e: (e[0], e[1]))
    solution = Solution(tuple((n, s) for _, _, n, s in events), tuple(t for t, _, _, _ in events))
    return Timed(solution, windows, offloads, actual)


def copy_gaps(copies: list[Copy]) -> list[tuple[int, int, int]]:
    """(copy, opens, closes) for every gap between consecutive uses of a copy."""
    found: list[tuple[int, int, int]] = []
    for c, copy in enumerate(copies):
        uses = [copy.created, *copy.reads]
        found.extend((c, a, z) for a, z in pairwise(uses) if z > a + 1)
    return found
