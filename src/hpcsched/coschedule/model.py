"""Data model of coschedule: GPU kernels co-scheduled two at a time.

Definition (``shared/spec/coschedule.md``): kernels i with solo durations
p_i > 0 (integers in ``time_unit``); at most two kernels run at once; two
kernels may run together only when they form a listed compatible pair
{i, j}, and then i progresses at r_{i|j} in (0, 1] times its solo speed. A
schedule is a list of segments (kernel, start, end); kernel i completes when
its progress reaches 1 and its last segment ends exactly then. Objective:
makespan.

Modelling choices where the spec leaves room (documented for users):

- Times of a schedule are real numbers (floats in files): co-run rates are
  real, so completion times are not integers even when durations are.
- A *preemption* is an interruption: touching segments of one kernel
  (``end == start`` exactly) are one run. preemptions = Σ_i (runs_i − 1); the
  preempted fraction is the share of kernels with at least two runs.
- The validator integrates progress with exact rational arithmetic
  (``fractions.Fraction`` of the float times and rates: every float is a
  rational number, so nothing is rounded), then accepts a final progress of
  kernel i within ``1e-9 + 1e-12 * makespan / p_i`` of 1. The first term is
  the relative tolerance the spec allows; the second absorbs float rounding
  of cumulated times (a few ulps of the makespan) on short kernels.
- Idle time is the part of [0, makespan] where no kernel runs.
- The ratio to the preemptive optimum needs an LP solve, so ``evaluate``
  does not report it (it stays a pure function of the schedule): divide the
  makespan by ``bounds.lp(instance)`` where it is wanted.

Kernels may carry an optional ``profile`` (SM demand, class compute / memory
/ unknown, grid, block, registers, shared memory...) kept for provenance only:
no method reads it; the rates in ``pairs`` are the whole model.

Streams (optional ``data.streams``): ordered lists of kernel ids, each
kernel in at most one stream; kernels in no stream are independent. Kernels
of one stream run one after another in stream order, as on a CUDA stream:
the first segment of kernel k+1 starts no earlier than the last segment of
kernel k ends (``start(k+1) >= end(k)``, touching allowed). Hence a kernel
never co-runs with a kernel of its own stream; it may co-run with kernels of
other streams (and with independent kernels) when the pair is listed.

Keys: ``data`` holds only ``kernels``, ``pairs``, ``gpu`` and ``streams``; a kernel record
only ``name``, ``duration`` and ``profile``; a pair record only ``a``, ``b``,
``rate_a``, ``rate_b``; ``gpu`` only ``name`` and ``sms``. Any other key is
refused (naming it): a misspelt key, ``"kernals"`` or ``"rate_ab"``, would
otherwise be silently ignored. The ``profile`` object is the one open place:
extra descriptive fields of a kernel (``app``, ``stream``, ``job_type``, ...)
go there, any key is kept, and the known ones are typed.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Mapping
from typing import Any

from ..core.errors import InvalidInstanceError
from ..core.fields import (
    require_dict,
    require_index,
    require_int,
    require_key,
    require_known_keys,
    require_list,
    require_number,
    require_str,
)
from ..core.violation import Violation

KERNEL_CLASSES = ("compute", "memory", "unknown")
#: Keys of the ``data`` section and of its records (module doc); ``profile`` is free-form.
DATA_KEYS = ("kernels", "pairs", "gpu", "streams")
KERNEL_KEYS = ("name", "duration", "profile")
PAIR_KEYS = ("a", "b", "rate_a", "rate_b")
GPU_KEYS = ("name", "sms")

_PROFILE = {
    "type": "object",
    "description": "provenance only, any key (descriptive fields of a kernel go here): sm_demand, class (compute|memory|unknown), grid, block, registers, shared_memory, app, ...",
}

DATA_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "coschedule data",
    "type": "object",
    "required": ["kernels"],
    "additionalProperties": False,
    "properties": {
        "kernels": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["duration"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string"},
                    "duration": {"type": "integer", "minimum": 1, "description": "solo duration in time_unit"},
                    "profile": _PROFILE,
                },
            },
        },
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["a", "b", "rate_a", "rate_b"],
                "additionalProperties": False,
                "properties": {
                    "a": {"type": "integer", "minimum": 0},
                    "b": {"type": "integer", "minimum": 0},
                    "rate_a": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                    "rate_b": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                },
            },
        },
        "gpu": {"type": "object", "additionalProperties": False, "properties": {"name": {"type": "string"}, "sms": {"type": "integer", "minimum": 1}}},
        "streams": {
            "type": "array",
            "description": "ordered kernel lists (CUDA streams): kernels of one stream run one after another in list order "
            "(start of k+1 >= end of k) and never co-run; each kernel in at most one stream; absent = independent kernels",
            "items": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 0}},
        },
    },
}


#: Progress tolerance of the validator (see module docstring).
PROGRESS_TOLERANCE = 1e-9
#: Float rounding allowance on times, relative to the makespan.
TIME_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Kernel:
    """One kernel: a name, its solo duration and an optional profile."""

    name: str
    duration: int
    profile: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Pair:
    """A compatible pair: ``a`` runs at ``rate_a`` with ``b``, ``b`` at ``rate_b`` with ``a``."""

    a: int
    b: int
    rate_a: float
    rate_b: float


@dataclass(frozen=True)
class Instance:
    """A coschedule instance (build it with `Instance.create` or `from_data`).

    Attributes
    ----------
    name, source, time_unit
        Name, provenance and the unit of the integer durations.
    kernels
        The kernels, indexed 0..n-1.
    pairs
        Compatible pairs with both co-run rates; unlisted pairs never co-run.
    gpu
        Optional ``{"name": ..., "sms": Q}``.
    streams
        Ordered kernel lists (module doc); empty when all kernels are independent.
    """

    name: str
    source: Mapping[str, Any]
    time_unit: str | None
    kernels: tuple[Kernel, ...]
    pairs: tuple[Pair, ...]
    gpu: Mapping[str, Any] | None = None
    streams: tuple[tuple[int, ...], ...] = ()
    _rates: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _stream_of: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rates = {}
        for pair in self.pairs:
            rates[(pair.a, pair.b)] = pair.rate_a
            rates[(pair.b, pair.a)] = pair.rate_b
        object.__setattr__(self, "_rates", rates)
        object.__setattr__(
            self, "_stream_of", {k: (s, position) for s, stream in enumerate(self.streams) for position, k in enumerate(stream)}
        )

    # -- queries -----------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.kernels)

    @property
    def durations(self) -> tuple[int, ...]:
        return tuple(kernel.duration for kernel in self.kernels)

    def rate(self, i: int, j: int) -> float | None:
        """Speed of ``i`` (fraction of solo speed) while ``j`` runs; None if incompatible."""
        return self._rates.get((i, j))

    def compatible(self, i: int, j: int) -> bool:
        """True when i and j may co-run: a listed pair, not of one stream."""
        return (i, j) in self._rates and not self.same_stream(i, j)

    def same_stream(self, i: int, j: int) -> bool:
        a, b = self._stream_of.get(i), self._stream_of.get(j)
        return a is not None and b is not None and a[0] == b[0]

    def predecessor(self, kernel: int) -> int | None:
        """The kernel just before ``kernel`` in its stream (None: first, or in no stream)."""
        place = self._stream_of.get(kernel)
        if place is None or place[1] == 0:
            return None
        return self.streams[place[0]][place[1] - 1]

    def precedences(self) -> list[tuple[int, int]]:
        """Consecutive stream-mates (a, b): b starts after a ends."""
        return [(a, b) for stream in self.streams for a, b in zip(stream, stream[1:])]

    # -- construction --------------------------------------------------------
    @classmethod
    def create(
        cls,
        durations: list[int],
        pairs: list[tuple[int, int, float, float]],
        *,
        name: str = "coschedule",
        names: list[str] | None = None,
        profiles: list[Mapping[str, Any] | None] | None = None,
        gpu: Mapping[str, Any] | None = None,
        time_unit: str | None = "us",
        source: Mapping[str, Any] | None = None,
        streams: list[list[int]] | None = None,
    ) -> Instance:
        """Build an instance in code, through the same checks as `from_data`."""
        kernels = []
        for index, duration in enumerate(durations):
            kernel: dict[str, Any] = {"name": names[index] if names else f"k{index}", "duration": duration}
            if profiles and profiles[index] is not None:
                kernel["profile"] = dict(profiles[index])
            kernels.append(kernel)
        data: dict[str, Any] = {
            "kernels": kernels,
            "pairs": [{"a": a, "b": b, "rate_a": ra, "rate_b": rb} for a, b, ra, rb in pairs],
        }
        if gpu is not None:
            data["gpu"] = dict(gpu)
        if streams:
            data["streams"] = [list(stream) for stream in streams]
        return cls.from_data(data, name=name, time_unit=time_unit, source=dict(source or {}))

    @classmethod
    def from_data(cls, data: dict, *, name: str, time_unit: str | None, source: dict) -> Instance:
        """Check the ``data`` section of an instance file and build the Instance."""
        data = require_dict(data, "data")
        require_known_keys(data, DATA_KEYS, "data", "coschedule data (kernels, pairs, gpu)")
        raw_kernels = require_list(require_key(data, "kernels", "data"), "data.kernels", min_length=1)
        kernels = []
        for index, raw in enumerate(raw_kernels):
            where = f"data.kernels[{index}]"
            raw = require_dict(raw, where)
            require_known_keys(raw, KERNEL_KEYS, where, "a kernel (name, duration, profile; descriptive fields go in profile)")
            kernel_name = require_str(raw.get("name", f"k{index}"), f"{where}.name")
            duration = require_int(require_key(raw, "duration", where), f"{where}.duration", minimum=1)
            profile = raw.get("profile")
            if profile is not None:
                profile = _check_profile(require_dict(profile, f"{where}.profile"), f"{where}.profile")
            kernels.append(Kernel(kernel_name, duration, profile))
        n = len(kernels)
        raw_pairs = require_list(data.get("pairs", []), "data.pairs")
        pairs, seen = [], {}
        for index, raw in enumerate(raw_pairs):
            where = f"data.pairs[{index}]"
            raw = require_dict(raw, where)
            require_known_keys(raw, PAIR_KEYS, where, "a pair (a, b, rate_a, rate_b)")
            a = require_index(require_key(raw, "a", where), f"{where}.a", n, "kernel")
            b = require_index(require_key(raw, "b", where), f"{where}.b", n, "kernel")
            if a == b:
                raise InvalidInstanceError(f"{where}.b", f"a kernel cannot pair with itself (a = b = {a})")
            key = (min(a, b), max(a, b))
            if key in seen:
                raise InvalidInstanceError(where, f"pair {{{a}, {b}}} is listed twice (also data.pairs[{seen[key]}])")
            seen[key] = index
            rate_a = require_number(require_key(raw, "rate_a", where), f"{where}.rate_a", maximum=1.0, strictly_positive=True)
            rate_b = require_number(require_key(raw, "rate_b", where), f"{where}.rate_b", maximum=1.0, strictly_positive=True)
            pairs.append(Pair(a, b, rate_a, rate_b))
        gpu = data.get("gpu")
        if gpu is not None:
            gpu = require_dict(gpu, "data.gpu")
            require_known_keys(gpu, GPU_KEYS, "data.gpu", "gpu (name, sms)")
            if "sms" in gpu:
                require_int(gpu["sms"], "data.gpu.sms", minimum=1)
            if "name" in gpu:
                require_str(gpu["name"], "data.gpu.name")
            gpu = dict(gpu)
        streams = _check_streams(data.get("streams", []), n)
        return cls(
            name=name, source=dict(source), time_unit=time_unit, kernels=tuple(kernels), pairs=tuple(pairs), gpu=gpu, streams=streams
        )

    def to_data(self) -> dict[str, Any]:
        """The ``data`` section of the instance file."""
        kernels = []
        for kernel in self.kernels:
            entry: dict[str, Any] = {"name": kernel.name, "duration": kernel.duration}
            if kernel.profile is not None:
                entry["profile"] = dict(kernel.profile)
            kernels.append(entry)
        data: dict[str, Any] = {
            "kernels": kernels,
            "pairs": [{"a": p.a, "b": p.b, "rate_a": p.rate_a, "rate_b": p.rate_b} for p in self.pairs],
        }
        if self.gpu is not None:
            data["gpu"] = dict(self.gpu)
        if self.streams:
            data["streams"] = [list(stream) for stream in self.streams]
        return data


def _check_streams(raw: Any, n: int) -> tuple[tuple[int, ...], ...]:
    """Streams: lists of kernel ids, each kernel in at most one stream (module doc)."""
    raw = require_list(raw, "data.streams")
    seen: dict[int, str] = {}
    streams = []
    for s, stream in enumerate(raw):
        stream = require_list(stream, f"data.streams[{s}]", min_length=1)
        for position, kernel in enumerate(stream):
            where = f"data.streams[{s}][{position}]"
            kernel = require_index(kernel, where, n, "kernel")
            if kernel in seen:
                raise InvalidInstanceError(where, f"kernel {kernel} is already in {seen[kernel]}: a kernel belongs to at most one stream, once")
            seen[kernel] = where
        streams.append(tuple(stream))
    return tuple(streams)


def _check_profile(profile: dict, where: str) -> dict:
    """Profile fields are free-form provenance, but the known ones are typed."""
    if "sm_demand" in profile:
        require_number(profile["sm_demand"], f"{where}.sm_demand", minimum=0)
    if "class" in profile:
        require_str(profile["class"], f"{where}.class", choices=KERNEL_CLASSES)
    for key in ("registers", "shared_memory", "memory_footprint"):
        if key in profile and profile[key] is not None:
            require_number(profile[key], f"{where}.{key}", minimum=0)
    for key in ("grid", "block"):
        if key in profile and profile[key] is not None:
            for axis, value in enumerate(require_list(profile[key], f"{where}.{key}")):
                require_int(value, f"{where}.{key}[{axis}]", minimum=0)
    return dict(profile)


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
        raw_segments = require_list(require_key(data, "segments", ""), "segments")
        segments = []
        for index, raw in enumerate(raw_segments):
            where = f"segments[{index}]"
            raw = require_dict(raw, where)
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
                        f"kernel {kernel} runs twice at once: [{first.start}, {first.end}) and [{second.start}, {second.end})",
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
                        f"kernel {after} starts at {first_start} before its stream predecessor {before} ends at {last_end}",
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
                self.violations.append(Violation("concurrency", f"kernels {running} run at once during [{time}, {next_time})"))
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
                    Violation("compatibility", f"kernels {i} and {j} are not a compatible pair but run together from {time}")
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
            violations.append(Violation("incomplete", f"kernel {kernel} stops at progress {done:.12g} < 1 (last end {last_end})"))
        elif done > 1 + tolerance:
            violations.append(Violation("overrun", f"kernel {kernel} reaches progress {done:.12g} > 1: it runs after completing"))
    return violations
