"""A coschedule schedule: segments, its KPIs (`evaluate`) and the independent validator (`validate`).

The validator integrates progress in exact rationals; tolerances in the
package docstring (`hpcsched.coschedule.model`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...core.fields import (
    require_dict,
    require_index,
    require_key,
    require_known_keys,
    require_list,
    require_number,
)
from ...core.violation import Violation
from .instance import Instance

#: Progress tolerance of the validator (see module docstring).
PROGRESS_TOLERANCE = 1e-9
#: Float rounding allowance on times, relative to the makespan.
TIME_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Segment:
    """Kernel ``kernel`` runs during [start, end)."""

    kernel: int
    start: float
    end: float


@dataclass(frozen=True)
class Solution:
    """A schedule: segments, any number per kernel (one per kernel if non-preemptive)."""

    segments: tuple[Segment, ...]

    def to_data(self) -> dict[str, Any]:
        return {"segments": [{"kernel": s.kernel, "start": s.start, "end": s.end} for s in self.segments]}

    @classmethod
    def from_data(cls, data: dict, *, instance: Instance) -> Solution:
        data = require_dict(data, "solution")
        require_known_keys(data, ("segments",), "", "a coschedule solution")
        raw_segments = require_list(require_key(data, "segments", ""), "segments")
        segments = []
        for index, raw in enumerate(raw_segments):
            where = f"segments[{index}]"
            raw = require_dict(raw, where)
            require_known_keys(raw, ("kernel", "start", "end"), where, "a segment")
            kernel = require_index(require_key(raw, "kernel", where), f"{where}.kernel", instance.n, "kernel")
            start = require_number(require_key(raw, "start", where), f"{where}.start")
            end = require_number(require_key(raw, "end", where), f"{where}.end")
            segments.append(Segment(kernel, start, end))
        return cls(tuple(segments))


def _runs(segments: list[Segment]) -> list[tuple[float, float]]:
    """Maximal runs of one kernel's segments (touching segments merge)."""
    runs: list[list[float]] = []
    for segment in sorted(segments, key=lambda s: (s.start, s.end)):
        if runs and segment.start <= runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], segment.end)
        else:
            runs.append([segment.start, segment.end])
    return [(a, b) for a, b in runs]


def evaluate(instance: Instance, solution: Solution) -> dict[str, float]:
    """Makespan (objective) and KPIs of a schedule.

    Returns
    -------
    dict
        ``objective`` = ``makespan`` (latest segment end); ``preemptions``
        (Σ runs − 1); ``preempted_fraction`` (kernels with ≥ 2 runs / n);
        ``idle_time`` (no kernel running within [0, makespan]);
        ``corun_time`` (two kernels running); ``segments``.
    """
    by_kernel: list[list[Segment]] = [[] for _ in range(instance.n)]
    for segment in solution.segments:
        by_kernel[segment.kernel].append(segment)
    makespan = max((s.end for s in solution.segments), default=0.0)
    runs = [_runs(segments) for segments in by_kernel]
    preemptions = sum(max(0, len(r) - 1) for r in runs)
    preempted = sum(1 for r in runs if len(r) > 1)
    # Busy time by a sweep over start (+1) / end (-1) events.
    events = sorted([(s.start, 1) for s in solution.segments] + [(s.end, -1) for s in solution.segments])
    busy = corun = 0.0
    active, last = 0, 0.0
    for time, delta in events:
        if active >= 1:
            busy += time - last
        if active >= 2:
            corun += time - last
        active += delta
        last = time
    kpis = {
        "objective": float(makespan),
        "makespan": float(makespan),
        "preemptions": float(preemptions),
        "preempted_fraction": preempted / instance.n,
        "idle_time": float(max(0.0, makespan - busy)),
        "corun_time": float(corun),
        "segments": float(len(solution.segments)),
    }
    return kpis


def validate(instance: Instance, solution: Solution) -> list[Violation]:
    """Every rule of the definition the schedule breaks ([] = feasible).

    Rules: ``segment`` (start ≥ 0, end > start, finite), ``self-overlap``
    (a kernel cannot run twice at once), ``missing`` (a kernel never runs),
    ``concurrency`` (≤ 2 kernels at any instant), ``compatibility`` (two
    running kernels form a listed pair), ``incomplete`` (progress < 1 at the
    kernel's last end), ``overrun`` (progress > 1: the kernel ran after
    completing), ``stream-order`` (a kernel of a stream starts before its
    stream predecessor's last segment ends: out of order, or co-running with
    it). Progress is integrated slab by slab in exact rationals.
    """
    violations: list[Violation] = []
    by_kernel = _well_formed_segments(instance, solution, violations)
    violations += _missing_and_self_overlap(instance, by_kernel)
    violations += _stream_order(instance, by_kernel)
    sweep = _ProgressSweep(instance)
    sweep.run([s for segments in by_kernel for s in segments])
    violations += sweep.violations
    violations += _completion(instance, by_kernel, sweep.progress)
    return violations


def _well_formed_segments(instance: Instance, solution: Solution, violations: list[Violation]) -> list[list[Segment]]:
    """Segments grouped by kernel, those with a bad kernel or bad times reported and left out."""
    n = instance.n
    by_kernel: list[list[Segment]] = [[] for _ in range(n)]
    for index, segment in enumerate(solution.segments):
        where = f"segment {index} of kernel {segment.kernel}"
        if not (0 <= segment.kernel < n):
            violations.append(Violation("segment", f"segment {index} names kernel {segment.kernel}, not in 0..{n - 1}"))
            continue
        if not (math.isfinite(segment.start) and math.isfinite(segment.end)):
            violations.append(Violation("segment", f"{where} has a non-finite time"))
            continue
        if segment.start < 0:
            violations.append(Violation("segment", f"{where} starts at {segment.start} < 0"))
        if segment.end <= segment.start:
            violations.append(Violation("segment", f"{where} ends at {segment.end} <= its start {segment.start}"))
            continue
        by_kernel[segment.kernel].append(segment)
    return by_kernel


def _missing_and_self_overlap(instance: Instance, by_kernel: list[list[Segment]]) -> list[Violation]:
    violations = []
    for kernel, segments in enumerate(by_kernel):
        if not segments:
            violations.append(Violation("missing", f"kernel {kernel} ({instance.kernels[kernel].name}) never runs"))
        ordered = sorted(segments, key=lambda s: s.start)
        for first, second in itertools.pairwise(ordered):
            if second.start < first.end:
                violations.append(
                    Violation(
                        "self-overlap",
                        f"kernel {kernel} runs twice at once: [{first.start}, {first.end}) "
                        f"and [{second.start}, {second.end})",
                    )
                )
    return violations


def _stream_order(instance: Instance, by_kernel: list[list[Segment]]) -> list[Violation]:
    violations = []
    for before, after in instance.precedences():
        if by_kernel[before] and by_kernel[after]:
            last_end = max(s.end for s in by_kernel[before])
            first_start = min(s.start for s in by_kernel[after])
            if first_start < last_end:
                violations.append(
                    Violation(
                        "stream-order",
                        f"kernel {after} starts at {first_start} "
                        f"before its stream predecessor {before} ends at {last_end}",
                    )
                )
    return violations


class _ProgressSweep:
    """Exact progress of every kernel, slab by slab between consecutive distinct endpoints.

    Slabs with three or more kernels (``concurrency``, first ten reported,
    then a count) or an unlisted pair (``compatibility``, once per pair) add
    no progress and are reported.
    """

    REPORTED_CROWDS = 10

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        self.progress = [Fraction(0)] * instance.n
        self.violations: list[Violation] = []
        self._reported_pairs: set[tuple[int, int]] = set()
        self._crowds = 0

    def run(self, segments: list[Segment]) -> None:
        events: dict[float, list[tuple[int, int]]] = {}
        for s in segments:
            events.setdefault(s.start, []).append((1, s.kernel))
            events.setdefault(s.end, []).append((-1, s.kernel))
        times = sorted(events)
        active: dict[int, int] = {}
        for position, time in enumerate(times):
            for delta, kernel in events[time]:
                active[kernel] = active.get(kernel, 0) + delta
                if active[kernel] == 0:
                    del active[kernel]
            if position + 1 < len(times) and active:
                self._slab(time, times[position + 1], sorted(active))
        if self._crowds > self.REPORTED_CROWDS:
            more = self._crowds - self.REPORTED_CROWDS
            self.violations.append(Violation("concurrency", f"... {more} more slabs with three or more kernels"))

    def _slab(self, time: float, next_time: float, running: list[int]) -> None:
        length = Fraction(next_time) - Fraction(time)
        if len(running) > 2:
            if self._crowds < self.REPORTED_CROWDS:
                self.violations.append(
                    Violation("concurrency", f"kernels {running} run at once during [{time}, {next_time})")
                )
            self._crowds += 1
            return
        if len(running) == 1:
            kernel = running[0]
            self.progress[kernel] += length / self.instance.kernels[kernel].duration
            return
        i, j = running
        rate_i, rate_j = self.instance.rate(i, j), self.instance.rate(j, i)
        if rate_i is None or rate_j is None:
            if (i, j) not in self._reported_pairs:
                self.violations.append(
                    Violation(
                        "compatibility", f"kernels {i} and {j} are not a compatible pair but run together from {time}"
                    )
                )
                self._reported_pairs.add((i, j))
            return
        self.progress[i] += length * Fraction(rate_i) / self.instance.kernels[i].duration
        self.progress[j] += length * Fraction(rate_j) / self.instance.kernels[j].duration


def _completion(instance: Instance, by_kernel: list[list[Segment]], progress: list[Fraction]) -> list[Violation]:
    violations = []
    makespan = max((s.end for segments in by_kernel for s in segments), default=0.0)
    for kernel, segments in enumerate(by_kernel):
        if not segments:
            continue
        duration = instance.kernels[kernel].duration
        tolerance = PROGRESS_TOLERANCE + TIME_TOLERANCE * makespan / duration
        done = float(progress[kernel])
        if done < 1 - tolerance:
            last_end = max(s.end for s in segments)
            violations.append(
                Violation("incomplete", f"kernel {kernel} stops at progress {done:.12g} < 1 (last end {last_end})")
            )
        elif done > 1 + tolerance:
            violations.append(
                Violation("overrun", f"kernel {kernel} reaches progress {done:.12g} > 1: it runs after completing")
            )
    return violations
