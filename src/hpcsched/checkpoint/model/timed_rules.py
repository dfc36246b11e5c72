"""The rules of kind ``chain-offload`` checked over time: operation timing, copies and what they hold.

`analyse` returns the violations of rules 1-5, the held intervals and the
makespan; `two_levels` builds the public evaluate/validate/memory profile on it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise

from ...core.violation import Violation
from .data import COMPUTE_OPERATIONS, Instance
from .solution import Solution, stage_range

#: Link operation -> (value kind it moves, direction).
LINK = {"Off": ("x", "out"), "Pre": ("x", "in"), "Offall": ("xbar", "out"), "Preall": ("xbar", "in")}


def duration(instance: Instance, name: str, stage: int) -> int:
    """The time operation ``name stage`` occupies (its stream or channel)."""
    if name == "B":
        return instance.bw[stage]
    if name in ("F", "Fall"):
        return instance.fw[stage]
    value, direction = LINK[name]
    size = instance.x[stage] if value == "x" else instance.xbar[stage]
    return instance.transfer_time(size, direction)


def default_start(instance: Instance, sequence: tuple[tuple[str, int], ...]) -> tuple[int, ...]:
    """Compute operations back to back from 0 (only meaningful without link operations)."""
    starts, now = [], 0
    for name, stage in sequence:
        starts.append(now)
        now += duration(instance, name, stage)
    return tuple(starts)


@dataclass(slots=True)
class _Copy:
    value: tuple[str, int]
    position: int  # list position of the creator (-1: x_0 at time 0)
    start: int
    ready: int
    end: int  # end of the last reader so far (at least the creator's end)
    explicit_end: int  # end of the last explicit read (xbar copies; -1: none)


def _reads_x(name: str, stage: int) -> int | None:
    """The x index an operation reads (None: none)."""
    if name in ("F", "Fall", "B", "Off"):
        return stage
    return None


#: Bytes held over ``[start, end)`` and what holds them: (start, end, size, what). A plain tuple: a schedule
#: has one per operation or more, and a named tuple cost about twice as much to make.
_Interval = tuple[int, int, int, str]


@dataclass(frozen=True)
class _Timing:
    """Start and end of every listed operation, and the makespan."""

    start: tuple[int, ...]
    end: tuple[int, ...]
    makespan: int


def _timing(instance: Instance, solution: Solution) -> _Timing | Violation:
    """The schedule's times, or the one shape violation (stage out of range, start times missing) that stops."""
    L, seq = instance.length, solution.sequence
    for k, (name, stage) in enumerate(seq):
        low, top = stage_range(L, name)
        if not low <= stage <= top:
            return Violation("stage", f"operation {k} ({name} {stage}) names a stage outside {low}..{top}")
    if solution.start is None:
        if any(name in LINK for name, _ in seq):
            return Violation("start", "a schedule with link operations must give every start time")
        start = default_start(instance, seq)
    else:
        start = solution.start
        if len(start) != len(seq):
            return Violation("start", f"{len(start)} start times for {len(seq)} operations")
    end = tuple(start[k] + duration(instance, name, stage) for k, (name, stage) in enumerate(seq))
    return _Timing(tuple(start), end, max(end, default=0))


class _ScheduleAnalysis:
    """Rules 1-5 of the definition over one timed schedule, one method per rule.

    Parameters
    ----------
    instance
        A ``chain-offload`` instance.
    sequence
        The listed operations.
    timing
        Their start and end times.
    """

    def __init__(self, instance: Instance, sequence: tuple[tuple[str, int], ...], timing: _Timing) -> None:
        self.instance, self.seq, self.L = instance, sequence, instance.length
        self.start, self.end, self.makespan = timing.start, timing.end, timing.makespan
        self.problems: list[Violation] = []
        self.copies: dict[tuple[str, int], list[_Copy]] = defaultdict(list)  # in list order
        self.positions: dict[tuple[str, int], list[int]] = defaultdict(list)  # their creators' positions
        self.host_ready: dict[tuple[str, int], int] = {}  # the earliest end of an Off/Offall of each value

    def run(self) -> tuple[list[Violation], list[_Interval]]:
        """Every rule's violations in the definition's order, and the held intervals."""
        self._check_streams()
        self._check_backward_order()
        self._collect_copies()
        self._explicit_xbar_reads()
        self._x_reads()
        self._check_prefetches()
        intervals = self._copy_intervals()
        intervals += self._delta_intervals()
        intervals += self._transient_intervals()
        return self.problems, intervals

    def _check_streams(self) -> None:
        """Rule 1: list ordered by start; compute serial; channels serial."""
        start, end = self.start, self.end
        last_end: dict[str, tuple[int, int]] = {}
        for k, (name, stage) in enumerate(self.seq):
            if k and start[k] < start[k - 1]:
                self.problems.append(
                    Violation(
                        "order",
                        f"operation {k} ({name} {stage}) starts at {start[k]}, before the "
                        f"operation listed before it ({start[k - 1]})",
                    )
                )
            channel = "link" if self.instance.duplex == "half" else LINK.get(name, ("", ""))[1]
            stream = "compute" if name in COMPUTE_OPERATIONS else channel
            if stream in last_end and start[k] < last_end[stream][0]:
                self.problems.append(
                    Violation(
                        "overlap",
                        f"operation {k} ({name} {stage}) starts at {start[k]} while "
                        f"operation {last_end[stream][1]} on the {stream} stream runs "
                        f"until {last_end[stream][0]}",
                    )
                )
            if stream not in last_end or end[k] >= last_end[stream][0]:
                last_end[stream] = (end[k], k)

    def _check_backward_order(self) -> None:
        """Rule 2: ``B L .. B 0`` once each, in order."""
        L = self.L
        backwards = [stage for name, stage in self.seq if name == "B"]
        if backwards != list(range(L, -1, -1)):
            self.problems.append(
                Violation(
                    "backward-order",
                    f"the backward operations must be B {L}..B 0, once each, in order; got {backwards}",
                )
            )

    def _collect_copies(self) -> None:
        """Rule 3: the GPU copies in list order (x_0 at time 0) and the host copies' ready times."""
        copies, positions, start, end = self.copies, self.positions, self.start, self.end
        copies[("x", 0)].append(_Copy(("x", 0), -1, 0, 0, 0, -1))
        positions[("x", 0)].append(-1)
        # the value each creator makes: x_{i+1} (F i), x_i (Pre i), xbar_{i+1} (Fall i), xbar_i (Preall i)
        creator_of = {"F": ("x", 1), "Pre": ("x", 0), "Fall": ("xbar", 1), "Preall": ("xbar", 0)}
        for k, (name, stage) in enumerate(self.seq):
            made = creator_of.get(name)
            if made is not None:
                value = (made[0], stage + made[1])
                copies[value].append(_Copy(value, k, start[k], end[k], end[k], -1))
                positions[value].append(k)
            elif name in ("Off", "Offall"):
                value = (LINK[name][0], stage)
                self.host_ready[value] = min(self.end[k], self.host_ready.get(value, self.end[k]))

    def _created_before(self, value: tuple[str, int], k: int) -> int:
        """How many copies of ``value`` were created before list position k (they come first, in list order)."""
        return bisect_left(self.positions[value], k)

    def _latest(self, value: tuple[str, int], k: int) -> _Copy | None:
        """The latest copy of ``value`` created before list position k."""
        count = self._created_before(value, k)
        return self.copies[value][count - 1] if count else None

    def _read(self, copy: _Copy | None, k: int, what: str) -> None:
        """Operation k reads ``copy``: it must exist and be ready; it stays held to the read's end."""
        name, stage = self.seq[k]
        start = self.start
        if copy is None:
            self.problems.append(
                Violation("not-held", f"operation {k} ({name} {stage}) reads {what}, never created before it")
            )
            return
        if copy.ready > start[k]:
            self.problems.append(
                Violation(
                    "not-ready",
                    f"operation {k} ({name} {stage}) starts at {start[k]} and reads "
                    f"{what}, whose creator ends at {copy.ready}",
                )
            )
        copy.end = max(copy.end, self.end[k])

    def _explicit_xbar_reads(self) -> None:
        """Explicit reads of xbar first: they fix the xbar copies' spans (rule 4)."""
        for k, (name, stage) in enumerate(self.seq):
            if name == "B" and stage < self.L:
                index = stage + 1
            elif name == "Offall":
                index = stage
            else:
                continue
            copy = self._latest(("xbar", index), k)
            self._read(copy, k, f"xbar_{index}")
            if copy is not None:
                copy.explicit_end = max(copy.explicit_end, self.end[k])

    def _x_reads(self) -> None:
        """Rule 4: a read of x_i is served by an xbar_i copy whose span covers it, else by x_i's latest copy."""
        start, end = self.start, self.end
        # Only an explicitly read xbar copy can serve (explicit_end is -1 otherwise, and end[k] >= 0): the
        # candidates are those, in list order, so each read scans the few created before it, not every copy.
        spans = {
            i: [c for c in found if c.explicit_end >= 0] for (kind, i), found in self.copies.items() if kind == "xbar"
        }
        for k, (name, stage) in enumerate(self.seq):
            i = _reads_x(name, stage)
            if i is None:
                continue
            server = None
            for c in spans.get(i, ()) if i >= 1 else ():
                if c.position >= k:
                    break
                if c.ready <= start[k] and end[k] <= c.explicit_end:
                    server = c
                    break
            if server is not None:
                self._read(server, k, f"x_{i} (served by xbar_{i})")
            else:
                self._read(self._latest(("x", i), k), k, f"x_{i}")

    def _check_prefetches(self) -> None:
        """Rule 3: ``Pre``/``Preall`` need a host copy written by their start."""
        for k, (name, stage) in enumerate(self.seq):
            if name in ("Pre", "Preall"):
                value = (LINK[name][0], stage)
                if not (value in self.host_ready and self.host_ready[value] <= self.start[k]):
                    self.problems.append(
                        Violation(
                            "no-host-copy",
                            f"operation {k} ({name} {stage}) starts at {self.start[k]} "
                            f"but no {'Off' if name == 'Pre' else 'Offall'} {stage} "
                            "ended by then",
                        )
                    )

    def _copy_intervals(self) -> list[_Interval]:
        """Rule 5: no two copies of a value overlap; every copy's held interval."""
        intervals: list[_Interval] = []
        for value, found in self.copies.items():
            size = self.instance.x[value[1]] if value[0] == "x" else self.instance.xbar[value[1]]
            label = f"{value[0]}_{value[1]}"
            for a, b in pairwise(found):
                if b.start < a.end:
                    self.problems.append(
                        Violation(
                            "held-twice",
                            f"{label} is created again at {b.start} (operation "
                            f"{b.position}) while an earlier copy is held until {a.end}",
                        )
                    )
            intervals.extend((c.start, c.end, size, label) for c in found)
        return intervals

    def _delta_intervals(self) -> list[_Interval]:
        """delta_i from the start of ``B i`` to the end of ``B i-1`` (delta_0 to the makespan)."""
        start, end, L = self.start, self.end, self.L
        intervals: list[_Interval] = []
        b_at = {stage: k for k, (name, stage) in enumerate(self.seq) if name == "B"}
        for i, k in b_at.items():
            release = self.makespan if i == 0 else end[b_at[i - 1]] if i - 1 in b_at else end[k]
            intervals.append((start[k], max(end[k], release), self.instance.x[i], f"delta_{i}"))
            if i < L and (i + 1) in b_at and b_at[i + 1] > k:
                self.problems.append(
                    Violation("not-held", f"operation {k} (B {i}) reads delta_{i + 1}, not produced before")
                )
        return intervals

    def _transient_intervals(self) -> list[_Interval]:
        """The transient of every compute operation while it runs."""
        instance = self.instance
        start, end, btmp, ftmp = self.start, self.end, instance.btmp, instance.ftmp
        return [
            (start[k], end[k], btmp[stage] if name == "B" else ftmp[stage], f"transient of {name} {stage}")
            for k, (name, stage) in enumerate(self.seq)
            if name in COMPUTE_OPERATIONS
        ]


def analyse(instance: Instance, solution: Solution) -> tuple[list[Violation], list[_Interval], int]:
    """Violations of rules 1-5, the held intervals ``(start, end, bytes, what)``, and the makespan."""
    timing = _timing(instance, solution)
    if isinstance(timing, Violation):
        return [timing], [], 0
    problems, intervals = _ScheduleAnalysis(instance, solution.sequence, timing).run()
    return problems, intervals, timing.makespan
