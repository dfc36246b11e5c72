"""The validator's rules on numpy arrays: whether a schedule breaks any, and its peaks and ends.

`rules.validate` asks `Screen.clean` first; only a schedule that breaks some
rule goes through the rule-by-rule Python checks, which word the
violations. Each screen decides exactly what its rule decides (the same
intervals, sort order and tie rules), at numpy speed: at 10^5 micro-batches
the Python rules took about a second, the screens a few hundredths.
`rules.evaluate` reads the peaks and the ends from the same arrays.

- Overlap: the executions of a device sorted by (start, end, micro-batch,
  block), as the Python rule sorts them; a pair of neighbours overlaps when
  the second starts before the first ends (for a period: phases modulo P,
  and the last against the first one period later).
- Memory: the level after all the events of an instant (makespan) or from
  a phase on (steady state), as `rules.makespan_levels` and
  `rules.steady_state_levels` compute it; a device breaks its limit exactly
  when its peak does.

Values whose sums may leave int64 (a solution file may hold any integer)
are left to the Python rules (`Screen.of` returns None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .instance import Instance
from .solution import Solution

#: Largest magnitude (times, products of times and byte sums) the screens handle in int64.
_SAFE = 2**62


@dataclass(frozen=True)
class Screen:
    """The start matrix of one well-shaped schedule, its per-device peaks and whether each rule holds."""

    starts: np.ndarray  # (N, B)
    ends: np.ndarray  # (N, B)
    peaks: tuple[int, ...]
    precedence_ok: bool
    overlap_ok: bool
    memory_ok: bool

    @classmethod
    def of(cls, instance: Instance, solution: Solution) -> Screen | None:
        """The screen of ``solution`` (its shape matches ``instance``), or None when int64 may overflow."""
        try:
            starts = np.array(solution.start, dtype=np.int64).reshape(instance.micro_batches, instance.n_blocks)
        except OverflowError:
            return None
        blocks = instance.blocks
        duration = np.array([block.duration for block in blocks], dtype=np.int64)
        biggest = int(np.abs(starts).max(initial=0)) + int(duration.max(initial=0)) + 1
        period = solution.period or 1
        byte_sum = instance.micro_batches * sum(abs(block.memory) * len(block.devices) for block in blocks)
        if biggest * (period + 1) > _SAFE or byte_sum * (biggest // period + 2) > _SAFE:
            return None
        ends = starts + duration
        slot_device = np.array([d for block in blocks for d in block.devices], dtype=np.int64)
        slot_block = np.array([b for b, block in enumerate(blocks) for _ in block.devices], dtype=np.int64)
        peaks = _peaks(instance, solution, starts, ends, slot_device, slot_block)
        limits = instance.memory_limit
        return cls(
            starts=starts,
            ends=ends,
            peaks=peaks,
            precedence_ok=_precedence_ok(instance, starts, ends),
            overlap_ok=_overlap_ok(instance, solution, starts, slot_device, slot_block),
            memory_ok=all(limit is None or peak <= limit for peak, limit in zip(peaks, limits, strict=True)),
        )

    def clean(self) -> bool:
        """True exactly when the Python rules find no violation (the shape being right)."""
        return self.precedence_ok and self.overlap_ok and self.memory_ok


def _precedence_ok(instance: Instance, starts: np.ndarray, ends: np.ndarray) -> bool:
    """No negative start, and every edge's target starts at or after its source's end plus the delay."""
    if (starts < 0).any():
        return False
    if not instance.edges:
        return True
    source = np.array([edge.source for edge in instance.edges], dtype=np.int64)
    target = np.array([edge.target for edge in instance.edges], dtype=np.int64)
    delay = np.array([edge.delay for edge in instance.edges], dtype=np.int64)
    return not (starts[:, target] < ends[:, source] + delay).any()


def _overlap_ok(
    instance: Instance, solution: Solution, starts: np.ndarray, slot_device: np.ndarray, slot_block: np.ndarray
) -> bool:
    """No two executions of one device overlap (modulo the period, with the wrap-around pair, for a period)."""
    n = instance.micro_batches
    period = solution.period
    begin = starts[:, slot_block]
    if period is not None:
        begin = begin % period
    duration = np.array([block.duration for block in instance.blocks], dtype=np.int64)[slot_block]
    end = begin + duration
    device = np.broadcast_to(slot_device, begin.shape).ravel()
    micro = np.broadcast_to(np.arange(n, dtype=np.int64)[:, None], begin.shape).ravel()
    block = np.broadcast_to(slot_block, begin.shape).ravel()
    begin, end = begin.ravel(), end.ravel()
    order = np.lexsort((block, micro, end, begin, device))
    device, begin, end = device[order], begin[order], end[order]
    same = device[1:] == device[:-1]
    if (same & (begin[1:] < end[:-1])).any():
        return False
    if period is None or not len(device):
        return True
    last = np.flatnonzero(np.r_[~same, True])  # the last execution of each device
    first = np.r_[0, last[:-1] + 1]
    return not (begin[first] + period < end[last]).any()


def _peaks(
    instance: Instance,
    solution: Solution,
    starts: np.ndarray,
    ends: np.ndarray,
    slot_device: np.ndarray,
    slot_block: np.ndarray,
) -> tuple[int, ...]:
    """Per device, the highest level of `rules.makespan_levels` (steady state: `rules.steady_state_levels`)."""
    memory = np.array([block.memory for block in instance.blocks], dtype=np.int64)
    keep = memory[slot_block] != 0
    slot_device, slot_block = slot_device[keep], slot_block[keep]
    delta = memory[slot_block]
    # an allocation at the block's start, a free at its end
    times = np.where(delta > 0, starts[:, slot_block], ends[:, slot_block]).ravel()
    device = np.broadcast_to(slot_device, (instance.micro_batches, len(slot_device))).ravel()
    delta = np.broadcast_to(delta, (instance.micro_batches, len(delta))).ravel()
    devices = instance.devices
    if not len(delta):
        return (0,) * devices  # no event: level 0 (the makespan's default, the steady state's only level)
    period = solution.period
    base = np.zeros(devices, dtype=np.int64)
    if period is not None:
        lap, times = np.divmod(times, period)
        np.add.at(base, device, -delta * lap)
    order = np.lexsort((times, device))
    device, times, delta = device[order], times[order], delta[order]
    running = np.cumsum(delta)
    group_end = np.r_[(device[1:] != device[:-1]) | (times[1:] != times[:-1]), True]
    device_start = np.r_[True, device[1:] != device[:-1]]
    first = np.maximum.accumulate(np.where(device_start, np.arange(len(delta)), 0))
    level = running - (running[first] - delta[first])  # the running sum of the device's own events
    lowest = np.iinfo(np.int64).min
    peaks = np.full(devices, lowest, dtype=np.int64)
    if period is None:
        np.maximum.at(peaks, device[group_end], level[group_end])
        peaks[peaks == lowest] = 0  # no event: max(..., default=0)
        return tuple(int(p) for p in peaks)
    total = np.zeros(devices, dtype=np.int64)
    np.add.at(total, device, delta)
    # level from phase p on: base - (events of later phases) = base - total + running sum through p
    np.maximum.at(peaks, device[group_end], base[device[group_end]] - total[device[group_end]] + level[group_end])
    has_zero = np.zeros(devices, dtype=bool)
    has_zero[device[times == 0]] = True
    # a device with no event at phase 0 also has the level from phase 0 on
    peaks = np.where(has_zero, peaks, np.maximum(peaks, base - total))
    return tuple(int(p) for p in peaks)
